//! What the loader keeps while it reads a file: its problems so far, the names references may
//! use, and each agent's named results.

use std::collections::HashMap;
use std::path::Path;

use engine::scenario::*;

use crate::diagnostic::Diagnostic;
use crate::file::Name;
use crate::problem::Problem;
use crate::yaml::Seg;

pub(super) struct Loader<'b> {
    pub(super) problems: Vec<Problem>,
    /// The handler being read comes from a file with `templates: true`.
    pub(super) templates: bool,
    pub(super) symbols: Symbols,
    pub(super) base: &'b Path,
    /// Each agent's named results, for `expect` paths.
    pub(super) results: Vec<Vec<NamedResult>>,
    /// Problems located in other files (a JWKS, a private JWK): their own line and column.
    pub(super) extra: Vec<Diagnostic>,
    /// Why a real agent's `{token}` cannot be filled in (no `keys`, or no platform key to sign
    /// it with); `None` when it can.
    pub(super) no_agent_token: Option<&'static str>,
}

impl Loader<'_> {
    pub(super) fn problem(&mut self, path: Vec<Seg>, message: impl Into<String>) {
        self.problems.push(Problem {
            path,
            message: message.into(),
        });
    }
}

/// A table of names. Looked up, never walked in its order (a hint walks it for the closest name,
/// ties broken by the name), so a fast hash with a fixed seed changes nothing but the time:
/// SipHash was a third of converting a large file's steps.
pub(super) type Table<K> = HashMap<K, usize, foldhash::fast::FixedState>;

/// Names visible to references, built up as the file is read.
pub(super) struct Names {
    pub(super) levels: Vec<String>,
    pub(super) agents: Table<String>,
    pub(super) callers: Table<String>,
    /// Keyed by the file's own names: short ones are stored inline.
    pub(super) aliases: Table<Name>,
}

impl Names {
    pub(super) fn new(levels: &[String]) -> Self {
        Names {
            levels: levels.to_vec(),
            agents: Table::default(),
            callers: Table::default(),
            aliases: Table::default(),
        }
    }
}

#[derive(Debug)]
pub(super) struct NamedResult {
    pub name: String,
    pub kind: ResultKind,
    /// A fan-out's members as its `to` list names them (`None`: a discovery), for `GROUP.NAME`.
    pub members: Vec<Option<String>>,
    /// The members' own names (`{agent: NAME, as: MEMBER}`), which `GROUP.MEMBER` tries first.
    pub member_as: Vec<Option<String>>,
}

#[derive(Debug)]
pub(super) enum ResultKind {
    /// A delegation, to this agent (`None`: found by discovery).
    Delegate(Option<AgentIx>),
    /// A fan-out: its members' agents when it lists them (`None`: a ranking, members unknown).
    FanOut(Option<Vec<Option<AgentIx>>>),
}

impl ResultKind {
    pub fn is_group(&self) -> bool {
        matches!(self, ResultKind::FanOut(_))
    }
}
