//! The one module that touches YAML.
//!
//! Scenario files are parsed with `serde_norway` (the maintained fork of the archived `serde_yaml`,
//! on the same libyaml port, with the same messages and positions) straight into the typed file
//! model, so type errors, unknown keys and YAML syntax errors come back located by the parser
//! itself. Two faster readers come first (`scan`, a byte scanner of the YAML scenario files are
//! written in, then `fast`, `saphyr-parser`'s events); each reads a file exactly as serde_norway
//! would or gives up, and every error comes from serde_norway. Problems found later
//! (a dangling reference, a duplicate name) are located with [`locate`], which walks the document
//! again to the offending value.

use std::borrow::Cow;

use serde::de::DeserializeOwned;

mod bytes;
mod de;
mod errors;
mod fast;
mod locate;
mod scan;
mod split;

pub use bytes::find;
use errors::convert_error;
pub use errors::plain_message;
pub use locate::{Index, locate, probed_bytes};
pub use split::{SPLIT_FROM, parse_split};

/// A step of a path into a YAML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    /// A key; a name the loader knows (`steps`, `send`) is borrowed, not copied.
    Key(Cow<'static, str>),
    /// The second occurrence of a key in the same mapping (a duplicate).
    Duplicate(String),
    /// The value of the n-th entry (0-based) of a mapping, whatever its key.
    Entry(usize),
    Index(usize),
    /// The key itself (not its value): last in a path, for errors about a key that does not
    /// belong where it stands.
    KeyName(String),
}

impl From<&str> for Seg {
    fn from(key: &str) -> Self {
        Seg::Key(Cow::Owned(key.to_string()))
    }
}

impl Seg {
    /// A key that is a constant: no copy (a large file's loader builds a path for every step).
    pub fn name(key: &'static str) -> Self {
        Seg::Key(Cow::Borrowed(key))
    }
}

impl From<usize> for Seg {
    fn from(index: usize) -> Self {
        Seg::Index(index)
    }
}

/// A YAML problem with its 1-based position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// The value serde was reading, when its message names one (`steps[3].send.push: …`): what
    /// the message may quote is that value's.
    pub path: Option<Vec<Seg>>,
}

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

/// Whether the text holds anything but blank lines and comments.
pub fn has_content(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        !l.is_empty() && !l.starts_with('#') && l != "---" && l != "..."
    })
}

#[cfg(test)]
mod tests;
