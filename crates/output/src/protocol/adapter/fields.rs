//! Reading a document's fields, and the error that names the field or rule a document breaks.

use serde_json::{Map, Value};

/// A document that cannot be converted; the message names the field or rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError(pub String);

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConvertError {}

pub(super) fn err<T>(msg: impl Into<String>) -> Result<T, ConvertError> {
    Err(ConvertError(msg.into()))
}

pub(super) fn req_str(
    obj: &Map<String, Value>,
    key: &str,
    prefix: &str,
) -> Result<String, ConvertError> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => err(format!("field `{prefix}{key}` must be a string")),
        None => err(format!("required field `{prefix}{key}` is missing")),
    }
}
