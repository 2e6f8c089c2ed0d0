//! Where a YAML problem is: the path to a value, the located error, and whether a text holds
//! anything at all.

use std::borrow::Cow;

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

/// Whether the text holds anything but blank lines and comments.
pub fn has_content(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        !l.is_empty() && !l.starts_with('#') && l != "---" && l != "..."
    })
}
