//! A loaded, checked scenario: every reference resolved to an index, every name interned.
//! This is what the engine runs; it holds no positions and no YAML.

pub use crate::engine::conditions::{Cond, DataTest, Subject, Test, TextTest, ValueTest};
pub use crate::engine::delegation::Outcome;
use crate::engine::ix::{Ix, ix32};
use crate::engine::lifecycle::TaskState;
use crate::engine::push::{HostPattern, Secret};
use crate::engine::symbols::{Sym, Symbols};
pub use crate::engine::template::Text;

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
    pub aliases: crate::engine::names::NameList,
    /// The 1-based step that defines each alias (32 bits: one per alias).
    pub alias_steps: Vec<u32>,
    pub expectations: Vec<Expectation>,
    /// Which expectations are `always: true`, parallel to `expectations`.
    pub always: Vec<bool>,
    /// `golden: false`: `test` checks the expectations alone, with no golden file.
    pub golden: bool,
    /// The file's `faults` and `policy.push_delivery`.
    pub faults: crate::engine::faults::Faults,
    /// `--set KEY=VALUE` overrides applied, as given (the report shows them).
    pub overrides: Vec<String>,
    /// The agents' discovery facts, flat, for fast ranking.
    pub directory: crate::engine::discovery::Directory,
    pub symbols: Symbols,
    /// With `keys`: what verifies callers' tokens and mints nested hops' (the edge's, handed in).
    pub tokens: Option<Box<dyn crate::engine::token::Tokens>>,
}

/// An `expect:` entry, resolved.
#[derive(Debug)]
pub enum Expectation {
    Task(TaskExpectation),
    Denied {
        step: usize,
        codes: Vec<crate::engine::admission::DenialCode>,
    },
    /// `{denied: pay/screen, codes}`: the denial of a nested delegation.
    DeniedPath {
        path: TaskPath,
        codes: Vec<crate::engine::admission::DenialCode>,
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
        grid: Vec<Vec<Vec<crate::engine::admission::DenialCode>>>,
    },
    Pushes(Expected<TaskState>),
    Errors(Expected<crate::engine::record::ErrorCode>),
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

/// Index of a named result (`as`) among its agent's [`Agent::results`].
pub type ResultIx = usize;

#[derive(Debug)]
pub enum HandlerStep {
    Status(TaskState, Option<Text>),
    Message(Text),
    Artifact(ArtifactSpec),
    Delegate(Delegate),
    FanOut(FanOut),
    /// `wait: N`: let N ticks pass for this task.
    Wait(u64),
    When(When),
}

#[derive(Debug)]
pub struct ArtifactSpec {
    pub name: Option<String>,
    pub text: Option<Text>,
    pub data: Option<DataMap>,
    /// `from`: made of these results (then `text` and `data` are absent).
    pub from: Vec<ResultIx>,
}

#[derive(Debug)]
pub struct Delegate {
    pub to: Target,
    pub message: MessageSpec,
    /// `as`: where the outcome is kept for `when`, `artifact: {from}` and `expect` paths.
    pub result: Option<ResultIx>,
    pub on_error: OnError,
    pub timeout: Option<u64>,
    pub retry: Retry,
    pub on_pause: OnPause,
    /// Scripted answers, one each time the child pauses, in order.
    pub replies: Vec<MessageSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// Total attempts, at least 1.
    pub attempts: u32,
    /// Ticks before attempt 2; doubled before each later one.
    pub backoff: u64,
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            attempts: 1,
            backoff: 1,
        }
    }
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum OnPause {
    /// The paused child is canceled; the outcome is the pause state.
    #[default]
    Cancel,
    /// The delegating task takes the pause itself and forwards its owner's reply down.
    Escalate,
}

#[derive(Debug)]
pub struct FanOut {
    pub to: FanTargets,
    pub message: MessageSpec,
    pub result: Option<ResultIx>,
    pub join: Join,
    pub timeout: Option<u64>,
    pub on_error: OnError,
}

