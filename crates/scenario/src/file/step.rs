//! Driver steps: `- send: {...}`, `- wait: 3`, ...

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};

use super::{DataMap, Name, TargetFile, strict_data_boxed};

/// How many steps a chunk of a [`StepList`] holds once the list is long.
const STEP_CHUNK: usize = 4096;

/// A file's `steps`, read in chunks: a long list is never regrown and copied while it is read
/// (a 100,000-step list of 288-byte steps was copied at every doubling, and half of its last
/// doubling was room), and the loader frees each chunk as soon as it has converted it.
#[derive(Default)]
pub struct StepList {
    chunks: Vec<Vec<StepFile>>,
    len: usize,
}

impl StepList {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = &StepFile> {
        self.chunks.iter().flatten()
    }

    /// The steps in order, a chunk at a time.
    pub fn into_chunks(self) -> impl Iterator<Item = Vec<StepFile>> {
        self.chunks.into_iter()
    }

    /// `other`'s steps after these (its chunks as they are).
    pub fn append(&mut self, other: StepList) {
        self.len += other.len;
        self.chunks.extend(other.chunks);
    }

    fn push(&mut self, step: StepFile) {
        match self.chunks.last_mut() {
            // The first chunk grows as a list does, so a short file takes no more than it needs.
            Some(last) if last.len() < STEP_CHUNK => last.push(step),
            _ => {
                let mut chunk = Vec::with_capacity(if self.chunks.is_empty() {
                    0
                } else {
                    STEP_CHUNK
                });
                chunk.push(step);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
    }
}

/// As the list it is, whatever its chunks.
impl fmt::Debug for StepList {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'de> Deserialize<'de> for StepList {
    fn deserialize<D: de::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StepList;
            // As a `Vec`'s: the same messages for a `steps` that is not a list.
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<StepList, A::Error> {
                let mut list = StepList::default();
                while let Some(step) = seq.next_element()? {
                    list.push(step);
                }
                Ok(list)
            }
        }
        de.deserialize_seq(V)
    }
}

impl JsonSchema for StepList {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        <Vec<StepFile>>::schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        <Vec<StepFile>>::schema_id()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        <Vec<StepFile>>::json_schema(g)
    }
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
    Wait(WaitStepFile),
    Matrix(MatrixStepFile),
}

