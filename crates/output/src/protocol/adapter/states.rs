//! The four state tables, A2A ⇄ internal ⇄ ACP: data, here in one place. The two lossy rows of
//! internal → ACP (and the one of ACP → internal) are declared, not accidents.

use engine::record::TaskState;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InternalState {
    Submitted,
    Working,
    Awaiting,
    AwaitingAuth,
    Completed,
    Canceled,
    Failed,
    Rejected,
}

impl InternalState {
    pub fn as_str(self) -> &'static str {
        match self {
            InternalState::Submitted => "submitted",
            InternalState::Working => "working",
            InternalState::Awaiting => "awaiting",
            InternalState::AwaitingAuth => "awaiting_auth",
            InternalState::Completed => "completed",
            InternalState::Canceled => "canceled",
            InternalState::Failed => "failed",
            InternalState::Rejected => "rejected",
        }
    }

    pub fn parse(s: &str) -> Option<InternalState> {
        A2A_TO_INTERNAL
            .iter()
            .map(|&(_, i)| i)
            .find(|i| i.as_str() == s)
    }

    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            InternalState::Completed
                | InternalState::Canceled
                | InternalState::Failed
                | InternalState::Rejected
        )
    }
}

/// ACP's run statuses (note `cancelled`, with two l's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcpStatus {
    Created,
    InProgress,
    Awaiting,
    Cancelling,
    Cancelled,
    Completed,
    Failed,
}

impl AcpStatus {
    pub const ALL: [AcpStatus; 7] = [
        AcpStatus::Created,
        AcpStatus::InProgress,
        AcpStatus::Awaiting,
        AcpStatus::Cancelling,
        AcpStatus::Cancelled,
        AcpStatus::Completed,
        AcpStatus::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AcpStatus::Created => "created",
            AcpStatus::InProgress => "in-progress",
            AcpStatus::Awaiting => "awaiting",
            AcpStatus::Cancelling => "cancelling",
            AcpStatus::Cancelled => "cancelled",
            AcpStatus::Completed => "completed",
            AcpStatus::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<AcpStatus> {
        AcpStatus::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

/// A2A → internal: a bijection.
pub const A2A_TO_INTERNAL: [(TaskState, InternalState); 8] = [
    (TaskState::Submitted, InternalState::Submitted),
    (TaskState::Working, InternalState::Working),
    (TaskState::InputRequired, InternalState::Awaiting),
    (TaskState::AuthRequired, InternalState::AwaitingAuth),
    (TaskState::Completed, InternalState::Completed),
    (TaskState::Canceled, InternalState::Canceled),
    (TaskState::Failed, InternalState::Failed),
    (TaskState::Rejected, InternalState::Rejected),
];

/// internal → A2A: the inverse of [`A2A_TO_INTERNAL`].
pub const INTERNAL_TO_A2A: [(InternalState, TaskState); 8] = [
    (InternalState::Submitted, TaskState::Submitted),
    (InternalState::Working, TaskState::Working),
    (InternalState::Awaiting, TaskState::InputRequired),
    (InternalState::AwaitingAuth, TaskState::AuthRequired),
    (InternalState::Completed, TaskState::Completed),
    (InternalState::Canceled, TaskState::Canceled),
    (InternalState::Failed, TaskState::Failed),
    (InternalState::Rejected, TaskState::Rejected),
];

/// internal → ACP, with `lossy` marking the rows ACP cannot tell apart from another.
pub const INTERNAL_TO_ACP: [(InternalState, AcpStatus, Lossy); 8] = [
    (InternalState::Submitted, AcpStatus::Created, Lossy::No),
    (InternalState::Working, AcpStatus::InProgress, Lossy::No),
    (InternalState::Awaiting, AcpStatus::Awaiting, Lossy::No),
    // ACP has one "awaiting": a credential request looks like any other question.
    (InternalState::AwaitingAuth, AcpStatus::Awaiting, Lossy::Yes),
    (InternalState::Completed, AcpStatus::Completed, Lossy::No),
    (InternalState::Canceled, AcpStatus::Cancelled, Lossy::No),
    (InternalState::Failed, AcpStatus::Failed, Lossy::No),
    // ACP has no rejection: a refused task reads as a failed one.
    (InternalState::Rejected, AcpStatus::Failed, Lossy::Yes),
];

/// ACP → internal.
pub const ACP_TO_INTERNAL: [(AcpStatus, InternalState, Lossy); 7] = [
    (AcpStatus::Created, InternalState::Submitted, Lossy::No),
    (AcpStatus::InProgress, InternalState::Working, Lossy::No),
    (AcpStatus::Awaiting, InternalState::Awaiting, Lossy::No),
    // A cancel in flight is still running.
    (AcpStatus::Cancelling, InternalState::Working, Lossy::Yes),
    (AcpStatus::Cancelled, InternalState::Canceled, Lossy::No),
    (AcpStatus::Completed, InternalState::Completed, Lossy::No),
    (AcpStatus::Failed, InternalState::Failed, Lossy::No),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lossy {
    No,
    Yes,
}

pub fn a2a_to_internal_state(s: TaskState) -> InternalState {
    A2A_TO_INTERNAL
        .iter()
        .find(|r| r.0 == s)
        .map_or(InternalState::Failed, |r| r.1)
}

pub fn internal_to_a2a_state(s: InternalState) -> TaskState {
    INTERNAL_TO_A2A
        .iter()
        .find(|r| r.0 == s)
        .map_or(TaskState::Failed, |r| r.1)
}

pub fn internal_to_acp_status(s: InternalState) -> AcpStatus {
    INTERNAL_TO_ACP
        .iter()
        .find(|r| r.0 == s)
        .map_or(AcpStatus::Failed, |r| r.1)
}

pub fn acp_to_internal_state(s: AcpStatus) -> InternalState {
    ACP_TO_INTERNAL
        .iter()
        .find(|r| r.0 == s)
        .map_or(InternalState::Failed, |r| r.1)
}
