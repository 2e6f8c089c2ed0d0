//! Handler steps: `- working`, `- completed: text`, `- delegate: {...}`, `- when: ...`, ...

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{CondFile, DataMap, TargetFile, strict_data};

/// The handler's status steps, in the spelling of the file.
pub const STATE_STEPS: [&str; 7] = [
    "working",
    "input_required",
    "auth_required",
    "completed",
    "failed",
    "rejected",
    "canceled",
];
const HANDLER_STEPS: [&str; 13] = [
    "working",
    "input_required",
    "auth_required",
    "completed",
    "failed",
    "rejected",
    "canceled",
    "message",
    "artifact",
    "delegate",
    "fan_out",
    "wait",
    "when",
];
/// The keys of a `when` step, the one handler step with several.
const WHEN_KEYS: [&str; 3] = ["when", "then", "else"];

/// One step of a scripted handler: `- working`, `- working: text`, `- artifact: {...}`, ...
#[derive(Debug)]
pub enum HandlerStepFile {
    Status {
        state: String,
        message: Option<String>,
    },
    Message(String),
    Artifact(ArtifactFile),
    Delegate(Box<DelegateFile>),
    FanOut(FanOutFile),
    Wait(i64),
    When(Box<WhenFile>),
}

/// `{when: COND, then: [steps], else: [steps]}`; which keys are missing is the loader's to say.
#[derive(Debug, Default)]
pub struct WhenFile {
    pub cond: Option<CondFile>,
    pub then: Option<Vec<HandlerStepFile>>,
    pub otherwise: Option<Vec<HandlerStepFile>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArtifactFile {
    pub name: Option<String>,
    pub text: Option<String>,
    #[serde(default, deserialize_with = "strict_data")]
    pub data: Option<DataMap>,
    /// Made of these results (`as` names): their text joined, their data merged.
    pub from: Option<super::WordsFile>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DelegateFile {
    pub to: TargetFile,
    pub text: String,
    #[serde(default, deserialize_with = "strict_data")]
    pub data: Option<DataMap>,
    /// Names the delegation's result for `when`, `artifact: {from}` and `expect` paths.
    #[serde(rename = "as")]
    pub result: Option<String>,
    #[serde(default)]
    pub on_error: OnErrorFile,
    /// Ticks (≥ 1) from the child's creation before it is canceled with outcome `timeout`.
    pub timeout: Option<i64>,
    pub retry: Option<RetryFile>,
    #[serde(default)]
    pub on_pause: OnPauseFile,
    /// Scripted answers, one each time the child pauses.
    pub replies: Option<Vec<ReplyFile>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetryFile {
    /// Total attempts, ≥ 1 (default 1).
    pub attempts: Option<i64>,
    /// Ticks before attempt 2, doubled before each later one; ≥ 0 (default 1).
    pub backoff: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplyFile {
    pub text: String,
    #[serde(default, deserialize_with = "strict_data")]
    pub data: Option<DataMap>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FanOutFile {
    pub to: FanTargetsFile,
    pub text: String,
    #[serde(default, deserialize_with = "strict_data")]
    pub data: Option<DataMap>,
    #[serde(rename = "as")]
    pub result: Option<String>,
    pub join: Option<JoinFile>,
    pub timeout: Option<i64>,
    #[serde(default)]
    pub on_error: OnErrorFile,
    // Read only to refuse them with a reason: a paused fan-out child is canceled.
    #[schemars(skip)]
    pub on_pause: Option<IgnoredAny>,
    #[schemars(skip)]
    pub escalate: Option<IgnoredAny>,
    #[schemars(skip)]
    pub replies: Option<IgnoredAny>,
}

/// A fan-out's `to`: a list of targets, or every candidate of a discovery.
#[derive(Debug)]
pub enum FanTargetsFile {
    List(Vec<TargetFile>),
    Ranking(FanDiscoverFile),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FanDiscoverFile {
    pub discover: Vec<String>,
    /// At most this many candidates, in rank order.
    pub limit: Option<i64>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JoinFile {
    #[default]
    All,
    Any,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnErrorFile {
    #[default]
    Fail,
    Continue,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnPauseFile {
    #[default]
    Cancel,
    Escalate,
}

impl<'de> Deserialize<'de> for FanTargetsFile {
    fn deserialize<D: de::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FanTargetsFile;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of targets, or {discover: [tags], limit: N}")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<FanTargetsFile, E> {
                Err(E::custom(format!(
                    "a fan-out's `to` is a list (`to: [{s}]`) or `{{discover: [tags], limit: N}}`"
                )))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<FanTargetsFile, A::Error> {
                Vec::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(FanTargetsFile::List)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<FanTargetsFile, A::Error> {
                FanDiscoverFile::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(FanTargetsFile::Ranking)
            }
        }
        de.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for HandlerStepFile {
    fn deserialize<D: de::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HandlerStepFile;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a handler step such as `working`, `completed: text` or `artifact: {...}`",
                )
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<HandlerStepFile, E> {
                if STATE_STEPS.contains(&s) {
                    Ok(HandlerStepFile::Status {
                        state: s.to_string(),
                        message: None,
                    })
                } else if HANDLER_STEPS.contains(&s) {
                    Err(E::custom(format!("handler step `{s}` needs a value")))
                } else {
                    Err(E::unknown_variant(s, &HANDLER_STEPS))
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HandlerStepFile, A::Error> {
                let key: String = map
                    .next_key()?
                    .ok_or_else(|| de::Error::custom("a handler step needs exactly one key"))?;
                let step = match key.as_str() {
                    "message" => HandlerStepFile::Message(map.next_value()?),
                    "artifact" => HandlerStepFile::Artifact(map.next_value()?),
                    "delegate" => HandlerStepFile::Delegate(Box::new(map.next_value()?)),
                    "fan_out" => HandlerStepFile::FanOut(map.next_value()?),
                    "wait" => HandlerStepFile::Wait(map.next_value()?),
                    k if WHEN_KEYS.contains(&k) => {
                        return when(key, map).map(|w| HandlerStepFile::When(Box::new(w)));
                    }
                    s if STATE_STEPS.contains(&s) => HandlerStepFile::Status {
                        state: key.clone(),
                        message: map.next_value()?,
                    },
                    _ => return Err(de::Error::unknown_variant(&key, &HANDLER_STEPS)),
                };
                if map.next_key::<String>()?.is_some() {
                    return Err(de::Error::custom(
                        "a handler step has exactly one key; start each step with its own `-`",
                    ));
                }
                Ok(step)
            }
        }
        de.deserialize_any(V)
    }
}

/// The rest of a `when` step's mapping, whose first key was `first`.
fn when<'de, A: MapAccess<'de>>(first: String, mut map: A) -> Result<WhenFile, A::Error> {
    let mut w = WhenFile::default();
    let mut key = Some(first);
    while let Some(k) = key {
        let duplicate = match k.as_str() {
            "when" => w.cond.replace(map.next_value()?).is_some(),
            "then" => w.then.replace(map.next_value()?).is_some(),
            "else" => w.otherwise.replace(map.next_value()?).is_some(),
            _ => return Err(de::Error::unknown_field(&k, &WHEN_KEYS)),
        };
        if duplicate {
            return Err(de::Error::custom(format!("duplicate field `{k}`")));
        }
        key = map.next_key()?;
    }
    Ok(w)
}

impl JsonSchema for FanTargetsFile {
    fn schema_name() -> Cow<'static, str> {
        "FanTargets".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Each entry a member (an agent, or the top card of a discovery), or every candidate of a discovery ranking.",
            "oneOf": [
                {"type": "array", "items": g.subschema_for::<TargetFile>(), "minItems": 1},
                g.subschema_for::<FanDiscoverFile>()
            ]
        })
    }
}

impl JsonSchema for HandlerStepFile {
    fn schema_name() -> Cow<'static, str> {
        "HandlerStep".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let one = |key: &str, s: Schema| json_schema!({"type": "object", "properties": {key: s}, "required": [key], "additionalProperties": false});
        let text_or_null = json_schema!({"type": ["string", "null"]});
        let mut choices = vec![json_schema!({"enum": STATE_STEPS})];
        for state in STATE_STEPS {
            choices.push(one(state, text_or_null.clone()));
        }
        choices.push(one("message", json_schema!({"type": "string"})));
        choices.push(one("artifact", g.subschema_for::<ArtifactFile>()));
        choices.push(one("delegate", g.subschema_for::<DelegateFile>()));
        choices.push(one("fan_out", g.subschema_for::<FanOutFile>()));
        choices.push(one("wait", json_schema!({"type": "integer", "minimum": 0})));
        let steps = json_schema!({"type": "array", "items": g.subschema_for::<HandlerStepFile>()});
        choices.push(json_schema!({
            "type": "object",
            "properties": {"when": g.subschema_for::<CondFile>(), "then": steps.clone(), "else": steps},
            "required": ["when", "then"],
            "additionalProperties": false
        }));
        json_schema!({
            "description": "A handler step: a status (bare or with a message), `message`, `artifact`, `delegate`, `fan_out`, `wait`, or `when` with `then` and `else`.",
            "oneOf": choices
        })
    }
}
