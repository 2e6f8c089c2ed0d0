//! YAML written by hand: every string a JSON string literal, valid YAML whatever it contains.

use std::fmt::{self, Write as _};

/// A string written as a JSON string literal, which is also a valid YAML double-quoted scalar.
pub struct Q<'a>(pub &'a str);

impl fmt::Display for Q<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_char('"')?;
        for c in self.0.chars() {
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                '\t' => f.write_str("\\t")?,
                '\u{08}' => f.write_str("\\b")?,
                '\u{0C}' => f.write_str("\\f")?,
                c if u32::from(c) < 0x20 => write!(f, "\\u{:04x}", u32::from(c))?,
                c => f.write_char(c)?,
            }
        }
        f.write_char('"')
    }
}

/// A flow sequence of strings: `["a", "b"]`.
pub struct QList<'a, S>(pub &'a [S]);

impl<S: AsRef<str>> fmt::Display for QList<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_char('[')?;
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", Q(s.as_ref()))?;
        }
        f.write_char(']')
    }
}

/// A value of a `data` mapping.
pub enum DataValue {
    Int(u64),
    Str(String),
    Bool(bool),
}

/// A flow mapping of data, keys in the order given (the report keeps the file's key order).
pub struct DataMap(pub Vec<(&'static str, DataValue)>);

impl fmt::Display for DataMap {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_char('{')?;
        for (i, (key, value)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}: ", Q(key))?;
            match value {
                DataValue::Int(n) => write!(f, "{n}")?,
                DataValue::Str(s) => write!(f, "{}", Q(s))?,
                DataValue::Bool(b) => write!(f, "{b}")?,
            }
        }
        f.write_char('}')
    }
}
