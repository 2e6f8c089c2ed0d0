//! The small shapes every part of a scenario file uses: the names steps refer to, a step's
//! target, a list of words, and an empty map.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};

/// A name a step refers to (a caller, an agent, an alias, a literal id): stored inline up to 24
/// bytes, so reading a step allocates nothing for its names (they were four of a large file's
/// five allocations per step).
pub type Name = compact_str::CompactString;

/// `to: NAME` or `to: {discover: [tags]}`; in a fan-out's list also `{agent: NAME, as: MEMBER}`
/// (or `{discover: [tags], as: MEMBER}`), which names the member for `when`.
#[derive(Debug)]
pub enum TargetFile {
    Agent(String),
    Discover(Vec<String>),
    /// A target with a member name (`as`).
    Named(Box<TargetFile>, String),
}

impl<'de> Deserialize<'de> for TargetFile {
    fn deserialize<D: de::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TargetFile;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an agent name or {discover: [tags]}")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<TargetFile, E> {
                Ok(TargetFile::Agent(s.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TargetFile, A::Error> {
                const KEYS: &[&str] = &["discover", "agent", "as"];
                let (mut target, mut name) = (None, None);
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "discover" if target.is_none() => {
                            target = Some(TargetFile::Discover(map.next_value()?));
                        }
                        "agent" if target.is_none() => {
                            target = Some(TargetFile::Agent(map.next_value()?));
                        }
                        "as" if name.is_none() => name = Some(map.next_value::<String>()?),
                        "discover" | "agent" | "as" => {
                            return Err(de::Error::custom(
                                "a target is one of `agent: NAME` or `discover: [tags]`, with at most one `as`",
                            ));
                        }
                        other => return Err(de::Error::unknown_field(other, KEYS)),
                    }
                }
                let target = target.ok_or_else(|| {
                    de::Error::custom("expected {discover: [tags]} or {agent: NAME, as: MEMBER}")
                })?;
                Ok(match name {
                    Some(n) => TargetFile::Named(Box::new(target), n),
                    None => target,
                })
            }
        }
        de.deserialize_any(V)
    }
}

/// One word or a list of words: `state: completed` or `state: [completed, failed]`. A scalar
/// stands for its text, as everywhere a string is expected.
#[derive(Debug, Clone)]
pub struct WordsFile {
    pub words: Vec<String>,
    /// Written as a list (so a word's position is an index into it).
    pub list: bool,
}

impl WordsFile {
    /// The path of word `k`, given the path of the whole value.
    pub fn word_path(&self, at: &[crate::yaml::Seg], k: usize) -> Vec<crate::yaml::Seg> {
        let mut p = at.to_vec();
        if self.list {
            p.push(crate::yaml::Seg::Index(k));
        }
        p
    }
}

impl<'de> Deserialize<'de> for WordsFile {
    fn deserialize<D: de::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = WordsFile;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a word or a list of words")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<WordsFile, E> {
                Ok(WordsFile {
                    words: vec![s.to_string()],
                    list: false,
                })
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<WordsFile, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<WordsFile, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<WordsFile, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<WordsFile, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<WordsFile, A::Error> {
                Vec::<String>::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(|words| WordsFile { words, list: true })
            }
        }
        de.deserialize_any(V)
    }
}

/// `input: {}`: a subject with no keys of its own (null is taken as `{}`).
#[derive(Debug, Clone, Copy)]
pub struct EmptyFile;

impl<'de> Deserialize<'de> for EmptyFile {
    fn deserialize<D: de::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = EmptyFile;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an empty mapping `{}`")
            }
            fn visit_unit<E: de::Error>(self) -> Result<EmptyFile, E> {
                Ok(EmptyFile)
            }
            fn visit_none<E: de::Error>(self) -> Result<EmptyFile, E> {
                Ok(EmptyFile)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EmptyFile, A::Error> {
                match map.next_key::<String>()? {
                    None => Ok(EmptyFile),
                    Some(k) => Err(de::Error::custom(format!(
                        "`{k}` is not a key of the subject: write the subject as `{{}}` and the tests beside it"
                    ))),
                }
            }
        }
        de.deserialize_any(V)
    }
}

// Schemas of the types that deserialise by hand, so `a2a-sim schema` describes the same shapes the
// loader accepts.

impl JsonSchema for TargetFile {
    fn schema_name() -> Cow<'static, str> {
        "Target".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "An agent by name, or the top-ranked card of a discovery.",
            "oneOf": [
                {"type": "string"},
                {"type": "object", "properties": {"discover": {"type": "array", "items": {"type": "string"}}, "as": {"type": "string"}},
                 "required": ["discover"], "additionalProperties": false},
                {"type": "object", "properties": {"agent": {"type": "string"}, "as": {"type": "string"}},
                 "required": ["agent"], "additionalProperties": false}
            ]
        })
    }
}

impl JsonSchema for WordsFile {
    fn schema_name() -> Cow<'static, str> {
        "Words".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A word, or a list of words (any of them).",
            "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
        })
    }
}

impl JsonSchema for EmptyFile {
    fn schema_name() -> Cow<'static, str> {
        "Empty".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": ["object", "null"], "additionalProperties": false})
    }
}
