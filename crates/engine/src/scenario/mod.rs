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

mod agents;
mod directory;
mod policy;
mod script;
mod steps;
pub use agents::{Agent, Caller, Card, External, Skill};
pub use directory::{Directory, Ranked, Scores};
pub use policy::{Authority, Clock, Policy};
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
