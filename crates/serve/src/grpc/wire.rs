//! A message of `a2a.proto` from its JSON and back, for clients of the gRPC port that have no
//! generated code (the serve tests): the mapping the server itself reads requests with.

use serde_json::Value;

use super::convert::descriptor;

/// The protobuf encoding of `json` as the message `name` (a full name: `lf.a2a.v1.GetTaskRequest`).
pub fn encode(name: &str, json: &Value) -> Result<Vec<u8>, String> {
    let d = descriptor(name).map_err(|s| s.message().to_string())?;
    let m =
        prost_reflect::DynamicMessage::deserialize(d, json.clone()).map_err(|e| e.to_string())?;
    Ok(prost::Message::encode_to_vec(&m))
}

/// The message `name` in `bytes`, as JSON.
pub fn decode(name: &str, bytes: &[u8]) -> Result<Value, String> {
    let d = descriptor(name).map_err(|s| s.message().to_string())?;
    let m = prost_reflect::DynamicMessage::decode(d, bytes).map_err(|e| e.to_string())?;
    serde_json::to_value(&m).map_err(|e| e.to_string())
}
