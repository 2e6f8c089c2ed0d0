//! A task as a server stores it: a small mutable header over append-only logs.

use std::borrow::Cow;
use std::fmt;

use smallvec::SmallVec;

use crate::chain::ChainRef;
use crate::data::DataMap;
pub use crate::ids::TaskIx;
use crate::ids::{AgentIx, CallerIx, Level};
use crate::ix::Ix;
use crate::lifecycle::TaskState;
use crate::push::Secret;
use crate::scenario::ArtifactSpec;
pub use crate::shared::{MessageText, Scopes};
use crate::symbols::Sym;

pub fn task_id(ix: TaskIx) -> String {
    format!("task-{}", ix + 1)
}

/// The inverse of [`task_id`], for literal ids in a scenario.
pub fn parse_task_id(id: &str) -> Option<TaskIx> {
    let n: usize = id.strip_prefix("task-")?.parse().ok()?;
    if n == 0 || id != format!("task-{n}") {
        None
    } else {
        Some(n - 1)
    }
}

/// A context id: minted by the server (`ctx-N`) or chosen by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context<'s> {
    Minted(u64),
    Named(&'s str),
}

impl fmt::Display for Context<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Context::Minted(n) => write!(f, "ctx-{n}"),
            Context::Named(s) => f.write_str(s),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Agent,
}

/// A message stored in the task (A2A history): the caller's, replies, status messages, `message:`.
/// 24 bytes: a large run keeps about three per task.
#[derive(Debug, Clone)]
pub struct Message<'s> {
    pub text: MessageText<'s>,
    /// The N of `msg-N` below [`AGENT`], which marks an agent's message.
    id_role: u32,
    /// Its data: an index into the world's message data (`World::message_data`), as most
    /// messages have none.
    pub(crate) data: Option<Ix>,
}

/// The bit of `Message::id_role` that says the agent sent it.
const AGENT: u32 = 1 << 31;

impl<'s> Message<'s> {
    /// A message whose data (if any) is at `data` in the world's message data.
    pub fn new(id: u64, role: Role, text: Cow<'s, str>, data: Option<Ix>) -> Self {
        // Each message takes memory: a run ends long before its 2^31st.
        let id = u32::try_from(id)
            .ok()
            .filter(|&id| id < AGENT)
            .expect("a run mints fewer than 2^31 messages");
        Message {
            text: MessageText::from(text),
            id_role: if role == Role::Agent { id | AGENT } else { id },
            data,
        }
    }

    /// The N of `msg-N`.
    pub fn id(&self) -> u64 {
        u64::from(self.id_role & !AGENT)
    }

    pub fn role(&self) -> Role {
        if self.id_role & AGENT == 0 {
            Role::User
        } else {
            Role::Agent
        }
    }
}

/// One status change: the task's status history is a list of these, never rewritten.
#[derive(Debug, Clone, Copy)]
pub struct StatusEntry {
    pub tick: u64,
    pub state: TaskState,
    /// See [`StatusEntry::message`]: an entry is 16 bytes.
    msg: Option<Ix>,
}

impl StatusEntry {
    pub fn new(tick: u64, state: TaskState, message: Option<usize>) -> StatusEntry {
        StatusEntry {
            tick,
            state,
            msg: message.map(Ix::new),
        }
    }

    /// Index into the task's `messages`.
    pub fn message(&self) -> Option<usize> {
        self.msg.map(Ix::get)
    }
}

#[derive(Debug, Clone)]
pub struct Artifact<'s> {
    /// The N of `artifact-N`.
    pub id: u64,
    pub name: Option<&'s str>,
    /// See [`Artifact::text`].
    text: MessageText<'s>,
    /// Absent, or a non-empty mapping.
    pub data: Option<DataRef<'s>>,
}

/// An artifact's data: the handler's own mapping, borrowed (the common case), or one merged from
/// results. Two words, where a `Cow` of a mapping is ten and every task kept room for one inline.
#[derive(Debug, Clone)]
pub enum DataRef<'s> {
    Borrowed(&'s DataMap),
    Owned(Box<DataMap>),
}

impl std::ops::Deref for DataRef<'_> {
    type Target = DataMap;

    fn deref(&self) -> &DataMap {
        match self {
            DataRef::Borrowed(d) => d,
            DataRef::Owned(d) => d,
        }
    }
}

impl<'s> From<Cow<'s, DataMap>> for DataRef<'s> {
    fn from(data: Cow<'s, DataMap>) -> Self {
        match data {
            Cow::Borrowed(d) => DataRef::Borrowed(d),
            Cow::Owned(d) => DataRef::Owned(Box::new(d)),
        }
    }
}

