//! The adapter layer: A2A ⇄ internal ⇄ ACP (semantics.md §7).
//!
//! The internal record is protocol-neutral: `internal` holds it, `states` the four state tables,
//! `a2a` and `acp` the conversions to and from each protocol.
//! Text and data parts are emitted only when non-empty, so the empty task converts back to itself.

mod a2a;
mod acp;
mod internal;
mod states;

use serde_json::{Map, Value};

pub use a2a::{METADATA_KEY, a2a_to_internal, internal_to_a2a, metadata, parts};
pub use acp::{
    ACP_NAMESPACE, IDENTITY_PART, RunTimes, acp_agent_name, acp_to_internal, internal_to_acp,
    is_acp_agent_name, source_times, uuid_for,
};
pub use internal::{InternalTask, Outputs, internal_to_json, keeps_status_message};
pub use states::{
    A2A_TO_INTERNAL, ACP_TO_INTERNAL, AcpStatus, INTERNAL_TO_A2A, INTERNAL_TO_ACP, InternalState,
    Lossy, a2a_to_internal_state, acp_to_internal_state, internal_to_a2a_state,
    internal_to_acp_status,
};

/// A document that cannot be converted; the message names the field or rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError(pub String);

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConvertError {}

fn err<T>(msg: impl Into<String>) -> Result<T, ConvertError> {
    Err(ConvertError(msg.into()))
}

fn req_str(obj: &Map<String, Value>, key: &str, prefix: &str) -> Result<String, ConvertError> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => err(format!("field `{prefix}{key}` must be a string")),
        None => err(format!("required field `{prefix}{key}` is missing")),
    }
}
