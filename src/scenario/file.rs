//! The scenario file as written: the YAML contract of `docs/scenario-format.md`, one type per
//! mapping. Unknown keys are rejected here; cross-references are checked by the loader.

use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};
use std::borrow::Cow;

pub use crate::engine::scenario::DataMap;

/// Reads a `data` mapping strictly: a duplicate key, a non-string key or a non-finite number is
/// an error, not a silent last-one-wins.
fn strict_data<'de, D: de::Deserializer<'de>>(de: D) -> Result<Option<DataMap>, D::Error> {
    match de.deserialize_any(StrictValue)? {
        serde_json::Value::Object(m) => Ok(Some(m)),
        serde_json::Value::Null => Ok(None),
        _ => Err(de::Error::custom("`data` must be a mapping")),
    }
}

struct StrictValue;

impl<'de> Visitor<'de> for StrictValue {
    type Value = serde_json::Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON-like value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        serde_json::Number::from_f64(v)
            .map(serde_json::Value::Number)
            .ok_or_else(|| E::custom("data numbers must be finite (no .inf or .nan)"))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_any(StrictValue)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(StrictSeed)? {
            items.push(v);
        }
        Ok(serde_json::Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = DataMap::new();
        while let Some(key) = map.next_key::<DataKey>()? {
            if out.contains_key(&key.0) {
                return Err(de::Error::custom(format!("duplicate field `{}`", key.0)));
            }
            let value = map.next_value_seed(StrictSeed)?;
            out.insert(key.0, value);
        }
        Ok(serde_json::Value::Object(out))
    }
}

struct StrictSeed;

impl<'de> de::DeserializeSeed<'de> for StrictSeed {
    type Value = serde_json::Value;
    fn deserialize<D: de::Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_any(StrictValue)
    }
}

/// A data key: a string (JSON objects have no other keys).
struct DataKey(String);

impl<'de> Deserialize<'de> for DataKey {
    fn deserialize<D: de::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct K;
        impl<'de> Visitor<'de> for K {
            type Value = DataKey;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string key (data is JSON: keys are strings)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DataKey, E> {
                Ok(DataKey(v.to_string()))
            }
        }
        de.deserialize_str(K)
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub name: Option<String>,
    #[serde(default)]
    pub policy: PolicyFile,
    pub classification_levels: Option<Vec<String>>,
    pub clock: Option<ClockFile>,
    pub agents: Vec<AgentFile>,
    pub callers: Vec<CallerFile>,
    pub steps: Vec<StepFile>,
    /// Assertions `a2a-sim test` checks besides the golden file.
    pub expect: Option<Vec<ExpectFile>>,
}

