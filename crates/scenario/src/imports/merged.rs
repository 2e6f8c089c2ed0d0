//! The merged file and where each of its items came from: a problem found in the merged model is
//! located in the file that holds it, or at the `--set` override that put the value there.

use crate::diagnostic::Diagnostic;
use crate::file::ScenarioFile;
use crate::overrides::Override;
use crate::source::Source;
use crate::yaml::Seg;

/// Where each merged item came from: (source, index there).
#[derive(Debug, Default)]
pub struct Origins {
    pub agents: Vec<(usize, usize)>,
    pub callers: Vec<(usize, usize)>,
    pub max_depth: usize,
    pub push_allowed_hosts: usize,
    pub card_signing_key: usize,
    pub card_keys: usize,
    pub classification_levels: usize,
    pub clock: usize,
    /// The source of the steps (the importing file, or the one scenario it imports).
    pub steps: usize,
    pub expect: Vec<(usize, usize)>,
    pub faults: Vec<(usize, usize)>,
}

/// A scenario file with its imports merged in.
pub struct Merged {
    pub file: ScenarioFile,
    /// The importing file first, then each imported file in the order met.
    pub sources: Vec<Source>,
    pub origins: Origins,
    /// The applied `--set` overrides, with the source and path each changed.
    pub overrides: Vec<(Override, usize, Vec<Seg>)>,
}

impl Merged {
    /// The source and the path inside it of a problem found at `path` of the merged model.
    pub fn origin(&self, path: &[Seg]) -> (usize, Vec<Seg>) {
        let rest = |n: usize| path[n..].to_vec();
        match path {
            [Seg::Key(k), ..] if k == "steps" => (self.origins.steps, path.to_vec()),
            [Seg::Key(k), Seg::Index(i), ..]
                if ["agents", "callers", "expect", "faults"].contains(&k.as_ref()) =>
            {
                let table = match k.as_ref() {
                    "agents" => &self.origins.agents,
                    "callers" => &self.origins.callers,
                    "expect" => &self.origins.expect,
                    _ => &self.origins.faults,
                };
                match table.get(*i) {
                    Some(&(src, j)) => (
                        src,
                        [vec![Seg::Key(k.clone()), Seg::Index(j)], rest(2)].concat(),
                    ),
                    None => (0, path.to_vec()),
                }
            }
            [Seg::Key(p), Seg::Key(k), ..] if p == "policy" && k == "max_depth" => {
                (self.origins.max_depth, path.to_vec())
            }
            [Seg::Key(p), Seg::Key(k), ..] if p == "policy" && k == "push_allowed_hosts" => {
                (self.origins.push_allowed_hosts, path.to_vec())
            }
            [Seg::Key(p), Seg::Key(k), ..] if p == "policy" && k == "card_signing_key" => {
                (self.origins.card_signing_key, path.to_vec())
            }
            [Seg::Key(p), Seg::Key(k), ..] if p == "policy" && k == "card_keys" => {
                (self.origins.card_keys, path.to_vec())
            }
            [Seg::Key(k), ..] if k == "classification_levels" => {
                (self.origins.classification_levels, path.to_vec())
            }
            [Seg::Key(k), ..] if k == "clock" => (self.origins.clock, path.to_vec()),
            _ => (0, path.to_vec()),
        }
    }

    /// A located diagnostic for a problem at `path` of the merged model: in the file that holds
    /// it, or at the `--set` override that put the value there.
    pub fn locate(&self, path: &[Seg], message: String) -> Diagnostic {
        let (src, inner) = self.origin(path);
        for (o, osrc, opath) in &self.overrides {
            if *osrc == src && inner.starts_with(opath) {
                return o.diagnostic(message);
            }
        }
        self.sources[src].diagnostic(&inner, message)
    }
}
