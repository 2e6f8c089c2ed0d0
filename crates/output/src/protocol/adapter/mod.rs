//! The adapter layer: A2A ⇄ internal ⇄ ACP (semantics.md §7).
//!
//! The internal record is protocol-neutral: `internal` holds it, `states` the four state tables,
//! `a2a` and `acp` the conversions to and from each protocol, `fields` what both read fields with.
//! Text and data parts are emitted only when non-empty, so the empty task converts back to itself.

mod a2a;
mod acp;
mod fields;
mod internal;
mod states;

pub use fields::ConvertError;

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