impl<'s> DataRef<'s> {
    /// As a `Cow`, borrowing for as long as the scenario when it is the handler's own.
    pub fn to_cow(&self) -> Cow<'s, DataMap> {
        match self {
            DataRef::Borrowed(d) => Cow::Borrowed(d),
            DataRef::Owned(d) => Cow::Owned((**d).clone()),
        }
    }
}

impl serde::Serialize for DataRef<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'s> Artifact<'s> {
    pub fn new(
        id: u64,
        name: Option<&'s str>,
        text: Option<Cow<'s, str>>,
        data: Option<DataRef<'s>>,
    ) -> Self {
        Artifact {
            id,
            name,
            text: Artifact::text_or_empty(text),
            data,
        }
    }

    /// An absent text is a borrowed empty one: an `Option` of a two-word text is three words. A
    /// text that is there but empty (a template can render to nothing) is owned, so it stays
    /// apart from an absent one.
    fn text_or_empty(text: Option<Cow<'s, str>>) -> MessageText<'s> {
        match text {
            None => MessageText::Borrowed(""),
            Some(t) if t.is_empty() => MessageText::Owned(Box::default()),
            Some(t) => MessageText::from(t),
        }
    }

    /// Its text, if it has one (a rendered template can leave it empty).
    pub fn text(&self) -> Option<&MessageText<'s>> {
        match &self.text {
            MessageText::Borrowed("") => None,
            text => Some(text),
        }
    }

    /// An artifact as the handler script wrote it, its text rendered.
    pub fn scripted(id: u64, spec: &'s ArtifactSpec, text: Option<Cow<'s, str>>) -> Self {
        Artifact::new(
            id,
            spec.name.as_deref(),
            text,
            spec.data.as_ref().map(DataRef::Borrowed),
        )
    }
}

/// Which branch of a `when` a task took, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// 1-based pre-order position of the `when` in the handler script.
    pub handler_step: usize,
    pub branch: Branch,
    pub tick: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Branch {
    Then,
    Else,
}

impl Branch {
    pub fn as_str(self) -> &'static str {
        match self {
            Branch::Then => "then",
            Branch::Else => "else",
        }
    }
}

/// Who created a task, and so who alone may see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    pub id: Sym,
    pub tenant: Sym,
}

#[derive(Debug)]
pub struct PushConfig {
    /// The URL as the parser serialises it.
    pub url: usize,
    pub token: Secret,
}

