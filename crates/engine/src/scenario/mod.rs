//! A loaded, checked scenario: every reference resolved to an index, every name interned.
//! This is what the engine runs; it holds no positions and no YAML.

pub use crate::codes::Outcome;
pub use crate::conditions::{
    Cond, DataTest, Subject, Test, TextTest, ValueTest, data_holds, lookup, text_holds, value_holds,
};
pub use crate::data::DataMap;
pub use crate::ids::{AgentIx, AliasIx, CallerIx, Level, ResultIx};
pub use crate::ix::ix32;
pub use crate::names::NameList;
pub use crate::template::{DataTemplate, Field, Part, Text};
// The rest of what a scenario is made of, named here so that the crates above read the whole
// model from this one module: its faults, token grants, push hosts, names and task states.
pub use crate::faults::{DeliveryPolicy, Fault, FaultKind, FaultTarget, Faults, Refusal, Window};
pub use crate::lifecycle::TaskState;
pub use crate::push::{HostPattern, REDACTED, Secret, check_push_url};
pub use crate::symbols::{Sym, Symbols};
pub use crate::token::{
    AGENT_LIFETIME_S, CardSigning, Grant, NESTED_LIFETIME_S, Tokens, VerifiedToken,
};

mod directory;
mod script;
mod steps;
pub use directory::{Directory, Ranked, Scores};
pub use script::*;
pub use steps::*;

pub const DEFAULT_LEVELS: [&str; 4] = ["public", "internal", "confidential", "restricted"];
pub const DEFAULT_EPOCH: &str = "2026-01-01T00:00:00Z";
pub const DEFAULT_TICK_MS: u64 = 1000;
pub const DEFAULT_MAX_DEPTH: u64 = 4;

#[derive(Debug)]
pub struct Scenario {
    pub name: String,
    pub policy: Policy,
    pub levels: Vec<String>,
    pub clock: Clock,
    pub agents: Vec<Agent>,
    pub callers: Vec<Caller>,
    pub steps: Vec<Step>,
    /// Alias names, indexed by [`AliasIx`], in the order the steps define them.
    pub aliases: crate::names::NameList,
    /// The 1-based step that defines each alias (32 bits: one per alias).
    pub alias_steps: Vec<u32>,
    pub expectations: Vec<Expectation>,
    /// Where each expectation is written (`file:line:column`), parallel to `expectations`, when
    /// some come from an imported scenario; empty when all are the file's own (found in its text).
    pub expectation_sites: Vec<String>,
    /// Which expectations are `always: true`, parallel to `expectations`.
    pub always: Vec<bool>,
    /// `golden: false`: `test` checks the expectations alone, with no golden file.
    pub golden: bool,
    /// The file's `faults` and `policy.push_delivery`.
    pub faults: crate::faults::Faults,
    /// `--set KEY=VALUE` overrides applied, as given (the report shows them).
    pub overrides: Vec<String>,
    /// The agents' discovery facts, flat, for fast ranking.
    pub directory: Directory,
    pub symbols: Symbols,
    /// With `keys`: what verifies callers' tokens and mints nested hops' (the edge's, handed in).
    pub tokens: Option<Box<dyn crate::token::Tokens>>,
    /// With `policy.card_signing_key`: what signs the cards `serve` and `card` issue.
    pub card_signer: Option<Box<dyn crate::token::CardSigning>>,
}

impl Scenario {
    /// Whether a real agent (`external:`) is in it: such a scenario runs at the edge that starts
    /// and drives it, not in process alone.
    pub fn has_real_agents(&self) -> bool {
        self.agents.iter().any(|a| a.external.is_some())
    }
}

/// An `expect:` entry, resolved.
#[derive(Debug)]
pub enum Expectation {
    Task(TaskExpectation),
    Denied {
        step: usize,
        codes: Vec<crate::codes::DenialCode>,
    },
    /// `{denied: pay/screen, codes}`: the denial of a nested delegation.
    DeniedPath {
        path: TaskPath,
        codes: Vec<crate::codes::DenialCode>,
    },
    /// `{ranking: STEP, agents}`: a `discover` step's ranking, agent names in order.
    Ranking {
        step: usize,
        agents: Vec<String>,
    },
    /// `{matrix: STEP, grid}`: a whole admission matrix, one list of codes per caller and agent,
    /// in the step's caller and agent order.
    Matrix {
        step: usize,
        grid: Vec<Vec<Vec<crate::codes::DenialCode>>>,
    },
    Pushes(Expected<TaskState>),
    Errors(Expected<crate::codes::ErrorCode>),
    /// `{deliveries: {task?, url?}, outcome?, count?}`: how many webhook delivery attempts match.
    Deliveries(DeliveriesExpectation),
    /// `{dead_letters: COUNT}`: how many notifications were dead-lettered.
    DeadLetters {
        count: ValueTest,
        given: Option<Box<TaskExpectation>>,
    },
    /// `{pushes: {task: T}, last: {state: S}}`: the last push for T carries one of the states.
    LastPush {
        task: TaskPath,
        states: Vec<TaskState>,
        given: Option<Box<TaskExpectation>>,
    },
    /// `{received: AGENT, from?, count?, text?, data?, nth?}`: what an agent was sent.
    Received(ReceivedExpectation),
}

