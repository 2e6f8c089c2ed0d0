//! The driver's steps: what the scenario's callers do, in order. A large file is mostly sends.

use crate::data::DataMap;
use crate::ids::{AgentIx, AliasIx, CallerIx};
use crate::ix::{Ix, ix32};
use crate::push::Secret;
use crate::symbols::Sym;
use crate::template::Text;

use super::script::{MessageSpec, Target};

#[derive(Debug)]
pub struct PushSpec {
    pub url: String,
    pub token: Secret,
    /// Whether a config without a token is refused (`missing_token`): a scenario's own configs
    /// need one; a served client's may go without, as A2A's types allow.
    pub token_required: bool,
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
        let (text, data) = p.message.into_parts();
        let data = data.map(Box::new);
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

    /// Its message's data, to rewrite in place (a request read from the wire, made canonical).
    pub fn data_mut(&mut self) -> Option<&mut DataMap> {
        self.extras.as_mut().and_then(|e| e.data.as_deref_mut())
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
            message: MessageSpec::new(Text::from("hi"), None),
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
                token_required: true,
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
            message: MessageSpec::new(Text::from("pay"), Some(data)),
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
