//! Loading: a scenario file's text → a checked [`Scenario`], or every problem with its position.

use std::collections::HashMap;
use std::path::Path;

use crate::diagnostic::{Coded, Diagnostic, LoadError, Severity, with_hint};
use crate::file::*;
use crate::overrides::Override;
pub use crate::problem::Problem;
use crate::secrets::Redact;
use crate::yaml::Seg;
use crate::{authority_paths, confusables, imports, paths, redact};
use engine::push::HostPattern;
use engine::scenario::*;
use engine::symbols::{Sym, Symbols};
use engine::timestamp::parse_rfc3339;

/// Whether a load looks for `check`'s warnings (handler bugs, laundering paths, look-alike ids)
/// in a scenario that loaded. `run` and `serve` print none, so they skip the walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Warnings {
    Find,
    Skip,
}

/// A scenario that loaded, and what `check` warns about in it.
#[derive(Debug)]
pub struct Loaded {
    pub scenario: Scenario,
    /// Handler bugs found on some path (see [`paths`](crate::paths)), in file order.
    /// They never stop a run.
    pub warnings: Vec<Diagnostic>,
    /// The file has no `steps`: a library, for other files' `imports`.
    pub library: bool,
}

/// [`load_string_with`], finding `check`'s warnings or not: a scenario that loads loads the same
/// either way, and the errors of one that does not are the same.
pub fn load_string_as(
    display: &str,
    text: String,
    base: &Path,
    default_name: String,
    overrides: &[Override],
    find: Warnings,
) -> Result<Loaded, LoadError> {
    let mut merged = imports::merge_owned(display, text, base, overrides)
        .map_err(|diagnostics| LoadError { diagnostics })?;
    let library = merged.file.steps.is_none();
    let mut loader = Loader {
        problems: Vec::new(),
        templates: false,
        symbols: Symbols::default(),
        base,
        results: Vec::new(),
        extra: Vec::new(),
    };
    let file = std::mem::take(&mut merged.file);
    if !library {
        for (key, missing) in [
            ("agents", file.agents.is_none()),
            ("callers", file.callers.is_none()),
        ] {
            if missing {
                loader.problem(
                    Vec::new(),
                    format!(
                        "missing field `{key}` (neither this file nor its imports declare `{key}`)"
                    ),
                );
            }
        }
    }
    let mut scenario = loader.scenario(file, default_name);
    scenario.overrides = overrides.iter().map(Override::shown).collect();
    if merged.origins.expect.iter().any(|&(src, _)| src != 0) {
        scenario.expectation_sites = (0..merged.origins.expect.len())
            .map(|i| {
                let d = merged.locate(
                    &[crate::yaml::Seg::from("expect"), crate::yaml::Seg::Index(i)],
                    String::new(),
                );
                format!("{}:{}:{}", d.file, d.line, d.column)
            })
            .collect();
    }
    if loader.problems.is_empty() && loader.extra.is_empty() {
        if find == Warnings::Skip {
            return Ok(Loaded {
                scenario,
                warnings: Vec::new(),
                library,
            });
        }
        let mut found = paths::warnings(&scenario);
        found.extend(crate::push_hosts::warnings(&scenario));
        let mut warnings = locate_all(&merged, found);
        if let Some(root) = merged.sources.first() {
            warnings.extend(coded(root, &scenario));
        }
        return Ok(Loaded {
            scenario,
            warnings,
            library,
        });
    }
    let mut diagnostics = locate_all(&merged, loader.problems);
    // Problems in key files: no value of theirs is a secret of the scenario's, but URLs and
    // JWT-shaped text are shown as everywhere.
    for d in &mut loader.extra {
        d.message = redact::message(&d.message, &Redact::NOTHING);
    }
    diagnostics.append(&mut loader.extra);
    Err(LoadError { diagnostics })
}

