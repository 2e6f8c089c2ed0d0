//! `imports: [FILE...]`: agents, callers, policy, classification levels and the clock shared
//! across scenario files, merged into one file model before loading. Imported items come first,
//! in import order; a name defined twice, or a policy key set differently in two files, is an
//! error naming both files. Each item remembers the file and place it came from, so problems are
//! located in the file that holds them.
//!
//! An imported file with `steps` is a scenario, not a library: the importing file runs its steps
//! and adds `faults` and `expect` entries after the imported ones (a shrunk reproducer pinned in
//! five lines beside the original). Steps come from one file only; the imported scenario's
//! `golden` setting stays its own, and its `name` is used when the importer has none. `faults`
//! add up across every imported file.

use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::file::{
    AgentFile, CallerFile, ClockFile, ExpectFile, FaultFile, ScenarioFile, StepList,
};
pub use crate::library::{is_library_path, is_library_text};
use crate::overrides::Override;
use crate::redact;
use crate::secrets::Redact;
pub use crate::source::Source;
use crate::yaml::{self, Seg};

/// Where each merged item came from: (source, index there).
#[derive(Debug, Default)]
pub struct Origins {
    pub agents: Vec<(usize, usize)>,
    pub callers: Vec<(usize, usize)>,
    pub max_depth: usize,
    pub push_allowed_hosts: usize,
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

/// Merges `root`'s imports (read relative to `base`, named relative to `display`'s folder) into
/// it, applying `overrides` to the file that holds each overridden key. Problems come back
/// located; nothing is merged from a file that did not parse.
pub fn merge(
    display: &str,
    text: &str,
    base: &Path,
    overrides: &[Override],
) -> Result<Merged, Vec<Diagnostic>> {
    merge_owned(display, text.to_string(), base, overrides)
}

/// [`merge`] of a text the caller owns: kept as the root source without a copy.
pub fn merge_owned(
    display: &str,
    text: String,
    base: &Path,
    overrides: &[Override],
) -> Result<Merged, Vec<Diagnostic>> {
    let mut m = Merger {
        sources: Vec::new(),
        files: Vec::new(),
        order: Vec::new(),
        stack: Vec::new(),
        seen: Vec::new(),
        problems: Vec::new(),
        overrides,
        applied: Vec::new(),
        failed: Vec::new(),
    };
    let root = Source::new(display.to_string(), text);
    let Some(mut root_file) = m.parse(&root, 0) else {
        return Err(m.problems);
    };
    m.sources.push(root);
    m.files.push(None);
    m.stack
        .push(std::fs::canonicalize(display).unwrap_or_else(|_| PathBuf::from(display)));
    let imports = root_file.imports.take();
    m.walk_imports(0, imports, base, Path::new(display).parent(), Path::new(""));
    for o in overrides {
        if !m.applied.iter().any(|(a, _, _)| a == o) && !m.failed.contains(o) {
            let what = if o.key[0] == "agents" {
                "agent"
            } else {
                "caller"
            };
            let name = o.key.get(1).map_or("", String::as_str);
            m.problems
                .push(o.diagnostic(format!("no {what} `{name}` in the scenario or its imports")));
        }
    }
    if !m.problems.is_empty() {
        return Err(m.problems);
    }
    m.files[0] = Some(root_file);
    combine(m.files, m.order, m.sources, m.applied)
}

struct Merger<'o> {
    sources: Vec<Source>,
    /// Parsed files, by source.
    files: Vec<Option<ScenarioFile>>,
    /// Imported sources in the order their items come: a file's imports before it.
    order: Vec<usize>,
    overrides: &'o [Override],
    applied: Vec<(Override, usize, Vec<Seg>)>,
    failed: Vec<Override>,
    /// Files being imported, for cycles.
    stack: Vec<PathBuf>,
    /// Files already imported (a diamond imports a file once).
    seen: Vec<PathBuf>,
    problems: Vec<Diagnostic>,
}

