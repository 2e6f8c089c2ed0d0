//! Task states and the lifecycle table.

use std::fmt;

/// A task's state, named as in A2A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TaskState {
    Submitted,
    Working,
    InputRequired,
    AuthRequired,
    Completed,
    Canceled,
    Failed,
    Rejected,
}

use TaskState::*;

impl TaskState {
    pub const ALL: [TaskState; 8] = [
        Submitted,
        Working,
        InputRequired,
        AuthRequired,
        Completed,
        Canceled,
        Failed,
        Rejected,
    ];

    /// The A2A (v0.3) spelling, which is also the report's.
    pub fn as_str(self) -> &'static str {
        match self {
            Submitted => "submitted",
            Working => "working",
            InputRequired => "input-required",
            AuthRequired => "auth-required",
            Completed => "completed",
            Canceled => "canceled",
            Failed => "failed",
            Rejected => "rejected",
        }
    }

    pub fn from_a2a(s: &str) -> Option<TaskState> {
        TaskState::ALL.into_iter().find(|t| t.as_str() == s)
    }

    pub fn is_terminal(self) -> bool {
        matches!(self, Completed | Canceled | Failed | Rejected)
    }

    /// A state in which the handler waits for the caller (`reply` resumes it).
    pub fn is_pause(self) -> bool {
        matches!(self, InputRequired | AuthRequired)
    }

    /// The states this one may move to, from [`TRANSITIONS`].
    pub fn successors(self) -> &'static [TaskState] {
        TRANSITIONS
            .iter()
            .find(|(from, _)| *from == self)
            .map_or(&[], |(_, to)| to)
    }

    pub fn can_move_to(self, to: TaskState) -> bool {
        self.successors().contains(&to)
    }
}

impl fmt::Display for TaskState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why `set_status` refused a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IllegalTransition {
    pub from: TaskState,
    pub to: TaskState,
}

/// The lifecycle, as data. Terminal states have no row: they accept nothing.
///
/// Two edges are absent on purpose: submitted → completed (a completion with no working state is
/// a completion with no evidence of work) and input-required → rejected (a callee that has asked a
/// question has admitted the task; abandoning it now is a failure, not a rejection).
/// auth-required → rejected stays: "the credential showed I may not do this" is an admission outcome.
pub const TRANSITIONS: &[(TaskState, &[TaskState])] = &[
    (
        Submitted,
        &[Working, Rejected, Canceled, Failed, AuthRequired],
    ),
    (
        Working,
        &[InputRequired, AuthRequired, Completed, Canceled, Failed],
    ),
    (InputRequired, &[Working, Canceled, Failed]),
    (AuthRequired, &[Working, Canceled, Failed, Rejected]),
];
