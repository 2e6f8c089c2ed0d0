//! A request body's JSON read strictly: a key twice in one object is refused (parsers disagree on
//! which one counts, so two readers of one request could act on two different requests), and a
//! JSON-RPC id is kept as the client wrote it, to be echoed byte for byte (a parsed number would
//! round `123456789012345678901234567890` to a float).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// A key found twice in one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repeated {
    pub key: String,
    /// Whether the object is the document itself (a JSON-RPC envelope), not one inside it.
    pub top_level: bool,
}

/// The first key repeated in one object of `body`, which must be JSON.
pub fn repeated_key(body: &[u8]) -> Option<Repeated> {
    let found = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_slice(body);
    // The only error a checked document can raise is the one a repeat raises.
    let _ = Walk {
        depth: 0,
        found: &found,
    }
    .deserialize(&mut de);
    found.into_inner()
}

struct Walk<'a> {
    depth: usize,
    found: &'a RefCell<Option<Repeated>>,
}

impl Walk<'_> {
    fn inner(&self) -> Self {
        Walk {
            depth: self.depth + 1,
            found: self.found,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self.inner())?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if seen.contains(&key) {
                *self.found.borrow_mut() = Some(Repeated {
                    key,
                    top_level: self.depth == 0,
                });
                return Err(de::Error::custom("a repeated key"));
            }
            map.next_value_seed(self.inner())?;
            seen.insert(key);
        }
        Ok(())
    }
}

/// A JSON-RPC request id as the client wrote it: a string, a number or `null`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcId(Box<str>);

impl RpcId {
    pub fn null() -> Self {
        RpcId("null".into())
    }

    /// The id's JSON text.
    pub fn json(&self) -> &str {
        &self.0
    }
}

/// The id of the JSON-RPC request `doc` (parsed from `body`): absent (a notification), one as
/// written, or an error for an id that is no string, number or null.
pub fn rpc_id(body: &[u8], doc: &Value) -> Result<Option<RpcId>, ()> {
    #[derive(serde::Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
    }
    match doc.get("id") {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(RpcId::null())),
        Some(Value::String(_) | Value::Number(_)) => {
            let raw = serde_json::from_slice::<Envelope>(body)
                .ok()
                .and_then(|e| e.id)
                .ok_or(())?;
            Ok(Some(RpcId(raw.get().into())))
        }
        Some(_) => Err(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_twice_in_any_object_is_found() {
        let rows: [(&str, Option<(&str, bool)>); 7] = [
            (r#"{"a": 1, "b": 2}"#, None),
            (r#"{"method": "x", "method": "y"}"#, Some(("method", true))),
            (r#"{"params": {"id": 1, "id": 2}}"#, Some(("id", false))),
            (r#"[{"a": 1}, {"a": 1, "a": 1}]"#, Some(("a", false))),
            (r#"{"a": {"b": 1}, "c": {"b": 1}}"#, None),
            // Escapes name the same key.
            (r#"{"id": 1, "\u0069d": 2}"#, Some(("id", true))),
            ("[1, \"x\", null, true, 2.5, -3]", None),
        ];
        for (body, want) in rows {
            let want = want.map(|(key, top_level)| Repeated {
                key: key.into(),
                top_level,
            });
            assert_eq!(repeated_key(body.as_bytes()), want, "{body}");
        }
    }

    #[test]
    fn ids_are_kept_as_written() {
        for (body, want) in [
            (
                r#"{"id": 123456789012345678901234567890}"#,
                Some("123456789012345678901234567890"),
            ),
            (r#"{"id":1.50}"#, Some("1.50")),
            (r#"{"id": -0}"#, Some("-0")),
            (r#"{"id": "a\u0041"}"#, Some(r#""a\u0041""#)),
            (r#"{"id": null}"#, Some("null")),
            (r#"{"method": "x"}"#, None),
        ] {
            let doc: Value = serde_json::from_str(body).unwrap();
            let id = rpc_id(body.as_bytes(), &doc).unwrap();
            assert_eq!(id.as_ref().map(RpcId::json), want, "{body}");
        }
        for body in [r#"{"id": [1]}"#, r#"{"id": {}}"#, r#"{"id": true}"#] {
            let doc: Value = serde_json::from_str(body).unwrap();
            assert!(rpc_id(body.as_bytes(), &doc).is_err(), "{body}");
        }
    }
}
