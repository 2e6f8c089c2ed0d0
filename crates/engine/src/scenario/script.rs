//! Handler scripts as the engine runs them: each agent's steps, its delegations and fan-outs,
//! their targets and messages.

use crate::lifecycle::TaskState;
use crate::symbols::Sym;

use super::*;

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
