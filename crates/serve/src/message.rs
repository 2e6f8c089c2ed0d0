//! A request's message read as the proto types it: its fields of the right types, each part one
//! of text, data, raw or url (0.3: text, data or file), and the text and data the scripted agents
//! take from it.

use serde_json::Value;

use super::failure::{Failure, FailureKind};
use engine::scenario::MessageSpec;

pub(super) fn invalid(msg: impl Into<String>) -> Failure {
    Failure::new(FailureKind::InvalidParams, msg)
}

pub(super) fn str_field<'a>(o: &'a Value, key: &str) -> Result<Option<&'a str>, Failure> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(invalid(format!("`{key}` must be a string"))),
    }
}

pub(super) fn bool_field(o: &Value, key: &str) -> Result<Option<bool>, Failure> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(invalid(format!("`{key}` must be a boolean"))),
    }
}

/// The JSON type a member must have, as the proto declares it.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    /// A string.
    Text,
    /// An object (a `google.protobuf.Struct`).
    Object,
    /// A list of strings (a `repeated string`).
    Strings,
}

/// Each of `fields` present in `o` (named `{owner}{key}` in a refusal) has its type; `null` is
/// an absent member, as ProtoJSON reads it.
pub(super) fn typed(o: &Value, owner: &str, fields: &[(&str, Kind)]) -> Result<(), Failure> {
    for &(key, kind) in fields {
        let ok = match (o.get(key), kind) {
            (None | Some(Value::Null), _) => true,
            (Some(v), Kind::Text) => v.is_string(),
            (Some(v), Kind::Object) => v.is_object(),
            (Some(Value::Array(items)), Kind::Strings) => items.iter().all(Value::is_string),
            (Some(_), Kind::Strings) => false,
        };
        if !ok {
            let what = match kind {
                Kind::Text => "a string",
                Kind::Object => "an object",
                Kind::Strings => "a list of strings",
            };
            return Err(invalid(format!("`{owner}{key}` must be {what}")));
        }
    }
    Ok(())
}

/// What a message may carry besides its id, role and parts.
const MESSAGE_FIELDS: [(&str, Kind); 6] = [
    ("contextId", Kind::Text),
    ("taskId", Kind::Text),
    ("metadata", Kind::Object),
    ("extensions", Kind::Strings),
    ("referenceTaskIds", Kind::Strings),
    ("kind", Kind::Text),
];

/// What a part may carry besides its content.
const PART_FIELDS: [(&str, Kind); 4] = [
    ("metadata", Kind::Object),
    ("filename", Kind::Text),
    ("mediaType", Kind::Text),
    ("kind", Kind::Text),
];

/// A part's content: exactly one of these (1.0's `oneof content`; 0.3's `file` in place of
/// `raw` and `url`).
const CONTENT: [&str; 5] = ["text", "data", "raw", "url", "file"];

/// The text and data a message's parts carry (text parts joined by newlines, data parts merged).
pub(super) fn message_spec(message: &Value) -> Result<MessageSpec, Failure> {
    if !message.is_object() {
        return Err(invalid("`message` must be an object"));
    }
    match str_field(message, "messageId")? {
        None => return Err(invalid("`message.messageId` is required")),
        Some("") => return Err(invalid("`message.messageId` must not be empty")),
        Some(_) => {}
    }
    match message.get("role").and_then(Value::as_str) {
        Some("ROLE_USER" | "user") => {}
        _ => {
            return Err(invalid(
                "`message.role` must be `ROLE_USER` (1.0) or `user` (0.3): a request's message is its client's",
            ));
        }
    }
    typed(message, "message.", &MESSAGE_FIELDS)?;
    let parts = match message.get("parts") {
        Some(Value::Array(parts)) if !parts.is_empty() => parts,
        _ => {
            return Err(invalid(
                "`message.parts` must be a list of at least one part",
            ));
        }
    };
    let mut text: Vec<&str> = Vec::new();
    let mut data: Option<serde_json::Map<String, Value>> = None;
    for part in parts {
        if !part.is_object() {
            return Err(invalid("each part must be an object"));
        }
        typed(part, "part.", &PART_FIELDS)?;
        let content: Vec<&str> = CONTENT
            .into_iter()
            .filter(|k| part.get(k).is_some_and(|v| !v.is_null()))
            .collect();
        let kind = match content[..] {
            [k] => k,
            [] => {
                return Err(invalid(
                    "a part needs its content: one of `text`, `data`, `raw` or `url` (0.3: `file`)",
                ));
            }
            [a, b, ..] => {
                return Err(invalid(format!(
                    "a part holds one content, not both `{a}` and `{b}`"
                )));
            }
        };
        match (kind, &part[kind]) {
            ("text", Value::String(t)) => text.push(t),
            ("text", _) => return Err(invalid("a part's `text` must be a string")),
            ("data", d) => {
                // 0.3 data parts hold an object; 1.0's may hold any value, kept under `value`.
                // A protobuf Struct holds every number as a double: the official SDKs send
                // 20000 as 20000.0, which the scenario (and a report) know as 20000.
                let map = match plain_numbers(d.clone()) {
                    Value::Object(m) => m,
                    other => {
                        let mut m = serde_json::Map::new();
                        m.insert("value".into(), other);
                        m
                    }
                };
                data.get_or_insert_with(Default::default).extend(map);
            }
            _ => {
                // The scripted agents read text and data; a file would be dropped unread.
                return Err(Failure::new(
                    FailureKind::ContentTypeNotSupported,
                    "the simulated agents take text and data parts, not files",
                ));
            }
        }
    }
    Ok(MessageSpec::new(text.join("\n").into(), data))
}

/// Every whole number held as a float (`20000.0`) as an integer; other values unchanged.
pub fn plain_numbers(v: Value) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Value::from(f as i64),
            _ => Value::Number(n),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(plain_numbers).collect()),
        Value::Object(o) => {
            Value::Object(o.into_iter().map(|(k, v)| (k, plain_numbers(v))).collect())
        }
        v => v,
    }
}

/// A value from a real agent as the report records it: whole numbers as integers and every
/// object's keys in order (a protobuf Struct is a map: its keys come in no fixed order).
pub fn canonical(v: Value) -> Value {
    match plain_numbers(v) {
        Value::Array(a) => Value::Array(a.into_iter().map(canonical).collect()),
        Value::Object(o) => {
            let sorted: std::collections::BTreeMap<String, Value> =
                o.into_iter().map(|(k, v)| (k, canonical(v))).collect();
            Value::Object(sorted.into_iter().collect())
        }
        v => v,
    }
}