pub const STEP_KINDS: [&str; 9] = [
    "discover",
    "send",
    "stream",
    "reply",
    "set_push_config",
    "cancel",
    "get",
    "wait",
    "matrix",
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
                let key: KindKey = map
                    .next_key()?
                    .ok_or_else(|| de::Error::custom("a step needs exactly one key: its kind"))?;
                let step = match key.0 {
                    Ok("discover") => StepFile::Discover(map.next_value()?),
                    Ok("send") => StepFile::Send(map.next_value()?),
                    Ok("stream") => StepFile::Stream(map.next_value()?),
                    Ok("reply") => StepFile::Reply(map.next_value()?),
                    Ok("set_push_config") => StepFile::SetPushConfig(map.next_value()?),
                    Ok("cancel") => StepFile::Cancel(map.next_value()?),
                    Ok("get") => StepFile::Get(map.next_value()?),
                    Ok("wait") => StepFile::Wait(map.next_value()?),
                    Ok("matrix") => StepFile::Matrix(map.next_value()?),
                    Ok(key) => return Err(de::Error::unknown_variant(key, &STEP_KINDS)),
                    Err(key) => return Err(de::Error::unknown_variant(&key, &STEP_KINDS)),
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

/// A step's key, read as a `String` is (same calls, same messages) but not copied when it names
/// a kind: the kind, or the text of another key.
struct KindKey(Result<&'static str, String>);

impl<'de> Deserialize<'de> for KindKey {
    fn deserialize<D: de::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = KindKey;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<KindKey, E> {
                Ok(KindKey(
                    STEP_KINDS
                        .iter()
                        .find(|k| **k == s)
                        .copied()
                        .ok_or_else(|| s.to_string()),
                ))
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<KindKey, E> {
                match std::str::from_utf8(v) {
                    Ok(s) => self.visit_str(s),
                    Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(v), &self)),
                }
            }
        }
        de.deserialize_string(V)
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
            StepFile::Wait(_) => "wait",
            StepFile::Matrix(_) => "matrix",
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiscoverStepFile {
    #[schemars(with = "String")]
    pub caller: Name,
    pub tags: Vec<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendStepFile {
    #[schemars(with = "String")]
    pub caller: Name,
    pub to: TargetFile,
    pub text: String,
    #[serde(default, deserialize_with = "strict_data_boxed")]
    pub data: Option<Box<DataMap>>,
    #[schemars(with = "Option<String>")]
    #[serde(rename = "as")]
    pub alias: Option<Name>,
    pub push: Option<Box<PushFile>>,
    #[schemars(with = "Option<String>")]
    pub context: Option<Name>,
    #[schemars(with = "Option<String>")]
    pub context_of: Option<Name>,
    /// `send` only: end the step as soon as the task exists.
    pub return_immediately: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushFile {
    pub url: String,
    #[schemars(with = "Option<String>")]
    pub token: Option<Name>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplyStepFile {
    #[schemars(with = "String")]
    pub caller: Name,
    #[schemars(with = "Option<String>")]
    pub task: Option<Name>,
    #[schemars(with = "Option<String>")]
    pub task_id: Option<Name>,
    pub text: String,
    #[serde(default, deserialize_with = "strict_data_boxed")]
    pub data: Option<Box<DataMap>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskStepFile {
    #[schemars(with = "String")]
    pub caller: Name,
    #[schemars(with = "Option<String>")]
    pub task: Option<Name>,
    #[schemars(with = "Option<String>")]
    pub task_id: Option<Name>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushStepFile {
    #[schemars(with = "String")]
    pub caller: Name,
    #[schemars(with = "Option<String>")]
    pub task: Option<Name>,
    #[schemars(with = "Option<String>")]
    pub task_id: Option<Name>,
    #[schemars(with = "Option<String>")]
    pub agent: Option<Name>,
    pub url: String,
    #[schemars(with = "Option<String>")]
    pub token: Option<Name>,
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
                // A stream is read to its end: everything a send takes but `return_immediately`.
                one("stream", json_schema!({
                    "allOf": [g.subschema_for::<SendStepFile>()],
                    "not": {"required": ["return_immediately"]}
                })),
                one("reply", g.subschema_for::<ReplyStepFile>()),
                one("set_push_config", g.subschema_for::<PushStepFile>()),
                one("cancel", g.subschema_for::<TaskStepFile>()),
                one("get", g.subschema_for::<TaskStepFile>()),
                one("wait", g.subschema_for::<WaitStepFile>()),
                one("matrix", g.subschema_for::<MatrixStepFile>()),
            ]
        })
    }
}

/// `wait: N` (ticks) or `wait: {task: ALIAS}` (until that task resolves).
#[derive(Debug)]
pub enum WaitStepFile {
    Ticks(i64),
    Task(WaitTaskFile),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitTaskFile {
    #[schemars(with = "String")]
    pub task: Name,
}

impl<'de> Deserialize<'de> for WaitStepFile {
    fn deserialize<D: de::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = WaitStepFile;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number of ticks or {task: ALIAS}")
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<WaitStepFile, E> {
                Ok(WaitStepFile::Ticks(n))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<WaitStepFile, E> {
                i64::try_from(n)
                    .map(WaitStepFile::Ticks)
                    .map_err(|_| E::custom(format!("{n} ticks is out of range")))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<WaitStepFile, A::Error> {
                WaitTaskFile::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(WaitStepFile::Task)
            }
        }
        de.deserialize_any(V)
    }
}

impl JsonSchema for WaitStepFile {
    fn schema_name() -> Cow<'static, str> {
        "WaitStep".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Let N ticks pass, or run until an aliased task resolves.",
            "oneOf": [{"type": "integer", "minimum": 0}, g.subschema_for::<WaitTaskFile>()]
        })
    }
}

/// `matrix: {callers: [..] | all, agents: [..] | all}`: admission for every pair, creating nothing.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MatrixStepFile {
    pub callers: SelectionFile,
    pub agents: SelectionFile,
}

/// A list of names, or `all` (every one declared, in declaration order).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum SelectionFile {
    List(Vec<String>),
    /// Must be `all`; the loader says so otherwise.
    Word(String),
}

impl JsonSchema for SelectionFile {
    fn schema_name() -> Cow<'static, str> {
        "Selection".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A list of names, or `all` for every one declared.",
            "oneOf": [
                {"const": "all"},
                {"type": "array", "items": {"type": "string"}, "minItems": 1}
            ]
        })
    }
}