#[derive(Debug)]
pub enum FanTargets {
    /// Each entry its own member: an agent, or the top card of a discovery.
    List(Vec<Target>),
    /// Every candidate of a discovery ranking, in rank order, up to `limit`.
    Ranking {
        tags: Vec<Sym>,
        limit: Option<usize>,
    },
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    #[default]
    All,
    Any,
}

#[derive(Debug)]
pub struct When {
    pub cond: Cond,
    pub then: Vec<HandlerStep>,
    pub otherwise: Vec<HandlerStep>,
}

/// What a `delegate` step does when the delegation does not succeed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum OnError {
    #[default]
    Fail,
    Continue,
}

#[derive(Debug, Clone)]
pub enum Target {
    Agent(AgentIx),
    /// Query tags, interned, sorted and without duplicates.
    Discover(Box<[Sym]>),
}

#[derive(Debug)]
pub struct MessageSpec {
    pub text: Text,
    /// Boxed: most messages have none, and every step carried its room (72 bytes).
    pub data: Option<Box<DataMap>>,
}

#[derive(Debug)]
pub struct PushSpec {
    pub url: String,
    pub token: Secret,
}

#[derive(Debug)]
pub enum TaskRef {
    Alias(AliasIx),
    Id(Box<str>),
}

#[derive(Debug)]
pub enum ContextSpec {
    Fresh,
    Literal(Box<str>),
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
        /// Boxed: a step is as large as its largest kind, and this one is rare.
        push: Box<PushSpec>,
    },
    Cancel {
        caller: CallerIx,
        task: TaskRef,
    },
    Get {
        caller: CallerIx,
        task: TaskRef,
    },
    Wait(WaitSpec),
    /// `matrix: {callers, agents}`: admission for every pair, creating nothing.
    Matrix {
        callers: Vec<CallerIx>,
        agents: Vec<AgentIx>,
    },
}

#[derive(Debug)]
pub enum WaitSpec {
    /// Let N ticks pass, running whatever is due.
    Ticks(u64),
    /// Run until this alias's task resolves (a pause or a terminal state).
    Task(AliasIx),
}

/// A `send` or `stream` step, as [`SendParts`] gives it, stored in 56 bytes: a large file is
/// mostly these.
#[derive(Debug)]
pub struct Send {
    pub to: Target,
    pub text: Text,
    /// Its message's data, push config and context, boxed when it has any: most sends have none.
    extras: Option<Box<SendExtras>>,
    caller: u32,
    alias: Option<Ix>,
    stream: bool,
    return_immediately: bool,
}

#[derive(Debug)]
struct SendExtras {
    data: Option<Box<DataMap>>,
    push: Option<PushSpec>,
    context: ContextSpec,
}

/// A [`Send`]'s fields, to build one from.
pub struct SendParts {
    pub stream: bool,
    pub caller: CallerIx,
    pub to: Target,
    pub message: MessageSpec,
    pub alias: Option<AliasIx>,
    pub push: Option<PushSpec>,
    pub context: ContextSpec,
    pub return_immediately: bool,
}

impl From<SendParts> for Send {
    fn from(p: SendParts) -> Self {
        let MessageSpec { text, data } = p.message;
        let extras = (data.is_some()
            || p.push.is_some()
            || !matches!(p.context, ContextSpec::Fresh))
        .then(|| {
            Box::new(SendExtras {
                data,
                push: p.push,
                context: p.context,
            })
        });
        Send {
            to: p.to,
            text,
            extras,
            caller: ix32(p.caller),
            alias: p.alias.map(Ix::new),
            stream: p.stream,
            return_immediately: p.return_immediately,
        }
    }
}

impl Send {
    pub fn caller(&self) -> CallerIx {
        self.caller as usize
    }

    /// `stream` rather than `send`: the same code path, reported with its events.
    pub fn stream(&self) -> bool {
        self.stream
    }

    /// `return_immediately: true` (send only): the step ends once the task exists.
    pub fn return_immediately(&self) -> bool {
        self.return_immediately
    }

    /// Its message's data: absent, or a non-empty mapping.
    pub fn data(&self) -> Option<&DataMap> {
        self.extras.as_ref().and_then(|e| e.data.as_deref())
    }

