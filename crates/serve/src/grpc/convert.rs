//! Protobuf messages to and from the JSON the other bindings carry (proto3's JSON mapping, which
//! is A2A 1.0's JSON): a request's message becomes JSON-RPC-shaped params, an answer's JSON the
//! RPC's response message. Through prost-reflect's dynamic messages, read from the descriptor
//! set build.rs wrote.

use std::sync::OnceLock;

use prost::Message;
use prost_reflect::{DescriptorPool, DeserializeOptions, DynamicMessage, MessageDescriptor};
use serde_json::Value;
use tonic::Status;

use super::pb::DESCRIPTOR;

pub(super) fn descriptor(name: &str) -> Result<MessageDescriptor, Status> {
    static POOL: OnceLock<Option<DescriptorPool>> = OnceLock::new();
    POOL.get_or_init(|| DescriptorPool::decode(DESCRIPTOR).ok())
        .as_ref()
        .and_then(|pool| pool.get_message_by_name(name))
        .ok_or_else(|| Status::internal(format!("no descriptor for `{name}`")))
}

/// A message (of the proto type `name`, e.g. `lf.a2a.v1.SendMessageRequest`) as JSON: fields
/// in camelCase, enums by name, fields at their default left out.
pub(super) fn to_json<M: Message>(name: &str, message: &M) -> Result<Value, Status> {
    let dynamic = DynamicMessage::decode(descriptor(name)?, message.encode_to_vec().as_slice())
        .map_err(|e| Status::invalid_argument(format!("`{name}`: {e}")))?;
    serde_json::to_value(&dynamic).map_err(|e| Status::invalid_argument(format!("`{name}`: {e}")))
}

/// JSON (an answer of the desk's) as the message `name`; members the proto does not have are
/// left out.
pub(super) fn from_json<M: Message + Default>(name: &str, value: Value) -> Result<M, Status> {
    let options = DeserializeOptions::new().deny_unknown_fields(false);
    let dynamic = DynamicMessage::deserialize_with_options(descriptor(name)?, value, &options)
        .map_err(|e| Status::internal(format!("the answer is no `{name}`: {e}")))?;
    M::decode(dynamic.encode_to_vec().as_slice())
        .map_err(|e| Status::internal(format!("the answer is no `{name}`: {e}")))
}
