//! Who is asking: the context admission checks and discovery filters by.

use std::borrow::Cow;

use crate::chain::ChainRef;
use crate::ids::Level;
use crate::symbols::Sym;

/// A verified caller context: who is asking, for which tenant, with what data and scopes.
/// For a driver step it comes from the scenario's `callers`; for a nested delegation the server
/// derives it from the running task.
#[derive(Debug, Clone)]
pub struct CallerContext<'a> {
    pub agent_id: Sym,
    pub tenant: Sym,
    pub classification: Level,
    /// Borrowed from the file, except where attenuation narrowed them (authority.md §1).
    pub scopes: Cow<'a, [Sym]>,
    pub delegation_chain: ChainRef,
}
