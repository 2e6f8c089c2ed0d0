//! `when` conditions and the tests they share with `expect`: which keys a condition may have is
//! checked here, what they mean (one subject, tests that fit it, operators) by the loader.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};

use super::{DataMap, EmptyFile, WordsFile, strict_map, strict_value};

/// A condition: a combinator (`all`, `any`, `not`) or one subject with its tests.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CondFile {
    /// Every condition holds.
    pub all: Option<Vec<CondFile>>,
    /// At least one condition holds.
    pub any: Option<Vec<CondFile>>,
    /// The condition does not hold.
    pub not: Option<Box<CondFile>>,
    /// Subject: a delegation or fan-out of this handler, by its `as`.
    pub result: Option<String>,
    /// Subject: this task's first message.
    pub input: Option<EmptyFile>,
    /// Subject: the latest reply this task received.
    pub reply: Option<EmptyFile>,
    /// The delegation's outcome, a word or a list of words.
    pub outcome: Option<WordsFile>,
    /// The child task's state, a word or a list of words.
    pub state: Option<WordsFile>,
    /// The text, equal or `{contains: S}`.
    pub text: Option<TextTestFile>,
    /// Tests on the data: `PATH: TEST` (a literal or `{OPERATOR: VALUE}`).
    #[serde(default, deserialize_with = "strict_map")]
    #[schemars(with = "Option<DataMap>")]
    pub data: Option<DataMap>,
    /// A fan-out's number of completed members: a number or `{OPERATOR: N}`.
    #[serde(default, deserialize_with = "strict_value")]
    #[schemars(with = "Option<CountTest>")]
    pub completed: Option<serde_json::Value>,
    /// With a fan-out's `result`: tests that hold on every member that completed.
    pub each: Option<Box<CondFile>>,
    /// With a fan-out's `result`: tests that hold on at least one member that completed.
    pub some: Option<Box<CondFile>>,
    /// A fan-out's number of members: a number or `{OPERATOR: N}`.
    #[serde(default, deserialize_with = "strict_value")]
    #[schemars(with = "Option<CountTest>")]
    pub size: Option<serde_json::Value>,
}

/// `text: S` (equal) or `text: {contains: S}`.
#[derive(Debug)]
pub enum TextTestFile {
    Equals(String),
    Contains(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContainsFile {
    contains: String,
}

impl<'de> Deserialize<'de> for TextTestFile {
    fn deserialize<D: de::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TextTestFile;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or {contains: STRING}")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<TextTestFile, E> {
                Ok(TextTestFile::Equals(s.to_string()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<TextTestFile, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<TextTestFile, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<TextTestFile, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<TextTestFile, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<TextTestFile, A::Error> {
                ContainsFile::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|c| TextTestFile::Contains(c.contains))
            }
        }
        de.deserialize_any(V)
    }
}

impl JsonSchema for TextTestFile {
    fn schema_name() -> Cow<'static, str> {
        "TextTest".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The text equals this string, or contains `contains`.",
            "oneOf": [
                {"type": "string"},
                {"type": "object", "properties": {"contains": {"type": "string"}},
                 "required": ["contains"], "additionalProperties": false}
            ]
        })
    }
}

/// Schema only: a count test (`completed`, `size`).
pub struct CountTest;

impl JsonSchema for CountTest {
    fn schema_name() -> Cow<'static, str> {
        "CountTest".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let num = json_schema!({"type": "number"});
        let op = |k: &str, s: Schema| json_schema!({"type": "object", "properties": {k: s}, "required": [k], "additionalProperties": false});
        json_schema!({
            "description": "A count: equal to this number, or `{OPERATOR: N}`.",
            "oneOf": [
                {"type": "integer", "minimum": 0},
                op("eq", num.clone()), op("ne", num.clone()), op("gt", num.clone()),
                op("gte", num.clone()), op("lt", num.clone()), op("lte", num.clone()),
                op("in", json_schema!({"type": "array", "items": {"type": "number"}}))
            ]
        })
    }
}
