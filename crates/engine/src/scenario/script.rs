//! Handler scripts as the engine runs them: each agent's steps, its delegations and fan-outs,
//! their targets and messages.

use crate::conditions::Cond;
use crate::data::DataMap;
use crate::ids::{AgentIx, ResultIx};
use crate::lifecycle::TaskState;
use crate::symbols::Sym;
use crate::template::Text;

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
    /// The templates among the data's strings (`templates: true`).
    pub data_template: Option<crate::template::DataTemplate>,
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
    data: Option<Box<MessageData>>,
}

/// A message's data as written, and the templates among its strings (`templates: true`).
#[derive(Debug)]
struct MessageData {
    map: DataMap,
    template: Option<crate::template::DataTemplate>,
}

impl MessageSpec {
    /// A message of this text and data.
    pub fn new(text: Text, data: Option<DataMap>) -> MessageSpec {
        MessageSpec {
            text,
            data: data.map(|map| {
                Box::new(MessageData {
                    map,
                    template: None,
                })
            }),
        }
    }

    /// With the templates among its data's strings.
    pub fn with_template(mut self, template: Option<crate::template::DataTemplate>) -> Self {
        if let Some(d) = &mut self.data {
            d.template = template.filter(|t| !t.slots.is_empty());
        }
        self
    }

    /// Its text and its data as written.
    pub fn into_parts(self) -> (Text, Option<DataMap>) {
        (self.text, self.data.map(|d| d.map))
    }

    /// Its data as written.
    pub fn data(&self) -> Option<&DataMap> {
        self.data.as_deref().map(|d| &d.map)
    }

    /// The templates among its data's strings, if any.
    pub fn template(&self) -> Option<&crate::template::DataTemplate> {
        self.data.as_deref().and_then(|d| d.template.as_ref())
    }
}
