//! The `data` of messages and artifacts, as the scenario file writes it.

/// A `data` mapping: JSON keys in the scenario file's order.
pub type DataMap = serde_json::Map<String, serde_json::Value>;