impl Merger<'_> {
    /// Parses source `src` as written, then with the overrides that address it. Its agents
    /// remember whether the file has `templates: true`: the opt-in is the defining file's.
    fn parse(&mut self, s: &Source, src: usize) -> Option<ScenarioFile> {
        let mut file = self.parse_file(s, src)?;
        let templates = file.templates == Some(true);
        for a in file.agents.iter_mut().flatten() {
            a.templates = templates;
        }
        Some(file)
    }

    fn parse_file(&mut self, s: &Source, src: usize) -> Option<ScenarioFile> {
        if !yaml::has_content(&s.text) {
            // Not even a library: an empty file is a mistake.
            self.problems.push(Diagnostic {
                file: s.display.clone(),
                line: 1,
                column: 1,
                message: "the file is empty: a scenario needs `agents`, `callers` and `steps`"
                    .to_string(),
                coded: None,
            });
            return None;
        }
        // A large file's second half of steps is read on a second thread.
        let joined = |file: &mut ScenarioFile, rest: StepList| {
            file.steps.get_or_insert_default().append(rest);
        };
        let file = match yaml::parse_split(&s.text, "steps", yaml::SPLIT_FROM, joined) {
            Ok(f) => f,
            Err(e) => {
                let redact = e.path.as_deref().map_or(Redact::NOTHING, |p| s.redact(p));
                self.problems.push(Diagnostic {
                    file: s.display.clone(),
                    line: e.line,
                    column: e.column,
                    message: redact::message(&e.message, &redact),
                    coded: None,
                });
                return None;
            }
        };
        // Overrides work on the document as a value; without any, the file is read once only
        // (a second parse into a value tree would cost as much as the load itself).
        if self.overrides.is_empty() {
            return Some(file);
        }
        let Some(mut doc) = yaml::parse_tree(&s.text) else {
            return Some(file);
        };
        let mine: Vec<&Override> = self
            .overrides
            .iter()
            .filter(|o| o.targets(&doc, src == 0))
            .collect();
        if mine.is_empty() {
            return Some(file);
        }
        for o in mine {
            let checked = o
                .apply(&mut doc)
                .and_then(|path| yaml::from_tree::<ScenarioFile>(doc.clone()).map(|_| path));
            match checked {
                Ok(path) => self.applied.push((o.clone(), src, path)),
                Err(message) => {
                    self.problems.push(o.diagnostic(message));
                    self.failed.push(o.clone());
                    return None;
                }
            }
        }
        yaml::from_tree(doc).ok()
    }

    fn at(&self, src: usize, path: &[Seg], message: String) -> Diagnostic {
        self.sources[src].diagnostic(path, message)
    }

    /// Reads the imports of `file` (source `src`, in folder `base` on disk, `shown` for
    /// diagnostics; `rel` is that folder relative to the root file's, for card paths).
    fn walk_imports(
        &mut self,
        src: usize,
        imports: Option<Vec<String>>,
        base: &Path,
        shown: Option<&Path>,
        rel: &Path,
    ) {
        let Some(imports) = imports else {
            return;
        };
        for (k, import) in imports.iter().enumerate() {
            let at = [Seg::from("imports"), Seg::Index(k)];
            let path = base.join(import);
            let display = match shown {
                Some(d) if !d.as_os_str().is_empty() => d.join(import).display().to_string(),
                _ => import.clone(),
            };
            let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if self.stack.contains(&canonical) {
                let msg = format!(
                    "import cycle: `{import}` imports, directly or through others, the file that imports it"
                );
                self.problems.push(self.at(src, &at, msg));
                continue;
            }
            if self.seen.contains(&canonical) {
                continue;
            }
            let text = match crate::file_text::read(&path) {
                Ok(t) => t,
                Err(e) => {
                    let why = e
                        .diagnostics
                        .first()
                        .map_or(String::new(), |d| d.message.clone());
                    let msg = format!("cannot import `{import}`: {why}");
                    self.problems.push(self.at(src, &at, msg));
                    continue;
                }
            };
            let source = Source::new(display, text);
            let ix = self.sources.len();
            let Some(mut imported) = self.parse(&source, ix) else {
                continue;
            };
            self.seen.push(canonical.clone());
            self.sources.push(source);
            self.files.push(None);
            // A library's claims belong to the scenarios that import it; an imported scenario
            // (a file with steps) keeps its own.
            if imported.steps.is_none() {
                for key in ["expect", "golden"] {
                    let present = match key {
                        "expect" => imported.expect.is_some(),
                        _ => imported.golden.is_some(),
                    };
                    if present {
                        let msg = format!(
                            "an imported file without `steps` is a library: `{key}` belongs in the scenario that imports it"
                        );
                        self.problems.push(self.at(ix, &[Seg::from(key)], msg));
                    }
                }
            }
            let dir = Path::new(import).parent().unwrap_or(Path::new(""));
            let sub_rel = rel.join(dir);
            // Card paths are relative to the file that names them.
            for a in imported.agents.iter_mut().flatten() {
                if let Some(card) = &a.card {
                    a.card = Some(sub_rel.join(card).display().to_string());
                }
            }
            let sub_base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
            let sub_shown = Path::new(&self.sources[ix].display)
                .parent()
                .map(Path::to_path_buf);
            self.stack.push(canonical);
            // Nested imports come before the file's own items.
            let nested = imported.imports.take();
            self.walk_imports(ix, nested, &sub_base, sub_shown.as_deref(), &sub_rel);
            self.stack.pop();
            self.files[ix] = Some(imported);
            self.order.push(ix);
        }
        let _ = src;
    }
}

