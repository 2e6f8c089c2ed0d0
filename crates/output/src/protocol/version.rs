//! Spellings that differ between A2A versions.

use engine::record::TaskState;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum A2aVersion {
    /// ProtoJSON of the 1.0 proto: camelCase, SCREAMING_SNAKE enums, no `kind`.
    V1_0,
    /// The 0.3 JSON-RPC shapes, with `kind` discriminators.
    V0_3,
}

impl A2aVersion {
    pub fn parse(s: &str) -> Option<A2aVersion> {
        match s {
            "1.0" | "1" | "1.0.0" => Some(A2aVersion::V1_0),
            "0.3" | "0.3.0" => Some(A2aVersion::V0_3),
            _ => None,
        }
    }

    /// The version as `A2A-Version` and the cards name it.
    pub fn name(self) -> &'static str {
        match self {
            A2aVersion::V1_0 => "1.0",
            A2aVersion::V0_3 => "0.3",
        }
    }

    pub fn state(self, state: TaskState) -> &'static str {
        match self {
            A2aVersion::V0_3 => state.as_str(),
            A2aVersion::V1_0 => match state {
                TaskState::Submitted => "TASK_STATE_SUBMITTED",
                TaskState::Working => "TASK_STATE_WORKING",
                TaskState::InputRequired => "TASK_STATE_INPUT_REQUIRED",
                TaskState::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
                TaskState::Completed => "TASK_STATE_COMPLETED",
                TaskState::Canceled => "TASK_STATE_CANCELED",
                TaskState::Failed => "TASK_STATE_FAILED",
                TaskState::Rejected => "TASK_STATE_REJECTED",
            },
        }
    }

    /// Reads a state in either spelling.
    pub fn parse_state(s: &str) -> Option<TaskState> {
        TaskState::ALL
            .into_iter()
            .find(|&t| A2aVersion::V0_3.state(t) == s || A2aVersion::V1_0.state(t) == s)
    }

    pub fn role(self, user: bool) -> &'static str {
        match (self, user) {
            (A2aVersion::V1_0, true) => "ROLE_USER",
            (A2aVersion::V1_0, false) => "ROLE_AGENT",
            (A2aVersion::V0_3, true) => "user",
            (A2aVersion::V0_3, false) => "agent",
        }
    }
}
