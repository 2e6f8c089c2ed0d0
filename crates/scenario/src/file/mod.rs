//! The scenario file as written: the YAML contract of `docs/src/reference/scenario-format.md`, one type per
//! mapping. Unknown keys are rejected here; cross-references are checked by the loader.

mod cond;
mod expect;
mod faults;
mod handler;
mod step;
mod strict;

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};

pub use engine::scenario::DataMap;

pub use cond::*;
pub use expect::*;
pub use faults::*;
pub use handler::*;
pub use step::*;
pub use strict::{strict_data, strict_data_boxed, strict_map, strict_value};

/// A name a step refers to (a caller, an agent, an alias, a literal id): stored inline up to 24
/// bytes, so reading a step allocates nothing for its names (they were four of a large file's
/// five allocations per step).
pub type Name = compact_str::CompactString;

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub name: Option<String>,
    /// Files whose agents, callers, policy, classification levels and clock come first (paths
    /// relative to this file).
    pub imports: Option<Vec<String>>,
    #[serde(default)]
    pub policy: PolicyFile,
    pub classification_levels: Option<Vec<String>>,
    pub clock: Option<ClockFile>,
    /// A JWKS (RFC 7517), relative to the scenario: the keys callers' tokens are verified with.
    pub keys: Option<String>,
    /// Required in a scenario unless an import gives them.
    pub agents: Option<Vec<AgentFile>>,
    /// Required in a scenario unless an import gives them.
    pub callers: Option<Vec<CallerFile>>,
    /// The driver. A file without `steps` is a library: `check` validates it, scenarios import it.
    pub steps: Option<StepList>,
    /// Assertions `a2a-sim test` checks besides the golden file.
    pub expect: Option<Vec<ExpectFile>>,
    /// `false`: `test` checks the `expect` entries alone, with no golden file (default true).
    pub golden: Option<bool>,
    /// Faults injected into the run (`[]`: none).
    pub faults: Option<Vec<FaultFile>>,
    /// `true`: handler texts of this file's agents are templates (`{{input.text}}`, ...).
    pub templates: Option<bool>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyFile {
    pub max_depth: Option<i64>,
    pub push_allowed_hosts: Option<Vec<String>>,
    /// Webhook delivery: retries with exponential backoff, then a dead letter.
    pub push_delivery: Option<PushDeliveryFile>,
    /// The scopes a nested delegation carries: `own` (the default) or `attenuate`.
    pub authority: Option<AuthorityFile>,
    /// How callers' tokens are verified (with `keys`).
    pub token: Option<TokenPolicyFile>,
    /// A private JWK file (EC P-256/P-384, RSA or Ed25519, with a `kid`), relative to the
    /// scenario: every card `serve` and `card` issue carries its JWS signature (A2A §8.4).
    pub card_signing_key: Option<String>,
    /// A JWKS file of public keys, relative to the scenario: the signatures of `card` files are
    /// verified with them (and with the public half of `card_signing_key`).
    pub card_keys: Option<String>,
}

/// `own`: an agent delegates with its own scopes; `attenuate`: with its scopes ∩ its caller's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuthorityFile {
    Own,
    Attenuate,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenPolicyFile {
    /// `iss` must equal this.
    pub issuer: String,
    /// `aud` must contain this.
    pub audience: String,
    /// The allow-list (default EdDSA, ES256, RS256); `none` is never allowed.
    pub algorithms: Option<Vec<String>>,
    /// Clock skew allowed on `exp`, `nbf` and `iat`, in seconds (default 0).
    pub leeway_s: Option<i64>,
    /// An Ed25519 private JWK file: signs the tokens of nested delegations.
    pub platform_key: Option<String>,
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
    /// Overrides `policy.authority` for delegations made from this agent.
    pub authority: Option<AuthorityFile>,
    pub capabilities: Option<CapabilitiesFile>,
    pub skills: Option<Vec<SkillFile>>,
    #[serde(default)]
    pub handler: Vec<HandlerStepFile>,
    /// Set from the `templates` of the file that defines the agent (not a key of its own).
    #[serde(skip)]
    #[schemars(skip)]
    pub templates: bool,
    /// Requests must carry a verified token (default false); the card advertises a bearer JWT.
    pub requires_token: Option<bool>,
    /// A real A2A agent (a command a2a-sim starts, or a URL already serving) instead of a handler.
    pub external: Option<ExternalFile>,
}

/// `external:` of an agent: the real agent a2a-sim drives.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExternalFile {
    /// The command that starts it (run in the scenario file's folder); `{port}` is a free port.
    pub command: Option<Vec<String>>,
    /// The base URL of an agent already running (its card at `URL/.well-known/agent-card.json`).
    pub url: Option<String>,
    /// Environment for the command; values may use `{port}`, `{agents.NAME.url}` and `{token}`.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// How long to wait for its card to answer (default 30).
    pub ready_timeout_s: Option<u64>,
    /// For an agent that makes calls in parallel: how long (milliseconds) a2a-sim waits after
    /// each call for others before answering them in a canonical order (default 0: only calls
    /// already waiting are put in order).
    pub settle_ms: Option<u64>,
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
    /// A caller context given as parameters: `id`, `tenant`, `classification`, ...
    pub id: Option<String>,
    pub tenant: Option<String>,
    pub classification: Option<String>,
    /// ... or a verified caller: `name` (the handle steps use) and `token` (a JWT or a file).
    pub name: Option<String>,
    pub token: Option<String>,
    #[serde(default)]
    pub scopes: Vec<String>,
    #[serde(default)]
    pub delegation_chain: Vec<String>,
}

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