    /// The alias (`as`) it defines.
    pub fn alias(&self) -> Option<AliasIx> {
        self.alias.map(Ix::get)
    }

    pub fn push(&self) -> Option<&PushSpec> {
        self.extras.as_ref().and_then(|e| e.push.as_ref())
    }

    pub fn context(&self) -> &ContextSpec {
        self.extras
            .as_ref()
            .map_or(&ContextSpec::Fresh, |e| &e.context)
    }
}

impl Step {
    pub fn op(&self) -> &'static str {
        match self {
            Step::Discover { .. } => "discover",
            Step::Send(s) if s.stream() => "stream",
            Step::Send(_) => "send",
            Step::Reply { .. } => "reply",
            Step::SetPushConfig { .. } => "set_push_config",
            Step::Cancel { .. } => "cancel",
            Step::Get { .. } => "get",
            Step::Wait(_) => "wait",
            Step::Matrix { .. } => "matrix",
        }
    }

    /// The step's caller; `wait` has none.
    pub fn caller(&self) -> Option<CallerIx> {
        match self {
            Step::Discover { caller, .. }
            | Step::Reply { caller, .. }
            | Step::SetPushConfig { caller, .. }
            | Step::Cancel { caller, .. }
            | Step::Get { caller, .. } => Some(*caller),
            Step::Send(s) => Some(s.caller()),
            Step::Wait(_) | Step::Matrix { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_stays_compact() {
        // One per step of the file: a message's data, a send's push config and context and a
        // push config step's config are boxed (few steps have them), and indices are 32 bits:
        // 224 bytes, then 120, then 64, now 56.
        assert!(
            std::mem::size_of::<Step>() <= 56,
            "{}",
            std::mem::size_of::<Step>()
        );
    }

    fn send(push: Option<PushSpec>, context: ContextSpec) -> Send {
        Send::from(SendParts {
            stream: true,
            caller: 3,
            to: Target::Agent(1),
            message: MessageSpec {
                text: Text::from("hi"),
                data: None,
            },
            alias: Some(70_000),
            push,
            context,
            return_immediately: false,
        })
    }

    #[test]
    fn a_send_gives_back_the_parts_it_was_built_from() {
        let plain = send(None, ContextSpec::Fresh);
        assert!(plain.extras.is_none(), "nothing to box");
        assert_eq!((plain.caller(), plain.alias()), (3, Some(70_000)));
        assert!(plain.push().is_none());
        assert!(matches!(plain.context(), ContextSpec::Fresh));
        assert!(plain.stream() && !plain.return_immediately());

        let pushed = send(
            Some(PushSpec {
                url: "https://hooks.example.com/a".into(),
                token: Secret::new("t"),
            }),
            ContextSpec::Fresh,
        );
        assert_eq!(
            pushed.push().map(|p| p.url.as_str()),
            Some("https://hooks.example.com/a")
        );
        assert!(matches!(pushed.context(), ContextSpec::Fresh));

        let named = send(None, ContextSpec::Literal("case-1".into()));
        assert!(named.push().is_none());
        assert!(matches!(named.context(), ContextSpec::Literal(c) if &**c == "case-1"));
        let of = send(None, ContextSpec::Of(4));
        assert!(matches!(of.context(), ContextSpec::Of(4)));
        assert!(of.data().is_none());

        let mut data = DataMap::new();
        data.insert("amount".into(), 12.into());
        let with_data = Send::from(SendParts {
            stream: false,
            caller: 0,
            to: Target::Agent(0),
            message: MessageSpec {
                text: Text::from("pay"),
                data: Some(Box::new(data)),
            },
            alias: None,
            push: None,
            context: ContextSpec::Fresh,
            return_immediately: true,
        });
        assert_eq!(
            with_data.data().map(|d| d["amount"].clone()),
            Some(12.into())
        );
        assert_eq!(with_data.text.as_str(), "pay");
        assert!(with_data.return_immediately() && !with_data.stream());
        assert!(with_data.push().is_none());
        assert!(matches!(with_data.context(), ContextSpec::Fresh));
    }
}
