//! Reading YAML text into a type: the three readers in order (the byte scanner, the
//! `saphyr-parser` reader, serde_norway), and value trees for overrides.

use serde::de::DeserializeOwned;

use super::errors::{convert_error, plain_message};
use super::position::YamlError;
use super::{fast, scan};

/// Parses `text` into `T`, reporting the first problem with its position.
///
/// A byte scanner of the subset of YAML scenario files use (`scan`) reads the common file; a
/// streaming reader over `saphyr-parser` (`fast`) reads most of the rest; whatever neither reads
/// exactly as serde_norway would (every error among it) is read again by serde_norway, whose
/// messages and positions are the ones reported.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    if let Some(value) = scan::parse(text) {
        return Ok(value);
    }
    if let Some(value) = fast::parse(text) {
        return Ok(value);
    }
    slow_parse(text)
}

/// [`parse`] without the streaming reader: serde_norway alone (what the fast path must agree with).
pub fn slow_parse<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    serde_norway::from_str(text).map_err(|e| convert_error(text, &e))
}

/// Whether one of the fast paths reads `text` as `T` by itself (for tests).
pub fn reads_fast<T: DeserializeOwned>(text: &str) -> bool {
    scan::parse::<T>(text).is_some() || fast::parse::<T>(text).is_some()
}

/// What the byte scanner alone reads `text` as, `None` when it gives up (for tests: it must
/// agree with [`slow_parse`] whenever it does not give up).
pub fn scanned<T: DeserializeOwned>(text: &str) -> Option<T> {
    scan::parse(text)
}

/// What the `saphyr-parser` path alone reads `text` as, `None` when it gives up (for tests).
pub fn streamed<T: DeserializeOwned>(text: &str) -> Option<T> {
    fast::parse(text)
}

/// Parses a YAML fragment that is not a scenario (for tests and tools).
pub fn parse_value(text: &str) -> Result<serde_json::Value, YamlError> {
    parse(text)
}

/// A YAML document as a value tree: for `--set` overrides and telling a library from a scenario.
pub use serde_norway::Value;

/// The document of `text` as a value tree, or `None` when it does not parse.
pub fn parse_tree(text: &str) -> Option<Value> {
    serde_norway::from_str(text).ok()
}

/// A lone value (an override's), or the parser's message when it is no YAML.
pub fn parse_scalar(text: &str) -> Result<Value, String> {
    serde_norway::from_str(text).map_err(|e| e.to_string())
}

/// A value tree read as `T`, or the problem in the scenario's words (without a position: the
/// tree has none).
pub fn from_tree<T: DeserializeOwned>(value: Value) -> Result<T, String> {
    serde_norway::from_value(value).map_err(|e| plain_message(&e.to_string()))
}
