//! Names a reference may use, built up as the file is read (classification levels, agents,
//! callers, step aliases), and resolving one: an unknown name is a problem with a hint at the
//! closest. Also a step's or delegation's `to`, and tags and scopes interned as symbols.

use crate::diagnostic::with_hint;
use crate::file::TargetFile;
use crate::yaml::Seg;
use engine::scenario::*;

use super::state::{Loader, Names, Table};
use super::{Child, Place, child};

impl Loader<'_> {
    pub(super) fn target(&mut self, at: &[Seg], to: TargetFile, names: &Names) -> Target {
        match to {
            TargetFile::Named(inner, _) => {
                self.problem(
                    [child(at, "to"), vec![Seg::from("as")]].concat(),
                    "`as` inside `to` names a fan-out's member; a delegation names its result with its own `as`",
                );
                self.target(at, *inner, names)
            }
            TargetFile::Agent(name) => Target::Agent(self.agent_ref(Child(at, "to"), &name, names)),
            TargetFile::Discover(tags) => {
                if tags.is_empty() {
                    self.problem(
                        [child(at, "to"), vec![Seg::from("discover")]].concat(),
                        "`discover` needs at least one tag",
                    );
                }
                Target::Discover(self.tag_set(&tags).into())
            }
        }
    }

    pub(super) fn level(&mut self, at: Vec<Seg>, name: &str, names: &Names) -> Level {
        match names.levels.iter().position(|l| l == name) {
            Some(rank) => rank,
            // An empty level list is reported once, where it is declared.
            None if names.levels.is_empty() => 0,
            None => {
                let msg = format!(
                    "unknown classification level `{name}`; the levels are {}",
                    names
                        .levels
                        .iter()
                        .map(|l| format!("`{l}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                self.problem(
                    at,
                    with_hint(msg, name, names.levels.iter().map(String::as_str)),
                );
                0
            }
        }
    }

    pub(super) fn syms(&mut self, items: &[String]) -> Vec<Sym> {
        items.iter().map(|s| self.symbols.intern(s)).collect()
    }

    pub(super) fn tag_set(&mut self, tags: &[String]) -> Vec<Sym> {
        let mut set = self.syms(tags);
        set.sort_unstable();
        set.dedup();
        set
    }

    fn resolve(
        &mut self,
        at: impl Place,
        name: &str,
        table: &Table<impl std::borrow::Borrow<str> + std::hash::Hash + Eq>,
        unknown: impl FnOnce() -> String,
    ) -> usize {
        if let Some(&ix) = table.get(name) {
            return ix;
        }
        let msg = with_hint(unknown(), name, table.keys().map(|k| k.borrow()));
        self.problem(at.path(), msg);
        0
    }

    pub(super) fn agent_ref(&mut self, at: impl Place, name: &str, names: &Names) -> AgentIx {
        self.resolve(at, name, &names.agents, || {
            format!("unknown agent `{name}`; agents are declared under `agents`")
        })
    }

    pub(super) fn caller_ref(&mut self, at: impl Place, id: &str, names: &Names) -> CallerIx {
        self.resolve(at, id, &names.callers, || {
            format!("unknown caller `{id}`; callers are declared under `callers`")
        })
    }

    pub(super) fn alias_ref(&mut self, at: impl Place, alias: &str, names: &Names) -> AliasIx {
        self.resolve(at, alias, &names.aliases, || {
            format!("unknown alias `{alias}`: no earlier step has `as: {alias}`")
        })
    }
}
