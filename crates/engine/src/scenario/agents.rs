//! Who is in a scenario: its agents (their public cards, platform metadata, handler and, for a
//! real agent, how to reach it) and its callers.

use crate::ids::Level;
use crate::symbols::Sym;

use super::policy::{Authority, Policy};
use super::script::HandlerStep;

/// The public card fields of an agent (what `a2a-sim card` emits).
#[derive(Debug, Clone)]
pub struct Card {
    pub name: String,
    pub description: String,
    pub version: String,
    pub url: String,
    pub streaming: bool,
    pub push_notifications: bool,
    pub skills: Vec<Skill>,
    /// The card file's own JSON, when the agent's card came from a file.
    pub source: Option<serde_json::Value>,
    /// That file's path, as the scenario names it.
    pub file: Option<String>,
    /// For an agent that requires a verified token: the scopes its bearer-JWT security
    /// requirement names (its `required_scopes`).
    pub bearer_scopes: Option<Vec<String>>,
}

#[derive(Debug, Clone)]
pub struct Skill {
    pub id: String,
    pub name: String,
    pub description: String,
    pub tags: Vec<String>,
    /// `tags` interned, sorted and without duplicates: the set discovery intersects.
    pub tag_set: Vec<Sym>,
}

#[derive(Debug)]
pub struct Agent {
    pub sym: Sym,
    pub card: Card,
    pub tenant: Sym,
    pub clearance: Level,
    pub required_scopes: Vec<Sym>,
    pub scopes: Vec<Sym>,
    /// `authority:` on the agent: overrides the policy for delegations made from it.
    pub authority: Option<Authority>,
    pub handler: Vec<HandlerStep>,
    /// The `as` names of the handler's delegations and fan-outs, indexed by `ResultIx`.
    pub results: Vec<String>,
    /// Every request to it must carry a verified token.
    pub requires_token: bool,
    /// Played by a real process or URL, not by `handler` (which is empty): the edge that runs
    /// the scenario talks to it; the engine only records what it reports.
    pub external: Option<Box<External>>,
}

/// How to reach an external agent: data only, the edge starts and calls it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct External {
    /// The command and its arguments, `{port}` and the env templates not yet filled in.
    pub command: Vec<String>,
    /// The base URL of an agent already running (instead of `command`).
    pub url: Option<String>,
    /// Environment for the command, in name order; values are templates.
    pub env: Vec<(String, String)>,
    /// Seconds to wait for its card.
    pub ready_timeout_s: u64,
    /// Milliseconds to wait after each of its calls for others made at the same time, so that
    /// calls made in parallel are answered (and recorded) in a canonical order.
    pub settle_ms: u64,
    /// The token minted for its own calls (a scenario with `keys` and a platform key): what
    /// `{token}` fills in, and what the served agents require of its calls. Never printed.
    pub token: Option<String>,
    /// The folder the command runs in: the folder of the file that defines the agent.
    pub dir: std::path::PathBuf,
}

impl Agent {
    pub fn name(&self) -> &str {
        &self.card.name
    }

    /// The rule for delegations made from this agent: its own `authority:`, else the policy's.
    pub fn authority(&self, policy: &Policy) -> Authority {
        self.authority.unwrap_or(policy.authority)
    }
}

#[derive(Debug)]
pub struct Caller {
    pub id: String,
    pub sym: Sym,
    pub tenant: Sym,
    pub classification: Level,
    pub scopes: Vec<Sym>,
    pub delegation_chain: Vec<Sym>,
    /// A verified caller's JWT: its context comes from the claims, verified on every request (the
    /// fields above hold the names its claims use, interned at load, never trusted).
    pub token: Option<String>,
}
