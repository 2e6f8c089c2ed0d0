//! The scenario file as written: the YAML contract of `docs/src/reference/scenario-format.md`, one type per
//! mapping. Unknown keys are rejected here; cross-references are checked by the loader.

mod cond;
mod expect;
mod faults;
mod handler;
mod step;
mod strict;
mod words;

use schemars::JsonSchema;
use serde::Deserialize;

pub use engine::scenario::DataMap;

pub use cond::*;
pub use expect::*;
pub use faults::*;
pub use handler::*;
pub use step::*;
pub use strict::{strict_data, strict_data_boxed, strict_map, strict_value};
pub use words::{EmptyFile, Name, TargetFile, WordsFile};

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
