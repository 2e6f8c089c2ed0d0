//! Loading: a scenario file's text → a checked [`Scenario`], or every problem with its position.

use std::collections::HashMap;
use std::path::Path;

use crate::engine::lifecycle::TaskState;
use crate::engine::push::{HostPattern, Secret};
use crate::engine::scenario::*;
use crate::engine::symbols::{Sym, Symbols};
use crate::error::{Diagnostic, LoadError, with_hint};
use crate::protocol::timestamp::parse_rfc3339;
use crate::scenario::card_file;
use crate::scenario::file::*;
use crate::scenario::yaml::{self, Seg};

/// Reads and loads one scenario file. `display` is how diagnostics name it.
pub fn load_path(path: &Path) -> Result<Scenario, LoadError> {
    let text = read(path)?;
    let base = path.parent().unwrap_or(Path::new("."));
    load_str(&path.display().to_string(), &text, base, default_name(path))
}

/// A scenario file's text, or a located error for a file that cannot be read or is not UTF-8.
pub fn read(path: &Path) -> Result<String, LoadError> {
    let display = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| LoadError::single(&display, 1, 1, format!("cannot read the file: {e}")))?;
    decode_utf8(&display, &bytes).map(str::to_string)
}

/// The scenario's default name: its file name without extension.
pub fn default_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The text of a file, or a located error at the first byte that is not UTF-8.
pub fn decode_utf8<'a>(display: &str, bytes: &'a [u8]) -> Result<&'a str, LoadError> {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(LoadError::single(
            display,
            1,
            1,
            "the file is UTF-16; save it as UTF-8",
        ));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = good.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        LoadError::single(
            display,
            line,
            column,
            "the file is not valid UTF-8; save it as UTF-8",
        )
    })
}

/// Loads scenario text. Card files named by agents are read relative to `base`.
pub fn load_str(
    display: &str,
    text: &str,
    base: &Path,
    default_name: String,
) -> Result<Scenario, LoadError> {
    let file: ScenarioFile =
        yaml::parse(text).map_err(|e| LoadError::single(display, e.line, e.column, e.message))?;
    let mut loader = Loader {
        problems: Vec::new(),
        symbols: Symbols::default(),
        base,
    };
    let scenario = loader.scenario(file, default_name);
    if loader.problems.is_empty() {
        return Ok(scenario);
    }
    let mut diagnostics: Vec<Diagnostic> = loader
        .problems
        .into_iter()
        .map(|p| {
            let (line, column) = yaml::locate(text, &p.path).unwrap_or((1, 1));
            Diagnostic {
                file: display.to_string(),
                line,
                column,
                message: p.message,
            }
        })
        .collect();
    diagnostics.sort_by_key(|d| (d.line, d.column));
    Err(LoadError { diagnostics })
}

struct Problem {
    path: Vec<Seg>,
    message: String,
}

struct Loader<'b> {
    problems: Vec<Problem>,
    symbols: Symbols,
    base: &'b Path,
}

fn path(segs: &[Seg]) -> Vec<Seg> {
    segs.to_vec()
}

/// The path of `key` inside the value at `at`.
fn child(at: &[Seg], key: &str) -> Vec<Seg> {
    let mut p = at.to_vec();
    p.push(Seg::from(key));
    p
}

macro_rules! at {
    ($($seg:expr),* $(,)?) => { vec![$(Seg::from($seg)),*] };
}