/// `{received: …}`: the tasks created on `agent` (by `from` when given), in creation order;
/// their number must pass `count`, and the first message of each (or of the `nth`) the tests.
#[derive(Debug)]
pub struct ReceivedExpectation {
    pub agent: AgentIx,
    /// The caller id or agent name that sent them.
    pub from: Option<String>,
    pub count: Option<ValueTest>,
    pub text: Option<TextTest>,
    pub data: Vec<DataTest>,
    /// 1-based.
    pub nth: Option<usize>,
}

/// `{deliveries: …}`: the attempts of one task (by path) or all, to one URL or any, with one of
/// the outcomes or any; their number must pass `count`.
#[derive(Debug)]
pub struct DeliveriesExpectation {
    pub task: Option<TaskPath>,
    pub url: Option<String>,
    pub outcomes: Vec<crate::delivery::DeliveryOutcome>,
    pub count: ValueTest,
    /// `if`: the entry holds vacuously unless this task entry holds.
    pub given: Option<Box<TaskExpectation>>,
}

/// A task named by a path: an alias, then the `as` names of delegations (and, after a fan-out's
/// name, a 1-based member number), e.g. `pay/screen` or `pay/researchers/2`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskPath {
    pub alias: AliasIx,
    pub hops: Vec<PathHop>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathHop {
    /// A delegation or fan-out of the task's handler, by its `as`.
    Result(String),
    /// The Nth member (1-based) of the fan-out named just before.
    Member(usize),
}

/// A `task:` expectation: every test given must hold.
#[derive(Debug)]
pub struct TaskExpectation {
    pub path: TaskPath,
    /// `if`: the entry holds vacuously unless this one does.
    pub given: Option<Box<TaskExpectation>>,
    /// Any of these states.
    pub state: Option<Vec<TaskState>>,
    pub delegation_chain: Option<Vec<String>>,
    /// The status history's states, in order.
    pub history: Option<Vec<TaskState>>,
    /// Any of these outcomes.
    pub outcome: Option<Vec<Outcome>>,
    pub text: Option<TextTest>,
    pub data: Vec<DataTest>,
    pub attempt: Option<u32>,
}

/// A count, or the exact list in order.
#[derive(Debug)]
pub enum Expected<T> {
    Count(usize),
    List(Vec<T>),
}

#[derive(Debug)]
pub struct Policy {
    pub max_depth: u64,
    pub push_allowed_hosts: Vec<HostPattern>,
    /// `policy.authority`: the scopes a nested delegation carries (authority.md §1).
    pub authority: Authority,
    /// Whether the file has any `authority` key: only then does the report show `scopes` and
    /// `amplified` (the compatibility rule).
    pub authority_keys: bool,
    /// `serve --allow-loopback-push`: push URLs on 127.0.0.1 / localhost (http or https) are
    /// admitted without the allow-list. Never set by a scenario file.
    pub loopback_push: bool,
}

/// Which scopes a nested caller context carries (authority.md §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Authority {
    /// The delegating agent's own scopes: a service identity (the default, and the rule before
    /// authority was modelled).
    #[default]
    Own,
    /// The delegating agent's scopes ∩ the incoming context's: authority only shrinks.
    Attenuate,
}

#[derive(Debug, Clone, Copy)]
pub struct Clock {
    /// Milliseconds since the Unix epoch of tick 0.
    pub epoch_ms: i64,
    pub tick_ms: u64,
}

impl Clock {
    pub fn millis(&self, tick: u64) -> i64 {
        self.epoch_ms
            .saturating_add((tick.saturating_mul(self.tick_ms)).min(i64::MAX as u64) as i64)
    }
}

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
    /// The `as` names of the handler's delegations and fan-outs, indexed by [`ResultIx`].
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
