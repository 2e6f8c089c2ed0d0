//! What a task is created from: the one argument of `World::create_task`, filled in by the
//! driver for a caller's send and by a delegation for its child.

use std::borrow::Cow;

use crate::chain::ChainRef;
use crate::data::DataMap;
use crate::ids::{AgentIx, CallerIx, DelegationIx, Level, TaskIx};
use crate::symbols::Sym;
use crate::task::{Context, Owner};

/// What a new task starts from. Its chain is built by the server from the caller's verified
/// context before this is filled in; nothing else can set it.
pub(crate) struct NewTask<'s> {
    pub agent: AgentIx,
    pub owner: Owner,
    pub delegation_chain: ChainRef,
    pub classification: Level,
    pub parent: Option<TaskIx>,
    /// `None`: mint a fresh `ctx-N`.
    pub context: Option<Context<'s>>,
    pub text: Cow<'s, str>,
    pub data: Option<Cow<'s, DataMap>>,
    /// The delegation creating it, and its member number there.
    pub via: Option<(DelegationIx, usize)>,
    pub attempt: u32,
    /// The scopes of the caller context admission checked.
    pub scopes: Cow<'s, [Sym]>,
    /// The driver caller at the root of its chain.
    pub origin: CallerIx,
    /// Created by a driver `stream` step: its call's events are the step's result.
    pub stream: bool,
}