impl Loader<'_> {
    fn problem(&mut self, path: Vec<Seg>, message: impl Into<String>) {
        self.problems.push(Problem {
            path,
            message: message.into(),
        });
    }

    fn scenario(&mut self, file: ScenarioFile, default_name: String) -> Scenario {
        let levels = self.levels(file.classification_levels);
        let policy = self.policy(file.policy);
        let clock = self.clock(file.clock);
        let names = Names::new(&levels);

        // Every agent's name first, so a handler may delegate to an agent declared after it.
        let mut names = names;
        let mut cards = Vec::with_capacity(file.agents.len());
        for (i, a) in file.agents.iter().enumerate() {
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
        for ((i, a), card) in file.agents.into_iter().enumerate().zip(cards) {
            agents.push(self.agent(i, a, card, &names));
        }

        let mut callers = Vec::with_capacity(file.callers.len());
        for (i, c) in file.callers.into_iter().enumerate() {
            if names.callers.contains_key(&c.id) {
                self.problem(
                    at!["callers", i, "id"],
                    format!("duplicate caller id `{}`: caller ids are unique", c.id),
                );
            } else {
                names.callers.insert(c.id.clone(), i);
            }
            callers.push(self.caller(i, c, &names));
        }

        let mut aliases = Vec::new();
        let mut alias_steps = Vec::new();
        let mut steps = Vec::with_capacity(file.steps.len());
        for (i, s) in file.steps.into_iter().enumerate() {
            steps.push(self.step(i, s, &mut names, &mut aliases));
            alias_steps.resize(aliases.len(), i + 1);
        }
        let expectations = file
            .expect
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .filter_map(|(i, e)| self.expectation(i, e, &names, &alias_steps, &steps))
            .collect();

        Scenario {
            directory: crate::engine::discovery::Directory::new(&agents),
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
            golden: true,
            symbols: std::mem::take(&mut self.symbols),
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

    /// The card of agent `i`: inline fields, or a card file's.
    fn card(&mut self, i: usize, a: &AgentFile) -> Card {
        if let Some(card_path) = &a.card {
            for (key, present) in [
                ("description", a.description.is_some()),
                ("version", a.version.is_some()),
                ("url", a.url.is_some()),
                ("capabilities", a.capabilities.is_some()),
                ("skills", a.skills.is_some()),
            ] {
                if present {
                    self.problem(
                        at!["agents", i, key],
                        format!("`{key}` comes from the card file `{card_path}`; an agent with `card` adds only platform metadata and a handler"),
                    );
                }
            }
            let mut card = match card_file::read(&self.base.join(card_path)) {
                Ok(card) => card,
                Err(e) => {
                    self.problem(
                        at!["agents", i, "card"],
                        format!("card file `{card_path}`: {e}"),
                    );
                    return self.empty_card(a.name.clone().unwrap_or_default());
                }
            };
            if let Some(name) = &a.name
                && *name != card.name
            {
                self.problem(
                        at!["agents", i, "name"],
                        format!("agent `{name}` takes its card from `{card_path}`, whose name is `{}`; drop `name` or make them equal", card.name),
                    );
            }
            card.file = Some(card_path.clone());
            for skill in &mut card.skills {
                skill.tag_set = self.tag_set(&skill.tags);
            }
            return card;
        }
        let name = match &a.name {
            Some(n) if !n.is_empty() => n.clone(),
            Some(_) => {
                self.problem(at!["agents", i, "name"], "an agent name must not be empty");
                String::new()
            }
            None => {
                self.problem(at!["agents", i], "an agent needs `name` (or a `card` file)");
                String::new()
            }
        };
        let url = match &a.url {
            Some(u) => {
                if url::Url::parse(u).is_err() {
                    self.problem(
                        at!["agents", i, "url"],
                        format!("`{u}` is not an absolute URL"),
                    );
                }
                u.clone()
            }
            None => default_url(&name),
        };
        let caps = a.capabilities.as_ref();
        let mut skills = Vec::new();
        match &a.skills {
            None => self.problem(
                at!["agents", i],
                format!("agent `{name}` needs `skills` (at least one), or a `card` file"),
            ),
            Some(s) if s.is_empty() => self.problem(
                at!["agents", i, "skills"],
                "an agent needs at least one skill",
            ),
            Some(s) => {
                for (j, skill) in s.iter().enumerate() {
                    if skill.id.is_empty() {
                        self.problem(
                            at!["agents", i, "skills", j, "id"],
                            "a skill id must not be empty",
                        );
                    } else if s[..j].iter().any(|o| o.id == skill.id) {
                        self.problem(
                            at!["agents", i, "skills", j, "id"],
                            format!("duplicate skill id `{}` in agent `{name}`", skill.id),
                        );
                    }
                    if skill.tags.is_empty() {
                        self.problem(
                            at!["agents", i, "skills", j, "tags"],
                            "a skill needs at least one tag (A2A requires one, and discovery matches on them)",
                        );
                    }
                    let skill_name = skill.name.clone().unwrap_or_else(|| skill.id.clone());
                    skills.push(Skill {
                        id: skill.id.clone(),
                        description: skill
                            .description
                            .clone()
                            .unwrap_or_else(|| skill_name.clone()),
                        name: skill_name,
                        tags: skill.tags.clone(),
                        tag_set: self.tag_set(&skill.tags),
                    });
                }
            }
        }
        Card {
            name,
            description: a.description.clone().unwrap_or_default(),
            version: a.version.clone().unwrap_or_else(|| "1.0.0".to_string()),
            url,
            streaming: caps.and_then(|c| c.streaming).unwrap_or(true),
            push_notifications: caps.and_then(|c| c.push_notifications).unwrap_or(false),
            skills,
            source: None,
            file: None,
        }
    }

    fn empty_card(&self, name: String) -> Card {
        Card {
            url: default_url(&name),
            name,
            description: String::new(),
            version: String::new(),
            streaming: false,
            push_notifications: false,
            skills: Vec::new(),
            source: None,
            file: None,
        }
    }

    fn agent(&mut self, i: usize, a: AgentFile, card: Card, names: &Names) -> Agent {
        let clearance = self.level(at!["agents", i, "clearance"], &a.clearance, names);
        let handler = a
            .handler
            .into_iter()
            .enumerate()
            .map(|(j, step)| self.handler_step(at!["agents", i, "handler", j], step, names))
            .collect();
        Agent {
            sym: self.symbols.intern(&card.name),
            card,
            tenant: self.symbols.intern(&a.tenant),
            clearance,
            required_scopes: self.syms(&a.required_scopes),
            scopes: self.syms(&a.scopes),
            handler,
            results: Vec::new(),
        }
    }

    fn handler_step(&mut self, at: Vec<Seg>, step: HandlerStepFile, names: &Names) -> HandlerStep {
        match step {
            HandlerStepFile::Status { state, message } => {
                let s = TaskState::from_a2a(&state.replace('_', "-")).unwrap_or(TaskState::Failed);
                if message.as_deref() == Some("") {
                    self.problem(
                        child(&at, &state),
                        format!("an empty status message; write `- {state}` for a status change without one"),
                    );
                }
                HandlerStep::Status(s, message)
            }
            HandlerStepFile::Message(text) => {
                if text.is_empty() {
                    self.problem(child(&at, "message"), "`message` must not be empty");
                }
                HandlerStep::Message(text)
            }
            HandlerStepFile::Artifact(a) => {
                let has_text = a.text.as_ref().is_some_and(|t| !t.is_empty());
                let has_data = a.data.as_ref().is_some_and(|d| !d.is_empty());
                if !has_text && !has_data {
                    let mut at = at;
                    at.push("artifact".into());
                    self.problem(at, "an artifact needs a non-empty `text` or a non-empty `data` mapping (or both)");
                }
                HandlerStep::Artifact(ArtifactSpec {
                    name: a.name,
                    text: a.text.filter(|t| !t.is_empty()),
                    data: a.data.filter(|d| !d.is_empty()),
                    from: Vec::new(),
                })
            }
            HandlerStepFile::Delegate(d) => {
                let mut at = at;
                at.push("delegate".into());
                let to = self.target(&at, d.to, names);
                self.non_empty_text(child(&at, "text"), &d.text);
                HandlerStep::Delegate(Delegate {
                    to,
                    message: MessageSpec {
                        text: d.text,
                        data: None,
                    },
                    result: None,
                    timeout: None,
                    retry: Retry::default(),
                    on_pause: OnPause::Cancel,
                    replies: Vec::new(),
                    on_error: match d.on_error {
                        OnErrorFile::Fail => OnError::Fail,
                        OnErrorFile::Continue => OnError::Continue,
                    },
                })
            }
        }
    }

    fn target(&mut self, at: &[Seg], to: TargetFile, names: &Names) -> Target {
        match to {
            TargetFile::Agent(name) => Target::Agent(self.agent_ref(child(at, "to"), &name, names)),
            TargetFile::Discover(tags) => {
                if tags.is_empty() {
                    self.problem(
                        [child(at, "to"), vec![Seg::from("discover")]].concat(),
                        "`discover` needs at least one tag",
                    );
                }
                Target::Discover(self.tag_set(&tags))
            }
        }
    }

    /// Resolves a name in `table`, or records `unknown` (with a "did you mean") at the reference.
    fn resolve(
        &mut self,
        at: Vec<Seg>,
        name: &str,
        table: &HashMap<String, usize>,
        unknown: impl FnOnce() -> String,
    ) -> usize {
        if let Some(&ix) = table.get(name) {
            return ix;
        }
        let msg = with_hint(unknown(), name, table.keys().map(String::as_str));
        self.problem(at, msg);
        0
    }

    fn agent_ref(&mut self, at: Vec<Seg>, name: &str, names: &Names) -> AgentIx {
        self.resolve(at, name, &names.agents, || {
            format!("unknown agent `{name}`; agents are declared under `agents`")
        })
    }

    fn caller_ref(&mut self, at: Vec<Seg>, id: &str, names: &Names) -> CallerIx {
        self.resolve(at, id, &names.callers, || {
            format!("unknown caller `{id}`; callers are declared under `callers`")
        })
    }

    fn alias_ref(&mut self, at: Vec<Seg>, alias: &str, names: &Names) -> AliasIx {
        self.resolve(at, alias, &names.aliases, || {
            format!("unknown alias `{alias}`: no earlier step has `as: {alias}`")
        })
    }

    fn non_empty_text(&mut self, at: Vec<Seg>, text: &str) {
        if text.is_empty() {
            self.problem(at, "`text` must not be empty");
        }
    }

    fn caller(&mut self, i: usize, c: CallerFile, names: &Names) -> Caller {
        let classification = self.level(
            at!["callers", i, "classification"],
            &c.classification,
            names,
        );
        for (j, id) in c.delegation_chain.iter().enumerate() {
            if id.is_empty() {
                self.problem(
                    at!["callers", i, "delegation_chain", j],
                    "a delegation chain entry must not be empty",
                );
            }
        }
        if c.id.is_empty() {
            self.problem(at!["callers", i, "id"], "a caller id must not be empty");
        }
        Caller {
            sym: self.symbols.intern(&c.id),
            id: c.id,
            tenant: self.symbols.intern(&c.tenant),
            classification,
            scopes: self.syms(&c.scopes),
            delegation_chain: self.syms(&c.delegation_chain),
        }
    }

    fn task_ref(
        &mut self,
        at: &[Seg],
        task: Option<String>,
        task_id: Option<String>,
        names: &Names,
    ) -> TaskRef {
        match (task, task_id) {
            (Some(alias), None) => TaskRef::Alias(self.alias_ref(child(at, "task"), &alias, names)),
            (None, Some(id)) => TaskRef::Id(id),
            (Some(_), Some(_)) => {
                self.problem(
                    child(at, "task_id"),
                    "give `task` (an alias) or `task_id` (a literal id), not both",
                );
                TaskRef::Id(String::new())
            }
            (None, None) => {
                self.problem(
                    path(at),
                    "this step needs `task` (an alias) or `task_id` (a literal id)",
                );
                TaskRef::Id(String::new())
            }
        }
    }

    fn message(&mut self, at: &[Seg], text: String, data: Option<DataMap>) -> MessageSpec {
        self.non_empty_text(child(at, "text"), &text);
        MessageSpec {
            text,
            data: data.filter(|d| !d.is_empty()),
        }
    }

    fn step(
        &mut self,
        i: usize,
        step: StepFile,
        names: &mut Names,
        aliases: &mut Vec<String>,
    ) -> Step {
        let at = at!["steps", i, step.kind()];
        match step {
            StepFile::Discover(d) => {
                let caller = self.caller_ref(child(&at, "caller"), &d.caller, names);
                let limit = match d.limit {
                    None => None,
                    Some(l) if l >= 0 => Some(usize::try_from(l).unwrap_or(usize::MAX)),
                    Some(l) => {
                        self.problem(
                            child(&at, "limit"),
                            format!("limit must be 0 or more, not {l}"),
                        );
                        None
                    }
                };
                if d.tags.is_empty() {
                    self.problem(child(&at, "tags"), "`discover` needs at least one tag");
                }
                Step::Discover {
                    caller,
                    tags: self.tag_set(&d.tags),
                    limit,
                }
            }
            StepFile::Send(s) => Step::Send(self.send(&at, s, false, names, aliases)),
            StepFile::Stream(s) => Step::Send(self.send(&at, s, true, names, aliases)),
            StepFile::Reply(r) => Step::Reply {
                caller: self.caller_ref(child(&at, "caller"), &r.caller, names),
                task: self.task_ref(&at, r.task, r.task_id, names),
                message: self.message(&at, r.text, r.data),
            },
            StepFile::SetPushConfig(p) => Step::SetPushConfig {
                caller: self.caller_ref(child(&at, "caller"), &p.caller, names),
                task: self.task_ref(&at, p.task, p.task_id, names),
                agent: p
                    .agent
                    .map(|a| self.agent_ref(child(&at, "agent"), &a, names)),
                push: PushSpec {
                    url: p.url,
                    token: Secret::new(p.token.unwrap_or_default()),
                },
            },
            StepFile::Cancel(t) => Step::Cancel {
                caller: self.caller_ref(child(&at, "caller"), &t.caller, names),
                task: self.task_ref(&at, t.task, t.task_id, names),
            },
            StepFile::Get(t) => Step::Get {
                caller: self.caller_ref(child(&at, "caller"), &t.caller, names),
                task: self.task_ref(&at, t.task, t.task_id, names),
            },
        }
    }

    fn send(
        &mut self,
        at: &[Seg],
        s: SendStepFile,
        stream: bool,
        names: &mut Names,
        aliases: &mut Vec<String>,
    ) -> Send {
        let caller = self.caller_ref(child(at, "caller"), &s.caller, names);
        let to = self.target(at, s.to, names);
        let context = match (s.context, s.context_of) {
            (None, None) => ContextSpec::Fresh,
            (Some(c), None) => {
                if c.is_empty() {
                    self.problem(child(at, "context"), "`context` must not be empty");
                }
                ContextSpec::Literal(c)
            }
            (None, Some(alias)) => {
                ContextSpec::Of(self.alias_ref(child(at, "context_of"), &alias, names))
            }
            (Some(_), Some(_)) => {
                self.problem(
                    child(at, "context_of"),
                    "give `context` or `context_of`, not both",
                );
                ContextSpec::Fresh
            }
        };
        let message = self.message(at, s.text, s.data);
        let push = s.push.map(|p| PushSpec {
            url: p.url,
            token: Secret::new(p.token.unwrap_or_default()),
        });
        // The alias is defined after the step's own references are resolved: a step cannot name itself.
        let alias = s.alias.map(|name| {
            let here = child(at, "as");
            if name.is_empty() {
                self.problem(here, "an alias (`as`) must not be empty");
            } else if names.aliases.contains_key(&name) {
                self.problem(
                    here,
                    format!("duplicate alias `{name}`: aliases are unique"),
                );
            }
            let ix = aliases.len();
            names.aliases.entry(name.clone()).or_insert(ix);
            aliases.push(name);
            ix
        });
        Send {
            stream,
            caller,
            to,
            message,
            alias,
            push,
            context,
            return_immediately: false,
        }
    }
}

impl Loader<'_> {
    fn expectation(
        &mut self,
        i: usize,
        e: ExpectFile,
        names: &Names,
        alias_steps: &[usize],
        steps: &[Step],
    ) -> Option<Expectation> {
        let at = at!["expect", i];
        let kinds = [
            e.task.is_some(),
            e.denied.is_some(),
            e.pushes.is_some(),
            e.errors.is_some(),
        ];
        if kinds.iter().filter(|&&k| k).count() != 1 {
            self.problem(
                at,
                "an expectation has exactly one of `task`, `denied`, `pushes`, `errors`",
            );
            return None;
        }
        if e.task.is_none() && (e.state.is_some() || e.delegation_chain.is_some()) {
            self.problem(at, "`state` and `delegation_chain` go with `task`");
            return None;
        }
        if e.denied.is_none() && e.codes.is_some() {
            self.problem(child(&at, "codes"), "`codes` goes with `denied`");
            return None;
        }
        if let Some(alias) = e.task {
            if e.state.is_none() && e.delegation_chain.is_none() {
                self.problem(
                    child(&at, "task"),
                    "a `task` expectation needs `state`, `delegation_chain` or both",
                );
                return None;
            }
            let alias = self.alias_ref(child(&at, "task"), &alias, names);
            let state = match e.state {
                None => None,
                Some(s) => match TaskState::from_a2a(&s.replace('_', "-")) {
                    Some(st) => Some(st),
                    None => {
                        let all = TaskState::ALL.map(|t| t.as_str());
                        let msg = with_hint(format!("unknown task state `{s}`"), &s, all);
                        self.problem(child(&at, "state"), msg);
                        None
                    }
                },
            };
            return Some(Expectation::Task(TaskExpectation {
                path: TaskPath {
                    alias,
                    hops: Vec::new(),
                },
                state: state.map(|s| vec![s]),
                delegation_chain: e.delegation_chain,
                history: None,
                outcome: None,
                text: None,
                data: Vec::new(),
                attempt: None,
            }));
        }
        if let Some(step) = e.denied {
            let here = child(&at, "denied");
            let step = match step {
                StepRefFile::Alias(a) => alias_steps
                    .get(self.alias_ref(here.clone(), &a, names))
                    .copied()
                    .unwrap_or(0),
                StepRefFile::Step(n) => usize::try_from(n).unwrap_or(0),
            };
            if !matches!(steps.get(step.wrapping_sub(1)), Some(Step::Send(_))) {
                self.problem(here, format!("`denied` names step {step}, which is not a send or stream step of this file"));
                return None;
            }
            let mut codes = Vec::new();
            for (j, c) in e.codes.unwrap_or_default().iter().enumerate() {
                match crate::engine::admission::DenialCode::ALL
                    .into_iter()
                    .find(|d| d.as_str() == c)
                {
                    Some(code) => codes.push(code),
                    None => {
                        let msg = with_hint(
                            format!("unknown denial code `{c}`"),
                            c,
                            crate::engine::admission::DenialCode::ALL.map(|d| d.as_str()),
                        );
                        self.problem([child(&at, "codes"), vec![Seg::Index(j)]].concat(), msg);
                    }
                }
            }
            return Some(Expectation::Denied { step, codes });
        }
        if let Some(p) = e.pushes {
            let all = TaskState::ALL.map(|t| t.as_str());
            let list = self.count_or_list(child(&at, "pushes"), p, &all, TaskState::from_a2a)?;
            return Some(Expectation::Pushes(list));
        }
        let e = e.errors?;
        let all = crate::engine::record::ErrorCode::ALL.map(|c| c.as_str());
        let list = self.count_or_list(child(&at, "errors"), e, &all, |s| {
            crate::engine::record::ErrorCode::ALL
                .into_iter()
                .find(|c| c.as_str() == s)
        })?;
        Some(Expectation::Errors(list))
    }

    fn count_or_list<T>(
        &mut self,
        at: Vec<Seg>,
        value: CountOrList,
        all: &[&str],
        parse: impl Fn(&str) -> Option<T>,
    ) -> Option<Expected<T>> {
        match value {
            CountOrList::Count(n) if n >= 0 => {
                Some(Expected::Count(usize::try_from(n).unwrap_or(usize::MAX)))
            }
            CountOrList::Count(n) => {
                self.problem(at, format!("a count must be 0 or more, not {n}"));
                None
            }
            CountOrList::List(items) => {
                let mut out = Vec::new();
                for (j, item) in items.iter().enumerate() {
                    match parse(item) {
                        Some(v) => out.push(v),
                        None => {
                            let msg = with_hint(
                                format!("unknown value `{item}`"),
                                item,
                                all.iter().copied(),
                            );
                            self.problem([at.clone(), vec![Seg::Index(j)]].concat(), msg);
                        }
                    }
                }
                Some(Expected::List(out))
            }
        }
    }
}

/// Names visible to references, built up as the file is read.
struct Names {
    levels: Vec<String>,
    agents: HashMap<String, AgentIx>,
    callers: HashMap<String, CallerIx>,
    aliases: HashMap<String, AliasIx>,
}

impl Names {
    fn new(levels: &[String]) -> Self {
        Names {
            levels: levels.to_vec(),
            agents: HashMap::new(),
            callers: HashMap::new(),
            aliases: HashMap::new(),
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