#[derive(Debug)]
pub struct Task<'s> {
    pub context: Context<'s>,
    /// See [`Task::agent`].
    pub(crate) agent: u32,
    pub owner: Owner,
    pub delegation_chain: ChainRef,
    /// See [`Task::parent`]: indices and levels are kept in 32 bits.
    pub(crate) parent: Option<Ix>,
    /// See [`Task::classification`].
    pub(crate) classification: u32,
    pub state: TaskState,
    /// The status history: append-only, stored inline while short (the common path of
    /// submitted → working → completed allocates nothing). Three inline, not four: a fourth
    /// change usually brings a fifth (a pause and its answer), which spilled anyway.
    pub history: SmallVec<[StatusEntry; 3]>,
    pub messages: SmallVec<[Message<'s>; 3]>,
    pub artifacts: SmallVec<[Artifact<'s>; 1]>,
    /// Its push config, `when` branches and amplified scopes, boxed together: most tasks have
    /// none of them (see [`Task::push`], [`Task::decisions`], [`Task::amplified`]).
    pub(crate) extras: Option<Box<TaskExtras>>,
    /// Which attempt of its parent's delegation this task is (1 unless retried).
    pub attempt: u32,
    /// Created by a non-blocking send (`return_immediately: true`).
    pub return_immediately: bool,
    /// The scopes of the caller context that created it: the ones admission checked.
    pub scopes: Scopes<'s>,
    /// See [`Task::origin`].
    pub(crate) origin: u32,
}

/// The rarer parts of a [`Task`].
#[derive(Debug, Default)]
pub(crate) struct TaskExtras {
    push: Option<PushConfig>,
    decisions: Vec<Decision>,
    amplified: Vec<Sym>,
}

impl TaskExtras {
    /// Extras holding only these amplified scopes, if there are any.
    pub(crate) fn amplified(amplified: Vec<Sym>) -> Option<Box<TaskExtras>> {
        (!amplified.is_empty()).then(|| {
            Box::new(TaskExtras {
                amplified,
                ..TaskExtras::default()
            })
        })
    }
}

impl Task<'_> {
    fn extras_mut(&mut self) -> &mut TaskExtras {
        self.extras.get_or_insert_with(Box::default)
    }

    /// Its push config: at most one, a new one replacing the old.
    pub fn push(&self) -> Option<&PushConfig> {
        self.extras.as_ref().and_then(|e| e.push.as_ref())
    }

    pub fn set_push(&mut self, push: Option<PushConfig>) {
        if push.is_some() || self.extras.is_some() {
            self.extras_mut().push = push;
        }
    }

    /// The `when` branches its handler took, in order.
    pub fn decisions(&self) -> &[Decision] {
        self.extras.as_ref().map_or(&[], |e| &e.decisions)
    }

    pub fn decisions_mut(&mut self) -> &mut Vec<Decision> {
        &mut self.extras_mut().decisions
    }

    /// The agent's required scopes that `origin` does not hold: admitted only through an `own`
    /// hop (authority.md §2). Usually empty.
    pub fn amplified(&self) -> &[Sym] {
        self.extras.as_ref().map_or(&[], |e| &e.amplified)
    }

    /// The task whose handler created it, if one did.
    pub fn parent(&self) -> Option<TaskIx> {
        self.parent.map(Ix::get)
    }

    /// The classification of the caller's data; it travels with every nested delegation.
    pub fn classification(&self) -> Level {
        self.classification as usize
    }

    /// The driver caller at the root of its chain.
    pub fn origin(&self) -> CallerIx {
        self.origin as usize
    }

    /// The agent that holds it.
    pub fn agent(&self) -> AgentIx {
        self.agent as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_data_reads_and_serialises_as_the_mapping_it_holds() {
        let mut map = DataMap::new();
        map.insert("k".into(), serde_json::json!([1, "two"]));
        let borrowed = DataRef::from(Cow::Borrowed(&map));
        let owned = DataRef::from(Cow::Owned(map.clone()));
        assert!(matches!(borrowed, DataRef::Borrowed(_)));
        assert!(matches!(owned, DataRef::Owned(_)));
        for d in [&borrowed, &owned] {
            assert_eq!(**d, map);
            assert_eq!(
                serde_json::to_value(d).unwrap(),
                serde_json::json!({"k": [1, "two"]})
            );
            assert_eq!(*d.to_cow(), map);
        }
        assert!(matches!(borrowed.to_cow(), Cow::Borrowed(_)));
        assert_eq!(std::mem::size_of::<Option<DataRef>>(), 16);
    }

    #[test]
    fn a_message_keeps_its_id_and_role() {
        let m = Message::new(7, Role::Agent, Cow::Borrowed("x"), None);
        assert_eq!((m.id(), m.role()), (7, Role::Agent));
        let m = Message::new((1 << 31) - 1, Role::User, Cow::Borrowed("x"), None);
        assert_eq!((m.id(), m.role()), ((1 << 31) - 1, Role::User));
    }

    #[test]
    fn a_tasks_rarer_parts_are_boxed_only_once_it_has_one() {
        assert!(TaskExtras::amplified(Vec::new()).is_none());
        let amplified = TaskExtras::amplified(vec![4]).expect("one scope");
        assert_eq!(amplified.amplified, [4]);
        assert!(amplified.push.is_none() && amplified.decisions.is_empty());
    }

    #[test]
    fn an_artifact_without_text_reads_as_none_and_one_with_text_as_its_text() {
        assert!(Artifact::new(1, None, None, None).text().is_none());
        let owned = Artifact::new(2, None, Some(Cow::Owned("rendered".into())), None);
        assert_eq!(owned.text().map(|t| &**t), Some("rendered"));
        let borrowed = Artifact::new(3, Some("n"), Some(Cow::Borrowed("scripted")), None);
        assert_eq!(borrowed.text().map(|t| &**t), Some("scripted"));
        // A template that rendered to nothing still leaves a text, whichever way it came.
        for empty in [Cow::Borrowed(""), Cow::Owned(String::new())] {
            let a = Artifact::new(4, None, Some(empty), None);
            assert_eq!(a.text().map(|t| &**t), Some(""));
        }
    }

    #[test]
    fn a_task_stays_compact() {
        // One per task: a 100,000-step run keeps about 61,000. Three messages inline (the request,
        // a progress note, the result: nine tasks in ten have at most three) cost 72 bytes here
        // and save one or two heap blocks of 112 and 208 bytes, and their allocations, per task.
        assert!(
            std::mem::size_of::<Task>() <= 280,
            "{}",
            std::mem::size_of::<Task>()
        );
        assert!(
            std::mem::size_of::<Artifact>() <= 56,
            "{}",
            std::mem::size_of::<Artifact>()
        );
        assert_eq!(std::mem::size_of::<StatusEntry>(), 16);
        assert_eq!(std::mem::size_of::<Message>(), 24);
    }
}
