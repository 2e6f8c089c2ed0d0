//! `expect:` entries: the tests on tasks (the paths naming them are read in `task_paths`),
//! denials, rankings, pushes, errors.

use crate::diagnostic::with_hint;
use crate::file::*;
use crate::yaml::Seg;
use engine::record::{DenialCode, ErrorCode, TaskState};
use engine::scenario::*;

use super::value_tests::text_test;
use super::{Loader, Names, child};

impl Loader<'_> {
    /// An `expect` entry and whether it is `always: true`.
    pub(super) fn expectation(
        &mut self,
        i: usize,
        mut e: ExpectFile,
        names: &Names,
        alias_steps: &[u32],
        steps: &[Step],
    ) -> Option<(Expectation, bool)> {
        let at = at!["expect", i];
        let always = e.always.take().unwrap_or(false);
        let given = e.given.take();
        // The claims about one thing the run did: a task, deliveries, dead letters, a task's pushes.
        let takes_if = e.task.is_some()
            || e.deliveries.is_some()
            || e.dead_letters.is_some()
            || matches!(e.pushes, Some(PushesFile::OfTask(_)));
        let mut entry = self.expectation_at(at.clone(), e, names, alias_steps, steps);
        if let Some(mut g) = given {
            let here = child(&at, "if");
            if !takes_if {
                self.problem(
                    here,
                    "`if` goes with `task`, `deliveries`, `dead_letters` and `pushes: {task}` entries",
                );
                return None;
            }
            if g.always.is_some() || g.given.is_some() {
                let key = if g.always.is_some() { "always" } else { "if" };
                self.problem(
                    child(&here, key),
                    format!("`{key}` goes on the entry itself, not inside its `if`"),
                );
                return None;
            }
            g.always = None;
            if g.task.is_none() {
                self.problem(here, "an `if` is a task entry: `{task: PATH, ...tests}`");
                return None;
            }
            let cond = self.expectation_at(here, *g, names, alias_steps, steps);
            match (&mut entry, cond) {
                (
                    Some(
                        Expectation::Deliveries(DeliveriesExpectation { given, .. })
                        | Expectation::DeadLetters { given, .. }
                        | Expectation::LastPush { given, .. },
                    ),
                    Some(Expectation::Task(c)),
                ) => *given = Some(Box::new(c)),
                (Some(Expectation::Task(te)), Some(Expectation::Task(c))) => {
                    te.given = Some(Box::new(c));
                }
                _ => return None,
            }
        }
        entry.map(|e| (e, always))
    }

    fn expectation_at(
        &mut self,
        at: Vec<Seg>,
        mut e: ExpectFile,
        names: &Names,
        alias_steps: &[u32],
        steps: &[Step],
    ) -> Option<Expectation> {
        let kinds = [
            e.task.is_some(),
            e.denied.is_some(),
            e.ranking.is_some(),
            e.matrix.is_some(),
            e.pushes.is_some(),
            e.errors.is_some(),
            e.deliveries.is_some(),
            e.dead_letters.is_some(),
            e.received.is_some(),
        ];
        if kinds.iter().filter(|&&k| k).count() != 1 {
            self.problem(
                at,
                "an expectation has exactly one of `task`, `denied`, `ranking`, `matrix`, `pushes`, `errors`, `deliveries`, `dead_letters`, `received`",
            );
            return None;
        }
        if e.deliveries.is_none() && e.received.is_none() && e.count.is_some() {
            self.problem(
                child(&at, "count"),
                "`count` goes with `deliveries` or `received`",
            );
            return None;
        }
        if e.received.is_none()
            && let Some(key) = [("from", e.from.is_some()), ("nth", e.nth.is_some())]
                .iter()
                .find(|k| k.1)
                .map(|k| k.0)
        {
            self.problem(child(&at, key), format!("`{key}` goes with `received`"));
            return None;
        }
        if let Some(agent) = e.received.take() {
            return self.received(&at, agent, e, names);
        }
        if !matches!(e.pushes, Some(PushesFile::OfTask(_))) && e.last.is_some() {
            self.problem(child(&at, "last"), "`last` goes with `pushes: {task: T}`");
            return None;
        }
        if e.deliveries.is_some() || e.dead_letters.is_some() {
            // Tests of another kind of entry would be silently ignored here: refuse them.
            let stray = [
                ("state", e.state.is_some()),
                ("delegation_chain", e.delegation_chain.is_some()),
                ("history", e.history.is_some()),
                ("text", e.text.is_some()),
                ("data", e.data.is_some()),
                ("attempt", e.attempt.is_some()),
                ("codes", e.codes.is_some()),
                ("agents", e.agents.is_some()),
                ("grid", e.grid.is_some()),
                ("outcome", e.dead_letters.is_some() && e.outcome.is_some()),
            ];
            if let Some((key, _)) = stray.iter().find(|t| t.1) {
                let kind = if e.deliveries.is_some() {
                    "deliveries"
                } else {
                    "dead_letters"
                };
                self.problem(
                    child(&at, key),
                    format!("`{key}` does not go with `{kind}`"),
                );
                return None;
            }
        }
        if let Some(d) = e.deliveries {
            return self.deliveries(&at, d, e.outcome, e.count, names, alias_steps, steps);
        }
        if let Some(n) = e.dead_letters {
            let count = self.count_test(&child(&at, "dead_letters"), "dead_letters", n);
            return Some(Expectation::DeadLetters { count, given: None });
        }
        let task_tests = [
            ("state", e.state.is_some()),
            ("delegation_chain", e.delegation_chain.is_some()),
            ("history", e.history.is_some()),
            ("outcome", e.outcome.is_some()),
            ("text", e.text.is_some()),
            ("data", e.data.is_some()),
            ("attempt", e.attempt.is_some()),
        ];
        if e.task.is_none()
            && let Some((key, _)) = task_tests.iter().find(|t| t.1)
        {
            self.problem(child(&at, key), format!("`{key}` goes with `task`"));
            return None;
        }
        if e.denied.is_none() && e.codes.is_some() {
            self.problem(child(&at, "codes"), "`codes` goes with `denied`");
            return None;
        }
        if e.ranking.is_none() && e.agents.is_some() {
            self.problem(child(&at, "agents"), "`agents` goes with `ranking`");
            return None;
        }
        if let Some(written) = e.task {
            let here = child(&at, "task");
            if !task_tests.iter().any(|t| t.1) {
                self.problem(
                    here,
                    "a `task` expectation needs at least one test: `state`, `delegation_chain`, `history`, `outcome`, `text`, `data` or `attempt`",
                );
                return None;
            }
            let path = self.task_path(here, &written, names, alias_steps, steps);
            let state = e.state.map(|w| self.states(&child(&at, "state"), &w));
            let history = e.history.map(|words| {
                let w = WordsFile { words, list: true };
                self.states(&child(&at, "history"), &w)
            });
            let outcome = e.outcome.map(|w| self.outcomes(&child(&at, "outcome"), &w));
            let data = e
                .data
                .map(|d| self.data_tests(&child(&at, "data"), d))
                .unwrap_or_default();
            let attempt = e.attempt.and_then(|n| {
                let n = self.at_least(child(&at, "attempt"), "`attempt`", n, 1)?;
                u32::try_from(n).ok()
            });
            return Some(Expectation::Task(TaskExpectation {
                path: path?,
                given: None,
                state,
                delegation_chain: e.delegation_chain,
                history,
                outcome,
                text: e.text.map(text_test),
                data,
                attempt,
            }));
        }
        if let Some(step) = e.denied {
            let here = child(&at, "denied");
            let codes = self.denial_codes(&child(&at, "codes"), e.codes.unwrap_or_default());
            let step = match step {
                StepRefFile::Alias(a) if a.contains('/') => {
                    let path = self.task_path(here, &a, names, alias_steps, steps)?;
                    return Some(Expectation::DeniedPath { path, codes });
                }
                StepRefFile::Alias(a) => alias_steps
                    .get(self.alias_ref(here.clone(), &a, names))
                    .map_or(0, |&s| s as usize),
                StepRefFile::Step(n) => usize::try_from(n).unwrap_or(0),
            };
            if !matches!(steps.get(step.wrapping_sub(1)), Some(Step::Send(_))) {
                self.problem(here, format!("`denied` names step {step}, which is not a send or stream step of this file"));
                return None;
            }
            return Some(Expectation::Denied { step, codes });
        }
        if let Some(n) = e.ranking {
            let step = usize::try_from(n).unwrap_or(0);
            if !matches!(steps.get(step.wrapping_sub(1)), Some(Step::Discover { .. })) {
                self.problem(
                    child(&at, "ranking"),
                    format!("`ranking` names step {n}, which is not a discover step of this file (steps are numbered from 1)"),
                );
                return None;
            }
            let Some(list) = e.agents else {
                self.problem(
                    child(&at, "ranking"),
                    "a `ranking` expectation needs `agents: [names]`, the ranked agents in order",
                );
                return None;
            };
            for (j, name) in list.iter().enumerate() {
                let mut here = child(&at, "agents");
                here.push(Seg::Index(j));
                self.agent_ref(here, name, names);
            }
            return Some(Expectation::Ranking { step, agents: list });
        }
        if e.matrix.is_none() && e.grid.is_some() {
            self.problem(child(&at, "grid"), "`grid` goes with `matrix`");
            return None;
        }
        if let Some(n) = e.matrix {
            return self.matrix_expectation(&at, n, e.grid, names, steps);
        }
        if let Some(p) = e.pushes {
            let p = match p {
                PushesFile::All(p) => p,
                PushesFile::OfTask(of) => {
                    let here = child(&at, "pushes");
                    let task =
                        self.task_path(child(&here, "task"), &of.task, names, alias_steps, steps);
                    let Some(last) = e.last else {
                        self.problem(
                            here,
                            "a `pushes: {task: T}` expectation needs `last: {state: S}`, what the task's last push carries",
                        );
                        return None;
                    };
                    let states = self.states(&child(&child(&at, "last"), "state"), &last.state);
                    return Some(Expectation::LastPush {
                        task: task?,
                        states,
                        given: None,
                    });
                }
            };
            let all = TaskState::ALL.map(|t| t.as_str());
            let list = self.count_or_list(child(&at, "pushes"), p, &all, TaskState::from_a2a)?;
            return Some(Expectation::Pushes(list));
        }
        let e = e.errors?;
        let all: Vec<&str> = ErrorCode::every().map(|c| c.as_str()).collect();
        let list = self.count_or_list(child(&at, "errors"), e, &all, |s| {
            ErrorCode::every().find(|c| c.as_str() == s)
        })?;
        Some(Expectation::Errors(list))
    }

    pub(super) fn denial_codes(&mut self, at: &[Seg], written: Vec<String>) -> Vec<DenialCode> {
        let mut codes = Vec::new();
        for (j, c) in written.iter().enumerate() {
            match DenialCode::ALL.into_iter().find(|d| d.as_str() == c) {
                Some(code) => codes.push(code),
                None => {
                    let msg = with_hint(
                        format!("unknown denial code `{c}`"),
                        c,
                        DenialCode::ALL.map(|d| d.as_str()),
                    );
                    let mut here = at.to_vec();
                    here.push(Seg::Index(j));
                    self.problem(here, msg);
                }
            }
        }
        codes
    }

    fn count_or_list<T>(
        &mut self,
        at: Vec<Seg>,
        value: CountOrList,
        all: &[&str],
        parse: impl Fn(&str) -> Option<T>,
    ) -> Option<Expected<T>> {
        match value {
            CountOrList::Count(n) if n >= 0 => {
                Some(Expected::Count(usize::try_from(n).unwrap_or(usize::MAX)))
            }
            CountOrList::Count(n) => {
                self.problem(at, format!("a count must be 0 or more, not {n}"));
                None
            }
            CountOrList::List(items) => {
                let mut out = Vec::new();
                for (j, item) in items.iter().enumerate() {
                    match parse(item) {
                        Some(v) => out.push(v),
                        None => {
                            let msg = with_hint(
                                format!("unknown value `{item}`"),
                                item,
                                all.iter().copied(),
                            );
                            self.problem([at.clone(), vec![Seg::Index(j)]].concat(), msg);
                        }
                    }
                }
                Some(Expected::List(out))
            }
        }
    }
}