/// `check`'s coded findings, located, in their own order: laundering paths (shortest first, walk
/// order), then look-alike identities.
fn coded(root: &imports::Source, scenario: &Scenario) -> Vec<Diagnostic> {
    let locate = |at: &[Seg], message: String, coded: Coded| Diagnostic {
        coded: Some(Box::new(coded)),
        ..root.diagnostic(at, message)
    };
    let mut out: Vec<Diagnostic> = authority_paths::findings(scenario)
        .into_iter()
        .map(|f| {
            let coded = Coded {
                code: "authority_amplified",
                severity: f.severity,
                path: f.path,
                scopes: f.scopes,
                notes: f.notes,
            };
            locate(&f.at, f.message, coded)
        })
        .collect();
    out.extend(confusables::warnings(scenario).into_iter().map(|p| {
        let coded = Coded {
            code: "confusable_ids",
            severity: Severity::Warning,
            path: Vec::new(),
            scopes: Vec::new(),
            notes: Vec::new(),
        };
        locate(&p.path, p.message, coded)
    }));
    out
}

/// Positions for problems found by path: in the file (or `--set`) that holds each, in order.
fn locate_all(merged: &imports::Merged, problems: Vec<Problem>) -> Vec<Diagnostic> {
    let mut diagnostics: Vec<Diagnostic> = problems
        .into_iter()
        .map(|p| merged.locate(&p.path, p.message))
        .collect();
    // Overrides first, then the importing file, then imports, each in file order.
    let rank = |d: &Diagnostic| {
        merged
            .sources
            .iter()
            .position(|s| s.display == d.file && d.line > 0)
            .map_or(0, |i| i + 1)
    };
    diagnostics.sort_by_key(|d| (rank(d), d.line, d.column));
    diagnostics
}

struct Loader<'b> {
    problems: Vec<Problem>,
    /// The handler being read comes from a file with `templates: true`.
    templates: bool,
    symbols: Symbols,
    base: &'b Path,
    /// Each agent's named results, for `expect` paths.
    results: Vec<Vec<handlers::NamedResult>>,
    /// Problems located in other files (a JWKS, a private JWK): their own line and column.
    extra: Vec<Diagnostic>,
}
mod entry;
mod place;
pub use entry::*;
use place::{Child, Place, child, path};

macro_rules! at {
    ($($seg:expr),* $(,)?) => { vec![$($crate::yaml::Seg::from($seg)),*] };
}

// After `at!`, which they use.
mod agents;
mod conditions;
mod expectations;
mod external;
mod faults;
mod handlers;
mod matrix_claims;
mod received_claims;
mod steps;
mod templates;
mod tokens;
mod webhook_claims;

