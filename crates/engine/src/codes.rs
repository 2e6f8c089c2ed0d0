//! The codes a run reports in one word: why admission refused (`DenialCode`), what an error was
//! (`ErrorCode`), how a delegation ended (`Outcome`). The scenario's expectations name them as the
//! engine records them, so they sit below both and import only the lifecycle.

use crate::lifecycle::TaskState;

/// The five checks, in report order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DenialCode {
    Cycle,
    Depth,
    Tenant,
    Classification,
    Scope,
}

impl DenialCode {
    pub const ALL: [DenialCode; 5] = [
        DenialCode::Cycle,
        DenialCode::Depth,
        DenialCode::Tenant,
        DenialCode::Classification,
        DenialCode::Scope,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DenialCode::Cycle => "cycle",
            DenialCode::Depth => "depth",
            DenialCode::Tenant => "tenant",
            DenialCode::Classification => "classification",
            DenialCode::Scope => "scope",
        }
    }
}

/// Refused operations and handler bugs (`errors[].code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    TaskNotFound,
    TaskTerminal,
    TaskNotCancelable,
    NoCandidate,
    PushNotSupported,
    HostNotAllowed,
    MissingToken,
    IllegalTransition,
    HandlerIncomplete,
    /// A reply to a task that is neither paused nor terminal.
    TaskNotAwaiting,
    /// A request to an agent inside a fault's window: refused before the server saw it.
    AgentUnavailable,
    /// A token that failed verification, or none where one is required: refused before admission.
    Unauthenticated,
    /// A `stream` step to an agent whose card says `streaming: false` (A2A's
    /// `UnsupportedOperation`).
    StreamingNotSupported,
    /// A reference in a handler's data template (`templates: true`) has no value.
    TemplateMissing,
    /// A real agent's process ended while a2a-sim was waiting on it.
    AgentExited,
    /// A real agent did not answer within `--agent-timeout`.
    AgentTimeout,
    /// A real agent answered something that is not the protocol (what was wrong in the detail).
    ProtocolError,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 13] = [
        ErrorCode::TaskNotFound,
        ErrorCode::TaskTerminal,
        ErrorCode::TaskNotCancelable,
        ErrorCode::NoCandidate,
        ErrorCode::PushNotSupported,
        ErrorCode::HostNotAllowed,
        ErrorCode::MissingToken,
        ErrorCode::IllegalTransition,
        ErrorCode::HandlerIncomplete,
        ErrorCode::TaskNotAwaiting,
        ErrorCode::AgentUnavailable,
        ErrorCode::Unauthenticated,
        ErrorCode::StreamingNotSupported,
    ];

    /// The codes only a real agent in the loop gives (`external:` agents); apart from
    /// [`ErrorCode::ALL`], which `coverage` counts for scripted scenarios.
    pub const REAL_AGENT: [ErrorCode; 3] = [
        ErrorCode::AgentExited,
        ErrorCode::AgentTimeout,
        ErrorCode::ProtocolError,
    ];

    /// The codes of data templates, apart from [`ErrorCode::ALL`] so that `coverage`'s counts
    /// of scenarios written before them stay as they were.
    pub const TEMPLATES: [ErrorCode; 1] = [ErrorCode::TemplateMissing];

    /// Every code, scripted and real-agent ones.
    pub fn every() -> impl Iterator<Item = ErrorCode> {
        ErrorCode::ALL
            .into_iter()
            .chain(ErrorCode::TEMPLATES)
            .chain(ErrorCode::REAL_AGENT)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::TemplateMissing => "template_missing",
            ErrorCode::AgentExited => "agent_exited",
            ErrorCode::AgentTimeout => "agent_timeout",
            ErrorCode::ProtocolError => "protocol_error",
            ErrorCode::TaskNotFound => "task_not_found",
            ErrorCode::TaskTerminal => "task_terminal",
            ErrorCode::TaskNotCancelable => "task_not_cancelable",
            ErrorCode::NoCandidate => "no_candidate",
            ErrorCode::PushNotSupported => "push_not_supported",
            ErrorCode::HostNotAllowed => "host_not_allowed",
            ErrorCode::MissingToken => "missing_token",
            ErrorCode::IllegalTransition => "illegal_transition",
            ErrorCode::HandlerIncomplete => "handler_incomplete",
            ErrorCode::TaskNotAwaiting => "task_not_awaiting",
            ErrorCode::AgentUnavailable => "agent_unavailable",
            ErrorCode::Unauthenticated => "unauthenticated",
            ErrorCode::StreamingNotSupported => "streaming_not_supported",
        }
    }
}

/// How a delegation ended, in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    Completed,
    Failed,
    Canceled,
    Rejected,
    InputRequired,
    AuthRequired,
    Denied,
    NoCandidate,
    Timeout,
    /// The callee refused the request before seeing it (a fault).
    Unavailable,
}

impl Outcome {
    pub const ALL: [Outcome; 10] = [
        Outcome::Completed,
        Outcome::Failed,
        Outcome::Canceled,
        Outcome::Rejected,
        Outcome::InputRequired,
        Outcome::AuthRequired,
        Outcome::Denied,
        Outcome::NoCandidate,
        Outcome::Timeout,
        Outcome::Unavailable,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Failed => "failed",
            Outcome::Canceled => "canceled",
            Outcome::Rejected => "rejected",
            Outcome::InputRequired => "input-required",
            Outcome::AuthRequired => "auth-required",
            Outcome::Denied => "denied",
            Outcome::NoCandidate => "no_candidate",
            Outcome::Timeout => "timeout",
            Outcome::Unavailable => "unavailable",
        }
    }

    /// Reads an outcome word; the pause states in either spelling (`input_required` too).
    pub fn parse(s: &str) -> Option<Outcome> {
        let s = match s {
            "input_required" => "input-required",
            "auth_required" => "auth-required",
            other => other,
        };
        Outcome::ALL.into_iter().find(|o| o.as_str() == s)
    }

    /// The outcome a child task's state gives.
    pub fn of_state(state: TaskState) -> Outcome {
        match state {
            TaskState::Completed => Outcome::Completed,
            TaskState::Canceled => Outcome::Canceled,
            TaskState::Rejected => Outcome::Rejected,
            TaskState::InputRequired => Outcome::InputRequired,
            TaskState::AuthRequired => Outcome::AuthRequired,
            TaskState::Failed | TaskState::Submitted | TaskState::Working => Outcome::Failed,
        }
    }

    /// Outcomes a `retry` tries again.
    pub fn is_retried(self) -> bool {
        matches!(
            self,
            Outcome::Failed | Outcome::Timeout | Outcome::Unavailable
        )
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
