//! `{received: AGENT, from?, count?, text?, data?, nth?}`: what an agent was sent — by the
//! scenario's callers, by scripted agents' delegations, or by a real agent under test.

use crate::file::*;
use crate::yaml::Seg;
use engine::scenario::*;

use super::value_tests::text_test;
use super::{Loader, Names, child};

impl Loader<'_> {
    pub(super) fn received(
        &mut self,
        at: &[Seg],
        agent: String,
        e: ExpectFile,
        names: &Names,
    ) -> Option<Expectation> {
        let stray = [
            ("state", e.state.is_some()),
            ("delegation_chain", e.delegation_chain.is_some()),
            ("history", e.history.is_some()),
            ("outcome", e.outcome.is_some()),
            ("attempt", e.attempt.is_some()),
            ("codes", e.codes.is_some()),
            ("agents", e.agents.is_some()),
            ("grid", e.grid.is_some()),
            ("last", e.last.is_some()),
        ];
        if let Some((key, _)) = stray.iter().find(|t| t.1) {
            self.problem(
                child(at, key),
                format!("`{key}` does not go with `received` (its tests are `count`, `text` and `data`, on the first message of each task)"),
            );
            return None;
        }
        let Some(&ix) = names.agents.get(agent.as_str()) else {
            self.problem(
                child(at, "received"),
                format!("`received` names no agent `{agent}` of the scenario"),
            );
            return None;
        };
        if let Some(from) = &e.from
            && !names.callers.contains_key(from.as_str())
            && !names.agents.contains_key(from.as_str())
        {
            self.problem(
                child(at, "from"),
                format!("`from` names no caller or agent `{from}` of the scenario"),
            );
            return None;
        }
        let nth = match e.nth {
            Some(n) => Some(self.at_least(child(at, "nth"), "`nth`", n, 1)? as usize),
            None => None,
        };
        let count = e
            .count
            .map(|c| self.count_test(&child(at, "count"), "count", c));
        let data = e
            .data
            .map(|d| self.data_tests(&child(at, "data"), d))
            .unwrap_or_default();
        Some(Expectation::Received(ReceivedExpectation {
            agent: ix,
            from: e.from,
            count,
            text: e.text.map(text_test),
            data,
            nth,
        }))
    }
}