impl Loader<'_> {
    fn target(&mut self, at: &[Seg], to: TargetFile, names: &Names) -> Target {
        match to {
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

    /// A whole number at `at` that must be at least `min`, or a problem naming `what`.
    fn at_least(&mut self, at: Vec<Seg>, what: &str, n: i64, min: i64) -> Option<u64> {
        if n >= min {
            u64::try_from(n).ok()
        } else {
            self.problem(at, format!("{what} must be at least {min}, not {n}"));
            None
        }
    }

    fn problem(&mut self, path: Vec<Seg>, message: impl Into<String>) {
        self.problems.push(Problem {
            path,
            message: message.into(),
        });
    }

    fn scenario(&mut self, file: ScenarioFile, default_name: String) -> Scenario {
        let levels = self.levels(file.classification_levels);
        let delivery = self.push_delivery(file.policy.push_delivery.clone());
        let token_policy = file.policy.token;
        let mut policy = self.policy(PolicyFile {
            token: None,
            ..file.policy
        });
        policy.authority_keys |= file.agents.iter().flatten().any(|a| a.authority.is_some());
        let tokens = self.tokens(file.keys, token_policy);
        let clock = self.clock(file.clock);
        let names = Names::new(&levels);

        // Every agent's name first, so a handler may delegate to an agent declared after it.
        let mut names = names;
        let file_agents = file.agents.unwrap_or_default();
        let mut cards = Vec::with_capacity(file_agents.len());
        for (i, a) in file_agents.iter().enumerate() {
            let card = self.card(i, a);
            if !card.name.is_empty() {
                if names.agents.contains_key(&card.name) {
                    let at = if a.name.is_some() {
                        at!["agents", i, "name"]
                    } else {
                        at!["agents", i, "card"]
                    };
                    self.problem(
                        at,
                        format!(
                            "duplicate agent name `{}`: agent names are unique",
                            card.name
                        ),
                    );
                } else {
                    names.agents.insert(card.name.clone(), i);
                }
            }
            cards.push(card);
        }
        let mut agents = Vec::with_capacity(cards.len());
        for ((i, a), card) in file_agents.into_iter().enumerate().zip(cards) {
            agents.push(self.agent(i, a, card, &names));
        }

        let file_callers = file.callers.unwrap_or_default();
        let mut callers = Vec::with_capacity(file_callers.len());
        for (i, c) in file_callers.into_iter().enumerate() {
            let (key, id) = match (&c.name, &c.id) {
                (Some(n), _) if c.token.is_some() => ("name", n.clone()),
                (_, Some(id)) => ("id", id.clone()),
                _ => ("id", String::new()),
            };
            match names.callers.entry(id) {
                std::collections::hash_map::Entry::Occupied(e) => self.problem(
                    at!["callers", i, key],
                    format!(
                        "duplicate caller {key} `{}`: caller names are unique",
                        e.key()
                    ),
                ),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(i);
                }
            }
            callers.push(self.caller(i, c, &names, tokens.is_some()));
        }
        self.token_identities(&callers);
        self.external_names(&agents, &callers);

        let file_steps = file.steps.unwrap_or_default();
        // Sized once: growing a table of 50,000 aliases rehashes it 15 times.
        let defined = file_steps
            .iter()
            .filter(|s| matches!(s, StepFile::Send(x) | StepFile::Stream(x) if x.alias.is_some()))
            .count();
        names.aliases.reserve(defined);
        let mut aliases = engine::names::NameList::with_capacity(defined);
        let mut alias_steps = Vec::with_capacity(defined);
        let mut steps = Vec::with_capacity(file_steps.len());
        // Each chunk of the file's steps is freed once converted: the file's steps and the
        // engine's are never both whole at once (on 100,000 steps that was 24 MiB of the loading
        // peak).
        let mut i = 0;
        for chunk in file_steps.into_chunks() {
            for s in chunk {
                steps.push(self.step(i, s, &mut names, &mut aliases));
                i += 1;
                alias_steps.resize(aliases.len(), engine::ix::ix32(i));
            }
        }
        aliases.shrink_to_fit();
        let expect = file.expect.unwrap_or_default();
        let golden = file.golden.unwrap_or(true);
        if !golden && expect.is_empty() {
            self.problem(
                at!["golden"],
                "`golden: false` means `test` checks the `expect` entries alone, so it needs at least one `expect` entry",
            );
        }
        let (expectations, always) = expect
            .into_iter()
            .enumerate()
            .filter_map(|(i, e)| self.expectation(i, e, &names, &alias_steps, &steps))
            .unzip();
        let faults = self.faults(file.faults, delivery, &policy, &names);

        Scenario {
            directory: engine::discovery::Directory::new(&agents),
            name: file.name.unwrap_or(default_name),
            policy,
            levels,
            clock,
            agents,
            callers,
            steps,
            aliases,
            alias_steps,
            expectations,
            expectation_sites: Vec::new(),
            always,
            golden,
            faults,
            overrides: Vec::new(),
            symbols: std::mem::take(&mut self.symbols),
            tokens,
        }
    }

    fn levels(&mut self, levels: Option<Vec<String>>) -> Vec<String> {
        let Some(levels) = levels else {
            return DEFAULT_LEVELS.map(String::from).to_vec();
        };
        if levels.is_empty() {
            self.problem(
                at!["classification_levels"],
                "classification_levels needs at least one level",
            );
        }
        for (i, l) in levels.iter().enumerate() {
            if l.is_empty() {
                self.problem(
                    at!["classification_levels", i],
                    "a classification level needs a name",
                );
            } else if levels[..i].contains(l) {
                self.problem(
                    at!["classification_levels", i],
                    format!("duplicate classification level `{l}`"),
                );
            }
        }
        levels
    }

    fn policy(&mut self, p: PolicyFile) -> Policy {
        let max_depth = match p.max_depth {
            None => DEFAULT_MAX_DEPTH,
            Some(d) if d >= 1 => d as u64,
            Some(d) => {
                self.problem(
                    at!["policy", "max_depth"],
                    format!("max_depth must be at least 1, not {d}"),
                );
                DEFAULT_MAX_DEPTH
            }
        };
        let mut push_allowed_hosts = Vec::new();
        for (i, h) in p.push_allowed_hosts.unwrap_or_default().iter().enumerate() {
            match HostPattern::parse(h) {
                Ok(pattern) => push_allowed_hosts.push(pattern),
                Err(e) => self.problem(at!["policy", "push_allowed_hosts", i], e),
            }
        }
        Policy {
            max_depth,
            push_allowed_hosts,
            authority: p.authority.map_or(Authority::Own, agents::authority),
            authority_keys: p.authority.is_some(),
            loopback_push: false,
        }
    }

    fn clock(&mut self, c: Option<ClockFile>) -> Clock {
        let mut clock = Clock {
            epoch_ms: parse_rfc3339(DEFAULT_EPOCH).unwrap_or(0),
            tick_ms: DEFAULT_TICK_MS,
        };
        let Some(c) = c else { return clock };
        if let Some(e) = c.epoch {
            match parse_rfc3339(&e) {
                Some(ms) => clock.epoch_ms = ms,
                None => self.problem(
                    at!["clock", "epoch"],
                    format!("`{e}` is not an RFC 3339 timestamp such as 2026-01-01T00:00:00Z"),
                ),
            }
        }
        match c.tick_ms {
            None => {}
            Some(t) if t >= 0 => clock.tick_ms = t as u64,
            Some(t) => self.problem(
                at!["clock", "tick_ms"],
                format!("tick_ms must be 0 or more, not {t}"),
            ),
        }
        clock
    }

    fn level(&mut self, at: Vec<Seg>, name: &str, names: &Names) -> Level {
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

    fn syms(&mut self, items: &[String]) -> Vec<Sym> {
        items.iter().map(|s| self.symbols.intern(s)).collect()
    }

    fn tag_set(&mut self, tags: &[String]) -> Vec<Sym> {
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

    fn agent_ref(&mut self, at: impl Place, name: &str, names: &Names) -> AgentIx {
        self.resolve(at, name, &names.agents, || {
            format!("unknown agent `{name}`; agents are declared under `agents`")
        })
    }

    fn caller_ref(&mut self, at: impl Place, id: &str, names: &Names) -> CallerIx {
        self.resolve(at, id, &names.callers, || {
            format!("unknown caller `{id}`; callers are declared under `callers`")
        })
    }

    fn alias_ref(&mut self, at: impl Place, alias: &str, names: &Names) -> AliasIx {
        self.resolve(at, alias, &names.aliases, || {
            format!("unknown alias `{alias}`: no earlier step has `as: {alias}`")
        })
    }

    fn non_empty_text(&mut self, at: impl Place, text: &str) {
        if text.is_empty() {
            self.problem(at.path(), "`text` must not be empty");
        }
    }

    fn message(&mut self, at: &[Seg], text: String, data: Option<Box<DataMap>>) -> MessageSpec {
        self.non_empty_text(Child(at, "text"), &text);
        MessageSpec::new(
            Text::plain(text),
            data.filter(|d| !d.is_empty()).map(|d| *d),
        )
    }
}

/// A table of names. Looked up, never walked in its order (a hint walks it for the closest name,
/// ties broken by the name), so a fast hash with a fixed seed changes nothing but the time:
/// SipHash was a third of converting a large file's steps.
type Table<K> = HashMap<K, usize, foldhash::fast::FixedState>;

/// Names visible to references, built up as the file is read.
struct Names {
    levels: Vec<String>,
    agents: Table<String>,
    callers: Table<String>,
    /// Keyed by the file's own names: short ones are stored inline.
    aliases: Table<Name>,
}

impl Names {
    fn new(levels: &[String]) -> Self {
        Names {
            levels: levels.to_vec(),
            agents: Table::default(),
            callers: Table::default(),
            aliases: Table::default(),
        }
    }
}

/// The card URL of an agent that gives none: `https://a2a-sim.example/agents/NAME`.
pub fn default_url(name: &str) -> String {
    let mut url = url::Url::parse("https://a2a-sim.example/agents/").expect("a constant URL");
    if let Ok(mut segs) = url.path_segments_mut() {
        segs.pop_if_empty().push(name);
    }
    url.to_string()
}
