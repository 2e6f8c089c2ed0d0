//! `{deliveries: {task?, url?}, outcome?, count?}`: the webhook delivery attempts one `expect`
//! entry counts (dead letters and a task's last push are read beside the other entries).

use crate::file::*;
use crate::yaml::Seg;
use engine::record::DeliveryOutcome;
use engine::scenario::*;

use super::{Loader, Names, child};

impl Loader<'_> {
    /// `{deliveries: {task?, url?}, outcome?, count?}`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn deliveries(
        &mut self,
        at: &[Seg],
        d: DeliveriesFile,
        outcome: Option<WordsFile>,
        count: Option<serde_json::Value>,
        names: &Names,
        alias_steps: &[u32],
        steps: &[Step],
    ) -> Option<Expectation> {
        let here = child(at, "deliveries");
        let task = match &d.task {
            Some(t) => Some(self.task_path(child(&here, "task"), t, names, alias_steps, steps)?),
            None => None,
        };
        let outcomes = match outcome {
            Some(w) => {
                let all = DeliveryOutcome::ALL.map(|o| o.as_str());
                self.delivery_outcomes(&child(at, "outcome"), &w, &all)
            }
            None => Vec::new(),
        };
        // No count: at least one attempt matches.
        let count = match count {
            Some(c) => self.count_test(&child(at, "count"), "count", c),
            None => ValueTest::Gte(1.0),
        };
        Some(Expectation::Deliveries(DeliveriesExpectation {
            task,
            url: d.url,
            outcomes,
            count,
            given: None,
        }))
    }
}