/// Joins the files, imports first (sources 1..) then the root (source 0).
fn combine(
    mut files: Vec<Option<ScenarioFile>>,
    mut order: Vec<usize>,
    sources: Vec<Source>,
    overrides: Vec<(Override, usize, Vec<Seg>)>,
) -> Result<Merged, Vec<Diagnostic>> {
    // A key the command line set in the importing file wins over the imports' values.
    let overridden = |key: &[&str]| {
        overrides.iter().any(|(_, src, path)| {
            *src == 0
                && path.iter().zip(key).all(|(s, k)| *s == Seg::from(*k))
                && path.len() >= key.len()
        })
    };
    let mut problems = Vec::new();
    let at = |src: usize, path: &[Seg], message: String| sources[src].diagnostic(path, message);
    order.push(0);
    let Some(mut root) = files[0].take() else {
        return Err(problems);
    };
    let mut origins = Origins::default();
    let mut agents: Vec<AgentFile> = Vec::new();
    let mut agent_from: Vec<(String, usize)> = Vec::new();
    let mut callers: Vec<CallerFile> = Vec::new();
    let mut caller_from: Vec<(String, usize)> = Vec::new();
    let mut max_depth: Option<(i64, usize)> = None;
    let mut hosts: Option<(Vec<String>, usize)> = None;
    let mut levels: Option<(Vec<String>, usize)> = None;
    let mut clock: Option<(ClockFile, usize)> = None;
    let mut steps: Option<(StepList, usize)> = None;
    let mut expect: Vec<ExpectFile> = Vec::new();
    let mut faults: Vec<FaultFile> = Vec::new();
    let mut name: Option<String> = None;
    let (mut any_expect, mut any_faults) = (false, false);
    let mut any_agents = false;
    let mut any_callers = false;
    for &src in &order {
        let f = if src == 0 {
            &mut root
        } else {
            match files[src].as_mut() {
                Some(f) => f,
                None => continue,
            }
        };
        any_agents |= f.agents.is_some();
        any_callers |= f.callers.is_some();
        if let Some(s) = f.steps.take() {
            match &steps {
                Some((_, first)) => {
                    let msg = format!(
                        "`steps` already come from {}: a file that imports a scenario adds `faults` and `expect`, and only one file gives the steps",
                        sources[*first].display
                    );
                    problems.push(at(src, &[Seg::from("steps")], msg));
                }
                None => {
                    steps = Some((s, src));
                    // The imported scenario's name, unless the importing file names itself.
                    if src != 0 {
                        name = f.name.take();
                    }
                }
            }
        }
        // Claims and faults add up: the imported ones first, in import order.
        if let Some(e) = f.expect.take() {
            any_expect = true;
            origins.expect.extend((0..e.len()).map(|j| (src, j)));
            expect.extend(e);
        }
        if let Some(x) = f.faults.take() {
            any_faults = true;
            origins.faults.extend((0..x.len()).map(|j| (src, j)));
            faults.extend(x);
        }
        for (j, a) in f.agents.take().unwrap_or_default().into_iter().enumerate() {
            if let Some(name) = &a.name
                && let Some((_, first)) = agent_from.iter().find(|(n, _)| n == name)
                && *first != src
            {
                let msg = format!(
                    "duplicate agent name `{name}`: already defined in {}; agent names are unique across imports",
                    sources[*first].display
                );
                problems.push(at(
                    src,
                    &[Seg::from("agents"), Seg::Index(j), Seg::from("name")],
                    msg,
                ));
                continue;
            }
            if let Some(name) = &a.name {
                agent_from.push((name.clone(), src));
            }
            origins.agents.push((src, j));
            agents.push(a);
        }
        for (j, c) in f.callers.take().unwrap_or_default().into_iter().enumerate() {
            // A token caller's handle is its `name`; any other caller's, its `id`.
            let handle = c.name.clone().or_else(|| c.id.clone()).unwrap_or_default();
            if let Some((_, first)) = caller_from.iter().find(|(n, _)| *n == handle)
                && *first != src
            {
                let msg = format!(
                    "duplicate caller id `{}`: already defined in {}; caller ids are unique across imports",
                    handle, sources[*first].display
                );
                problems.push(at(
                    src,
                    &[Seg::from("callers"), Seg::Index(j), Seg::from("id")],
                    msg,
                ));
                continue;
            }
            caller_from.push((handle, src));
            origins.callers.push((src, j));
            callers.push(c);
        }
        // Key by key: a key set in two files must be set alike.
        let mut conflict = |key: &[&str], first: usize| {
            let path: Vec<Seg> = key.iter().map(|k| Seg::from(*k)).collect();
            let msg = format!(
                "`{}` is already set differently in {}; a key shared through imports is set once, or alike",
                key.join("."),
                sources[first].display
            );
            problems.push(at(src, &path, msg));
        };
        if let Some(d) = f.policy.max_depth.take() {
            match &max_depth {
                _ if src == 0 && overridden(&["policy", "max_depth"]) => max_depth = Some((d, src)),
                Some((v, first)) if *v != d => conflict(&["policy", "max_depth"], *first),
                Some(_) => {}
                None => max_depth = Some((d, src)),
            }
        }
        if let Some(h) = f.policy.push_allowed_hosts.take() {
            match &hosts {
                _ if src == 0 && overridden(&["policy", "push_allowed_hosts"]) => {
                    hosts = Some((h, src))
                }
                Some((v, first)) if *v != h => conflict(&["policy", "push_allowed_hosts"], *first),
                Some(_) => {}
                None => hosts = Some((h, src)),
            }
        }
        if let Some(l) = f.classification_levels.take() {
            match &levels {
                Some((v, first)) if *v != l => conflict(&["classification_levels"], *first),
                Some(_) => {}
                None => levels = Some((l, src)),
            }
        }
        if let Some(c) = f.clock.take() {
            match &clock {
                _ if src == 0 && overridden(&["clock"]) => clock = Some((c, src)),
                Some((v, first)) if (&v.epoch, v.tick_ms) != (&c.epoch, c.tick_ms) => {
                    conflict(&["clock"], *first)
                }
                Some(_) => {}
                None => clock = Some((c, src)),
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    root.agents = any_agents.then_some(agents);
    root.callers = any_callers.then_some(callers);
    root.steps = steps.map(|(s, src)| {
        origins.steps = src;
        s
    });
    root.expect = any_expect.then_some(expect);
    root.faults = any_faults.then_some(faults);
    if root.name.is_none() {
        root.name = name;
    }
    root.policy.max_depth = max_depth.map(|(d, s)| {
        origins.max_depth = s;
        d
    });
    root.policy.push_allowed_hosts = hosts.map(|(h, s)| {
        origins.push_allowed_hosts = s;
        h
    });
    root.classification_levels = levels.map(|(l, s)| {
        origins.classification_levels = s;
        l
    });
    root.clock = clock.map(|(c, s)| {
        origins.clock = s;
        c
    });
    Ok(Merged {
        file: root,
        sources,
        origins,
        overrides,
    })
}
