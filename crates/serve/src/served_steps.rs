//! The requests a session ran as steps, kept as long as the world (which borrows them: a task's
//! messages are its send's text). A GetTask or CancelTask of an existing task by the same caller
//! is the same step every time, kept once: a client polling a task does not grow the session.

use std::collections::BTreeMap;

use engine::record::parse_task_id;
use engine::scenario::{CallerIx, Step, TaskRef};

#[derive(Default)]
pub struct ServedSteps {
    /// (a cancel, not a get; the caller; the task id) → the step kept for it.
    repeats: BTreeMap<(bool, CallerIx, Box<str>), &'static Step>,
}

impl ServedSteps {
    /// The step to run for `step`, kept for good; `tasks`: how many tasks the world holds (an
    /// id of none of them is not kept once, so made-up ids cannot fill the table).
    pub fn keep(&mut self, step: Box<Step>, tasks: usize) -> &'static Step {
        let key = match &*step {
            Step::Get {
                caller,
                task: TaskRef::Id(id),
            } => (false, *caller, id),
            Step::Cancel {
                caller,
                task: TaskRef::Id(id),
            } => (true, *caller, id),
            _ => return Box::leak(step),
        };
        if parse_task_id(key.2).is_none_or(|ix| ix >= tasks) {
            return Box::leak(step);
        }
        let key = (key.0, key.1, key.2.clone());
        self.repeats.entry(key).or_insert_with(|| Box::leak(step))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(caller: CallerIx, id: &str) -> Box<Step> {
        Box::new(Step::Get {
            caller,
            task: TaskRef::Id(id.into()),
        })
    }

    #[test]
    fn a_poll_of_the_same_task_is_kept_once() {
        let mut kept = ServedSteps::default();
        let first = kept.keep(get(0, "task-1"), 1);
        assert!(std::ptr::eq(first, kept.keep(get(0, "task-1"), 1)));
        // Another caller's, a cancel's, another task's: steps of their own.
        assert!(!std::ptr::eq(first, kept.keep(get(1, "task-1"), 1)));
        let cancel = Box::new(Step::Cancel {
            caller: 0,
            task: TaskRef::Id("task-1".into()),
        });
        assert!(!std::ptr::eq(first, kept.keep(cancel, 1)));
        // An id of no task is never kept in the table.
        kept.keep(get(0, "task-2"), 1);
        kept.keep(get(0, "nope"), 1);
        assert_eq!(kept.repeats.len(), 3);
    }
}