/// One assertion about the run's outcome: exactly one of `task`, `denied`, `pushes`, `errors`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectFile {
    /// A task, by the alias (`as`) of the send that created it.
    pub task: Option<String>,
    /// With `task`: its final state.
    pub state: Option<String>,
    /// With `task`: its delegation chain.
    pub delegation_chain: Option<Vec<String>>,
    /// A send's denial, by the send's alias or its step number (1-based).
    pub denied: Option<StepRefFile>,
    /// With `denied`: the denial codes, in order (`[]`: admitted).
    pub codes: Option<Vec<String>>,
    /// The number of pushes, or their states in order.
    pub pushes: Option<CountOrList>,
    /// The number of errors, or their codes in order.
    pub errors: Option<CountOrList>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum StepRefFile {
    Step(i64),
    Alias(String),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum CountOrList {
    Count(i64),
    List(Vec<String>),
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyFile {
    pub max_depth: Option<i64>,
    pub push_allowed_hosts: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockFile {
    pub epoch: Option<String>,
    pub tick_ms: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentFile {
    pub name: Option<String>,
    pub card: Option<String>,
    pub description: Option<String>,
    pub version: Option<String>,
    pub url: Option<String>,
    pub tenant: String,
    pub clearance: String,
    #[serde(default)]
    pub required_scopes: Vec<String>,
    #[serde(default)]
    pub scopes: Vec<String>,
    pub capabilities: Option<CapabilitiesFile>,
    pub skills: Option<Vec<SkillFile>>,
    #[serde(default)]
    pub handler: Vec<HandlerStepFile>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CapabilitiesFile {
    pub streaming: Option<bool>,
    pub push_notifications: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillFile {
    pub id: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub tags: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CallerFile {
    pub id: String,
    pub tenant: String,
    pub classification: String,
    #[serde(default)]
    pub scopes: Vec<String>,
    #[serde(default)]
    pub delegation_chain: Vec<String>,
}

/// A driver step: `- send: {...}`.
#[derive(Debug)]
pub enum StepFile {
    Discover(DiscoverStepFile),
    Send(SendStepFile),
    Stream(SendStepFile),
    Reply(ReplyStepFile),
    SetPushConfig(PushStepFile),
    Cancel(TaskStepFile),
    Get(TaskStepFile),
}

pub const STEP_KINDS: [&str; 7] = [
    "discover",
    "send",
    "stream",
    "reply",
    "set_push_config",
    "cancel",
    "get",
];

impl<'de> Deserialize<'de> for StepFile {
    fn deserialize<D: de::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StepFile;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a step such as `send: {caller, to, text}`")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<StepFile, E> {
                if STEP_KINDS.contains(&s) {
                    Err(E::custom(format!(
                        "step `{s}` needs its keys, e.g. `{s}: {{caller: ...}}`"
                    )))
                } else {
                    Err(E::unknown_variant(s, &STEP_KINDS))
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StepFile, A::Error> {
                let key: String = map
                    .next_key()?
                    .ok_or_else(|| de::Error::custom("a step needs exactly one key: its kind"))?;
                let step = match key.as_str() {
                    "discover" => StepFile::Discover(map.next_value()?),
                    "send" => StepFile::Send(map.next_value()?),
                    "stream" => StepFile::Stream(map.next_value()?),
                    "reply" => StepFile::Reply(map.next_value()?),
                    "set_push_config" => StepFile::SetPushConfig(map.next_value()?),
                    "cancel" => StepFile::Cancel(map.next_value()?),
                    "get" => StepFile::Get(map.next_value()?),
                    _ => return Err(de::Error::unknown_variant(&key, &STEP_KINDS)),
                };
                if map.next_key::<String>()?.is_some() {
                    return Err(de::Error::custom(
                        "a step has exactly one key, its kind; start each step with its own `-`",
                    ));
                }
                Ok(step)
            }
        }
        de.deserialize_any(V)
    }
}

impl StepFile {
    pub fn kind(&self) -> &'static str {
        match self {
            StepFile::Discover(_) => "discover",
            StepFile::Send(_) => "send",
            StepFile::Stream(_) => "stream",
            StepFile::Reply(_) => "reply",
            StepFile::SetPushConfig(_) => "set_push_config",
            StepFile::Cancel(_) => "cancel",
            StepFile::Get(_) => "get",
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiscoverStepFile {
    pub caller: String,
    pub tags: Vec<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendStepFile {
    pub caller: String,
    pub to: TargetFile,
    pub text: String,
    #[serde(default, deserialize_with = "strict_data")]
    pub data: Option<DataMap>,
    #[serde(rename = "as")]
    pub alias: Option<String>,
    pub push: Option<PushFile>,
    pub context: Option<String>,
    pub context_of: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushFile {
    pub url: String,
    pub token: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplyStepFile {
    pub caller: String,
    pub task: Option<String>,
    pub task_id: Option<String>,
    pub text: String,
    #[serde(default, deserialize_with = "strict_data")]
    pub data: Option<DataMap>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskStepFile {
    pub caller: String,
    pub task: Option<String>,
    pub task_id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushStepFile {
    pub caller: String,
    pub task: Option<String>,
    pub task_id: Option<String>,
    pub agent: Option<String>,
    pub url: String,
    pub token: Option<String>,
}

/// `to: NAME` or `to: {discover: [tags]}`.
#[derive(Debug)]
pub enum TargetFile {
    Agent(String),
    Discover(Vec<String>),
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
                let key: String = map
                    .next_key()?
                    .ok_or_else(|| de::Error::custom("expected {discover: [tags]}"))?;
                if key != "discover" {
                    return Err(de::Error::unknown_field(&key, &["discover"]));
                }
                let tags = map.next_value()?;
                if let Some(extra) = map.next_key::<String>()? {
                    return Err(de::Error::unknown_field(&extra, &["discover"]));
                }
                Ok(TargetFile::Discover(tags))
            }
        }
        de.deserialize_any(V)
    }
}

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
const HANDLER_STEPS: [&str; 10] = [
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
];

/// One step of a scripted handler: `- working`, `- working: text`, `- artifact: {...}`, ...
#[derive(Debug)]
pub enum HandlerStepFile {
    Status {
        state: String,
        message: Option<String>,
    },
    Message(String),
    Artifact(ArtifactFile),
    Delegate(DelegateFile),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArtifactFile {
    pub name: Option<String>,
    pub text: Option<String>,
    #[serde(default, deserialize_with = "strict_data")]
    pub data: Option<DataMap>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DelegateFile {
    pub to: TargetFile,
    pub text: String,
    #[serde(default)]
    pub on_error: OnErrorFile,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnErrorFile {
    #[default]
    Fail,
    Continue,
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
                    "delegate" => HandlerStepFile::Delegate(map.next_value()?),
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
                {"type": "object", "properties": {"discover": {"type": "array", "items": {"type": "string"}}},
                 "required": ["discover"], "additionalProperties": false}
            ]
        })
    }
}

impl JsonSchema for StepFile {
    fn schema_name() -> Cow<'static, str> {
        "Step".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let one = |key: &str, s: Schema| json_schema!({"type": "object", "properties": {key: s}, "required": [key], "additionalProperties": false});
        json_schema!({
            "description": "A driver step: a mapping with one key, the step's kind.",
            "oneOf": [
                one("discover", g.subschema_for::<DiscoverStepFile>()),
                one("send", g.subschema_for::<SendStepFile>()),
                one("stream", g.subschema_for::<SendStepFile>()),
                one("reply", g.subschema_for::<ReplyStepFile>()),
                one("set_push_config", g.subschema_for::<PushStepFile>()),
                one("cancel", g.subschema_for::<TaskStepFile>()),
                one("get", g.subschema_for::<TaskStepFile>()),
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
        json_schema!({
            "description": "A handler step: a status (bare or with a message), `message`, `artifact` or `delegate`.",
            "oneOf": choices
        })
    }
}
