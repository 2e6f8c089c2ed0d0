//! A loaded, checked scenario: every reference resolved to an index, every name interned.
//! This is what the engine runs; it holds no positions and no YAML.

use crate::engine::lifecycle::TaskState;
use crate::engine::push::{HostPattern, Secret};
use crate::engine::symbols::{Sym, Symbols};

/// A `data` mapping: JSON keys in the scenario file's order.
pub type DataMap = serde_json::Map<String, serde_json::Value>;

pub type AgentIx = usize;
pub type CallerIx = usize;
pub type AliasIx = usize;
/// A classification level: its rank in `levels`, lowest first.
pub type Level = usize;

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
    pub aliases: Vec<String>,
    /// The 1-based step that defines each alias.
    pub alias_steps: Vec<usize>,
    pub expectations: Vec<Expectation>,
    /// The agents' discovery facts, flat, for fast ranking.
    pub directory: crate::engine::discovery::Directory,
    pub symbols: Symbols,
}

/// An `expect:` entry, resolved.
#[derive(Debug)]
pub enum Expectation {
    Task {
        alias: AliasIx,
        state: Option<TaskState>,
        delegation_chain: Option<Vec<String>>,
    },
    Denied {
        step: usize,
        codes: Vec<crate::engine::admission::DenialCode>,
    },
    Pushes(Expected<TaskState>),
    Errors(Expected<crate::engine::record::ErrorCode>),
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
    pub handler: Vec<HandlerStep>,
}

impl Agent {
    pub fn name(&self) -> &str {
        &self.card.name
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
}

#[derive(Debug)]
pub enum HandlerStep {
    Status(TaskState, Option<String>),
    Message(String),
    Artifact(ArtifactSpec),
    Delegate(Delegate),
}

#[derive(Debug)]
pub struct ArtifactSpec {
    pub name: Option<String>,
    pub text: Option<String>,
    pub data: Option<DataMap>,
}

#[derive(Debug)]
pub struct Delegate {
    pub to: Target,
    pub text: String,
    pub on_error: OnError,
}

/// What a `delegate` step does when the delegation does not succeed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum OnError {
    #[default]
    Fail,
    Continue,
}

#[derive(Debug)]
pub enum Target {
    Agent(AgentIx),
    /// Query tags, interned, sorted and without duplicates.
    Discover(Vec<Sym>),
}

#[derive(Debug)]
pub struct MessageSpec {
    pub text: String,
    pub data: Option<DataMap>,
}

#[derive(Debug)]
pub struct PushSpec {
    pub url: String,
    pub token: Secret,
}

#[derive(Debug)]
pub enum TaskRef {
    Alias(AliasIx),
    Id(String),
}

#[derive(Debug)]
pub enum ContextSpec {
    Fresh,
    Literal(String),
    Of(AliasIx),
}

#[derive(Debug)]
pub enum Step {
    Discover {
        caller: CallerIx,
        tags: Vec<Sym>,
        limit: Option<usize>,
    },
    Send(Send),
    Reply {
        caller: CallerIx,
        task: TaskRef,
        message: MessageSpec,
    },
    SetPushConfig {
        caller: CallerIx,
        task: TaskRef,
        agent: Option<AgentIx>,
        push: PushSpec,
    },
    Cancel {
        caller: CallerIx,
        task: TaskRef,
    },
    Get {
        caller: CallerIx,
        task: TaskRef,
    },
}

#[derive(Debug)]
pub struct Send {
    /// `stream` rather than `send`: the same code path, reported with its events.
    pub stream: bool,
    pub caller: CallerIx,
    pub to: Target,
    pub message: MessageSpec,
    pub alias: Option<AliasIx>,
    pub push: Option<PushSpec>,
    pub context: ContextSpec,
}

impl Step {
    pub fn op(&self) -> &'static str {
        match self {
            Step::Discover { .. } => "discover",
            Step::Send(s) if s.stream => "stream",
            Step::Send(_) => "send",
            Step::Reply { .. } => "reply",
            Step::SetPushConfig { .. } => "set_push_config",
            Step::Cancel { .. } => "cancel",
            Step::Get { .. } => "get",
        }
    }

    pub fn caller(&self) -> CallerIx {
        match self {
            Step::Discover { caller, .. }
            | Step::Reply { caller, .. }
            | Step::SetPushConfig { caller, .. }
            | Step::Cancel { caller, .. }
            | Step::Get { caller, .. } => *caller,
            Step::Send(s) => s.caller,
        }
    }
}
