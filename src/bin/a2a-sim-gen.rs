//! `a2a-sim-gen`: prints one synthetic `a2a-sim` scenario (YAML) to stdout, reproducibly.
//!
//! Benchmarks and the example corpus need scenarios larger and more varied than anyone writes by
//! hand. This tool makes them from a seed. The same flags give byte-identical output on every
//! machine: the PRNG is splitmix64 (implemented below, no `rand`), no hash-map order and no
//! floating point reach the output, and every string is written as a JSON string literal (valid
//! YAML whatever it contains).
//!
//! ```text
//! a2a-sim-gen --seed N --agents A --steps S [--tenants T] [--skills-per-agent K]
//!             [--callers C] [--history H] [--nesting-depth D]
//!
//! a2a-sim-gen --seed 1 --agents 200 --steps 100000 > bench.yaml    # a benchmark world
//! a2a-sim-gen --seed 7 --agents 20 --steps 50 > corpus/seed-7.yaml # a small corpus file
//! a2a-sim-gen --seed 1 --history 10000 > long.yaml                 # one task, 10,000 pauses
//! ```
//!
//! A synthetic scenario (format: `shared/docs/scenario-format.md`) has:
//! - `A` agents, round-robin over `T` tenants (default `min(3, A)`), mostly cleared high; about
//!   half can push; `K` skills each (default 2) tagged from a vocabulary of 50 tags; some
//!   `required_scopes`. Handlers are plain (`working`, `artifact`, `completed`), multi-turn (one
//!   `input_required` or, rarely, `auth_required` pause), failing, or nested: a `delegate` to a
//!   higher-numbered agent of the same tenant (so no cycles), in chains at most `D` hops long
//!   (default 3). A delegating agent holds the scopes its callee requires, and `max_depth` leaves
//!   room for the longest chain, so nested delegation is admitted unless clearance says otherwise.
//! - `C` callers (default two per tenant) over the tenants, with a classification, scopes that
//!   usually cover their tenant's agents, and sometimes a `delegation_chain` of free upstream ids.
//! - exactly `S` driver steps: mostly `send`/`stream` (aliased `t1`, `t2`, …; named or by
//!   discovery; some to another tenant or lacking a scope, hence denied; some with `push`, `data`,
//!   `context` or `context_of`), `reply` to paused tasks of the same caller, `set_push_config`
//!   (allowed hosts, refused hosts, missing tokens), `get`, `cancel` and `discover`. An alias is
//!   only ever used after the step that defines it.
//!
//! With `--history H` (> 0) it prints a long-history scenario instead: one agent whose handler
//! pauses on `input_required` H times, one caller, one `send` aliased `long` and H `reply` steps to
//! it — for measuring how cost grows with the number of status changes of one task. The other
//! flags, `--seed` included, do not change that scenario.
//!
//! Agents and callers depend only on the seed and the world flags, never on `--steps`, so two
//! files that differ only in `--steps` share the same world.

use std::collections::BTreeSet;
use std::fmt::{self, Write as _};
use std::io::Write as _;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};

/// Raw flags; [`Args::into_mode`] turns them into a validated [`Mode`].
#[derive(Debug, Parser)]
#[command(
    name = "a2a-sim-gen",
    version,
    about = "Print a synthetic a2a-sim scenario (YAML) to stdout, reproducibly",
    override_usage = "a2a-sim-gen --seed N --agents A --steps S [--tenants T] [--skills-per-agent K] \
                      [--callers C] [--nesting-depth D]\n       \
                      a2a-sim-gen --seed N --history H"
)]
struct Args {
    /// Seed of the generator: the same flags always give the same bytes
    #[arg(long)]
    seed: u64,
    /// Number of agents
    #[arg(long, required_unless_present = "history")]
    agents: Option<usize>,
    /// Number of driver steps (exactly)
    #[arg(long, required_unless_present = "history")]
    steps: Option<usize>,
    /// Number of tenants [default: min(3, agents)]
    #[arg(long)]
    tenants: Option<usize>,
    /// Skills per agent
    #[arg(long, default_value_t = 2)]
    skills_per_agent: usize,
    /// Number of callers [default: 2 per tenant]
    #[arg(long)]
    callers: Option<usize>,
    /// When > 0: a long-history scenario instead (one task paused and resumed H times); the other
    /// flags are then ignored
    #[arg(long, default_value_t = 0)]
    history: usize,
    /// Longest chain of nested delegations a handler starts
    #[arg(long, default_value_t = 3)]
    nesting_depth: usize,
}

/// The validated flags of a synthetic scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Config {
    seed: u64,
    agents: usize,
    steps: usize,
    tenants: usize,
    skills_per_agent: usize,
    callers: usize,
    nesting_depth: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Mode {
    Synthetic(Config),
    LongHistory { history: usize },
}

impl Args {
    fn into_mode(self) -> Result<Mode, String> {
        if self.history > 0 {
            return Ok(Mode::LongHistory {
                history: self.history,
            });
        }
        let agents = self
            .agents
            .ok_or("--agents is required unless --history is more than 0")?;
        let steps = self
            .steps
            .ok_or("--steps is required unless --history is more than 0")?;
        if agents == 0 {
            return Err("--agents must be at least 1".into());
        }
        let tenants = self.tenants.unwrap_or(agents.min(3));
        if tenants == 0 || tenants > agents {
            return Err(format!(
                "--tenants must be between 1 and the number of agents ({agents}), got {tenants}"
            ));
        }
        if self.skills_per_agent == 0 {
            return Err("--skills-per-agent must be at least 1: every agent needs a skill".into());
        }
        let callers = self.callers.unwrap_or(2 * tenants);
        if callers == 0 {
            return Err("--callers must be at least 1".into());
        }
        Ok(Mode::Synthetic(Config {
            seed: self.seed,
            agents,
            steps,
            tenants,
            skills_per_agent: self.skills_per_agent,
            callers,
            nesting_depth: self.nesting_depth,
        }))
    }
}

fn main() -> ExitCode {
    let mode = match Args::parse().into_mode() {
        Ok(mode) => mode,
        Err(message) => Args::command()
            .error(ErrorKind::ValueValidation, message)
            .exit(),
    };
    let yaml = match &mode {
        Mode::Synthetic(config) => generate(config),
        Mode::LongHistory { history } => generate_long_history(*history),
    };
    let Ok(yaml) = yaml else {
        eprintln!("a2a-sim-gen: formatting into a String failed; this is a bug");
        return ExitCode::FAILURE;
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(yaml.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => ExitCode::SUCCESS,
        // `a2a-sim-gen ... | head` is a normal way to look at a file.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("a2a-sim-gen: cannot write the scenario: {e}");
            ExitCode::FAILURE
        }
    }
}

/// splitmix64 (Steele, Lea & Flood 2014): tiny, fast, and fully specified by its seed, so the
/// output cannot change with a library upgrade or a platform.
struct Rng {
    state: u64,
}

impl Rng {
    fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`) by multiply-shift: no modulo, and the same on 32- and 64-bit
    /// targets.
    fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// True with probability `p` percent.
    fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn choose<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// An index into `weights`, drawn in proportion to them.
    fn weighted(&mut self, weights: &[usize]) -> usize {
        let mut roll = self.below(weights.iter().sum());
        for (i, &w) in weights.iter().enumerate() {
            if roll < w {
                return i;
            }
            roll -= w;
        }
        weights.len() - 1
    }
}

const TAGS: [&str; 50] = [
    "sanctions",
    "screening",
    "kyc",
    "aml",
    "payments",
    "fx",
    "invoices",
    "ledger",
    "reconciliation",
    "credit",
    "risk",
    "fraud",
    "onboarding",
    "identity",
    "documents",
    "ocr",
    "translation",
    "summarization",
    "search",
    "retrieval",
    "legal",
    "contracts",
    "compliance",
    "audit",
    "reporting",
    "tax",
    "payroll",
    "hr",
    "scheduling",
    "calendar",
    "email",
    "crm",
    "sales",
    "marketing",
    "support",
    "tickets",
    "billing",
    "shipping",
    "inventory",
    "procurement",
    "pricing",
    "forecasting",
    "analytics",
    "dashboards",
    "security",
    "incident",
    "monitoring",
    "deployment",
    "code-review",
    "testing",
];

const VERBS: [&str; 10] = [
    "screen",
    "check",
    "summarize",
    "extract",
    "route",
    "score",
    "draft",
    "review",
    "reconcile",
    "lookup",
];

const SCOPES: [&str; 12] = [
    "kyc:read",
    "sanctions:screen",
    "payments:write",
    "ledger:read",
    "documents:read",
    "hr:read",
    "crm:write",
    "billing:write",
    "security:admin",
    "audit:read",
    "tax:file",
    "support:write",
];

/// The default classification levels, lowest first; ranks are indices.
const LEVELS: [&str; 4] = ["public", "internal", "confidential", "restricted"];
/// Agents are mostly cleared high, callers' data mostly low: most sends pass classification.
const CLEARANCE_WEIGHTS: [usize; 4] = [5, 15, 40, 40];
const CLASSIFICATION_WEIGHTS: [usize; 4] = [30, 40, 25, 5];

const QUESTIONS: [&str; 6] = [
    "Which account should I use?",
    "Which date range do you mean?",
    "Please confirm the counterparty name.",
    "Should I include closed items?",
    "Which currency should the totals be in?",
    "Is this urgent?",
];

const PUSH_HOSTS: [&str; 2] = ["hooks.example.com", "*.hooks.example.net"];

/// Pass the host check of `PUSH_HOSTS` (the port does not matter; the parser lower-cases hosts).
const ALLOWED_PUSH_URLS: [&str; 5] = [
    "https://hooks.example.com/a2a",
    "https://hooks.example.com:8443/a2a/events",
    "https://eu.hooks.example.net/cb",
    "https://a.b.hooks.example.net/cb",
    "https://HOOKS.example.com/a2a",
];

/// Fail the host check, each for a different reason.
const REFUSED_PUSH_URLS: [&str; 8] = [
    "http://hooks.example.com/a2a",
    "https://hooks.example.net/cb",
    "https://evil.example.org/hook",
    "https://hooks.example.com@evil.test/",
    "https://hooks.example.com.evil.test/",
    "https://203.0.113.7/hook",
    "https://evil.test#hooks.example.com",
    "https://user:pw@hooks.example.com/a2a",
];

/// The longest caller `delegation_chain` generated (`gateway-N`, `upstream-N`); `max_depth` must
/// leave room for it.
const MAX_CALLER_CHAIN: usize = 2;
/// How far ahead (in same-tenant agents) a handler looks for someone to delegate to.
const DELEGATE_LOOKAHEAD: usize = 8;

/// A string written as a JSON string literal, which is also a valid YAML double-quoted scalar.
struct Q<'a>(&'a str);

impl fmt::Display for Q<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_char('"')?;
        for c in self.0.chars() {
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                '\t' => f.write_str("\\t")?,
                '\u{08}' => f.write_str("\\b")?,
                '\u{0C}' => f.write_str("\\f")?,
                c if u32::from(c) < 0x20 => write!(f, "\\u{:04x}", u32::from(c))?,
                c => f.write_char(c)?,
            }
        }
        f.write_char('"')
    }
}

/// A flow sequence of strings: `["a", "b"]`.
struct QList<'a, S>(&'a [S]);

impl<S: AsRef<str>> fmt::Display for QList<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_char('[')?;
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", Q(s.as_ref()))?;
        }
        f.write_char(']')
    }
}

/// A value of a `data` mapping.
enum DataValue {
    Int(u64),
    Str(String),
    Bool(bool),
}

/// A flow mapping of data, keys in the order given (the report keeps the file's key order).
struct DataMap(Vec<(&'static str, DataValue)>);

impl fmt::Display for DataMap {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_char('{')?;
        for (i, (key, value)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}: ", Q(key))?;
            match value {
                DataValue::Int(n) => write!(f, "{n}")?,
                DataValue::Str(s) => write!(f, "{}", Q(s))?,
                DataValue::Bool(b) => write!(f, "{b}")?,
            }
        }
        f.write_char('}')
    }
}

struct Skill {
    id: String,
    name: String,
    tags: Vec<&'static str>,
}

/// The shape of an agent's handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Plain,
    /// Pauses once (`input_required`, or `auth_required` when `auth`), then completes.
    MultiTurn {
        auth: bool,
    },
    Failing,
    /// Delegates to agent `to` (same tenant, higher index).
    Nested {
        to: usize,
    },
}

impl Script {
    fn pauses(self) -> bool {
        matches!(self, Script::MultiTurn { .. })
    }
}

enum HandlerStep {
    Status(&'static str, Option<String>),
    Message(String),
    Artifact {
        name: String,
        text: Option<String>,
        data: Option<DataMap>,
    },
    Delegate {
        to: usize,
        text: String,
        on_error_continue: bool,
    },
}

struct Agent {
    name: String,
    description: String,
    version: String,
    tenant: usize,
    clearance: usize,
    required_scopes: Vec<&'static str>,
    scopes: Vec<&'static str>,
    push_notifications: bool,
    skills: Vec<Skill>,
    script: Script,
    /// Nested delegations one task of this agent makes, transitively.
    chain_len: usize,
    handler: Vec<HandlerStep>,
}

struct Caller {
    id: String,
    tenant: usize,
    classification: usize,
    scopes: Vec<&'static str>,
    delegation_chain: Vec<String>,
}

/// The agents and callers of a synthetic scenario.
struct World {
    agents: Vec<Agent>,
    callers: Vec<Caller>,
    /// Agent indices per tenant, ascending.
    tenant_agents: Vec<Vec<usize>>,
    max_depth: usize,
}

fn tenant_name(t: usize) -> String {
    format!("tenant-{t}")
}

fn push_unique(list: &mut Vec<&'static str>, item: &'static str) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// 1 to `max` distinct tags from the 6 tags after `home`: neighbouring agents share tags, so
/// discovery scores differ and ties happen.
fn tags_near(rng: &mut Rng, home: usize, max: usize) -> Vec<&'static str> {
    let n = 1 + rng.below(max);
    let mut tags = Vec::with_capacity(n);
    while tags.len() < n {
        push_unique(&mut tags, TAGS[(home + rng.below(6)) % TAGS.len()]);
    }
    tags
}

impl World {
    fn build(config: &Config, rng: &mut Rng) -> World {
        let mut agents: Vec<Agent> = (0..config.agents)
            .map(|i| Self::agent(config, rng, i))
            .collect();
        let mut tenant_agents = vec![Vec::new(); config.tenants];
        for (i, agent) in agents.iter().enumerate() {
            tenant_agents[agent.tenant].push(i);
        }
        Self::resolve_delegations(config, rng, &mut agents);
        for i in 0..agents.len() {
            agents[i].handler = Self::handler(rng, &agents, i);
        }
        let callers = (0..config.callers)
            .map(|j| Self::caller(config, rng, &agents, &tenant_agents, j))
            .collect();
        World {
            agents,
            callers,
            tenant_agents,
            // A driver task's chain is the caller's chain plus the caller; each nested hop adds
            // one; `depth` refuses a new chain of `max_depth`.
            max_depth: config.nesting_depth + MAX_CALLER_CHAIN + 2,
        }
    }

    /// Everything but the handler; `Nested` is only a wish until `resolve_delegations`.
    fn agent(config: &Config, rng: &mut Rng, i: usize) -> Agent {
        let tenant = i % config.tenants;
        let home = rng.below(TAGS.len());
        let mut skills: Vec<Skill> = Vec::with_capacity(config.skills_per_agent);
        for k in 0..config.skills_per_agent {
            let tags = tags_near(rng, home, 3);
            let verb = rng.choose(&VERBS);
            let mut id = format!("{verb}-{}", tags[0]);
            if skills.iter().any(|s| s.id == id) {
                id = format!("{id}-{k}");
            }
            let name = format!("{} {}", capitalize(verb), tags[0]);
            skills.push(Skill { id, name, tags });
        }
        let mut required_scopes = Vec::new();
        let roll = rng.below(100);
        if roll < 45 {
            push_unique(&mut required_scopes, rng.choose(&SCOPES));
        }
        if roll < 10 {
            push_unique(&mut required_scopes, rng.choose(&SCOPES));
        }
        let script = match rng.weighted(&[45, 22, 4, 29]) {
            0 => Script::Plain,
            1 => Script::MultiTurn {
                auth: rng.percent(15),
            },
            2 => Script::Failing,
            _ => Script::Nested { to: usize::MAX },
        };
        Agent {
            name: format!("agent-{i:03}"),
            description: format!(
                "Handles {} requests for {}",
                skills[0].tags.join(", "),
                tenant_name(tenant)
            ),
            version: format!("1.{}.{}", rng.below(5), rng.below(10)),
            tenant,
            clearance: rng.weighted(&CLEARANCE_WEIGHTS),
            required_scopes,
            scopes: Vec::new(),
            push_notifications: rng.percent(50),
            skills,
            script,
            chain_len: 0,
            handler: Vec::new(),
        }
    }

    /// Picks each delegating agent's callee among the next few agents of its tenant that neither
    /// pause nor fail and whose own chain leaves room: higher indices only, so no cycles. Runs
    /// from the last agent down so every callee's chain length is final when it is looked at.
    fn resolve_delegations(config: &Config, rng: &mut Rng, agents: &mut [Agent]) {
        let step = config.tenants;
        for i in (0..agents.len()).rev() {
            if agents[i].script != (Script::Nested { to: usize::MAX }) {
                continue;
            }
            let candidates: Vec<usize> = (1..=DELEGATE_LOOKAHEAD)
                .map(|m| i + m * step)
                .take_while(|&j| j < agents.len())
                .filter(|&j| {
                    matches!(agents[j].script, Script::Plain | Script::Nested { .. })
                        && agents[j].chain_len < config.nesting_depth
                })
                .collect();
            if candidates.is_empty() {
                agents[i].script = Script::Plain;
                continue;
            }
            let to = rng.choose(&candidates);
            agents[i].script = Script::Nested { to };
            agents[i].chain_len = agents[to].chain_len + 1;
            // The nested caller context carries the delegating agent's own scopes.
            let needed = agents[to].required_scopes.clone();
            for scope in needed {
                push_unique(&mut agents[i].scopes, scope);
            }
        }
        for agent in agents.iter_mut() {
            if rng.percent(25) {
                push_unique(&mut agent.scopes, rng.choose(&SCOPES));
            }
        }
    }

    fn handler(rng: &mut Rng, agents: &[Agent], i: usize) -> Vec<HandlerStep> {
        let agent = &agents[i];
        let tag = agent.skills[0].tags[0];
        let mut steps = Vec::new();
        let working_text = rng
            .percent(70)
            .then(|| format!("Working on the {tag} request"));
        steps.push(HandlerStep::Status("working", working_text));
        match agent.script {
            Script::Plain => {
                if rng.percent(20) {
                    steps.push(progress_message(rng, tag));
                }
                steps.push(artifact(rng, agent, tag));
            }
            Script::MultiTurn { auth } => {
                let pause = if auth {
                    HandlerStep::Status(
                        "auth_required",
                        Some("Please sign in to the records system".into()),
                    )
                } else {
                    HandlerStep::Status("input_required", Some(rng.choose(&QUESTIONS).into()))
                };
                steps.push(pause);
                steps.push(HandlerStep::Status("working", None));
                if rng.percent(50) {
                    steps.push(artifact(rng, agent, tag));
                }
            }
            Script::Failing => {
                steps.push(HandlerStep::Status(
                    "failed",
                    Some(format!("The {tag} backend is unavailable")),
                ));
                return steps;
            }
            Script::Nested { to } => {
                if rng.percent(20) {
                    steps.push(progress_message(rng, tag));
                }
                steps.push(HandlerStep::Delegate {
                    to,
                    text: format!(
                        "Sub-request from {}: {} for {tag}",
                        agent.name, agents[to].skills[0].id
                    ),
                    on_error_continue: rng.percent(15),
                });
                if rng.percent(50) {
                    steps.push(artifact(rng, agent, tag));
                }
            }
        }
        let done = rng.percent(60).then(|| "Done".to_string());
        steps.push(HandlerStep::Status("completed", done));
        steps
    }

    fn caller(
        config: &Config,
        rng: &mut Rng,
        agents: &[Agent],
        tenant_agents: &[Vec<usize>],
        j: usize,
    ) -> Caller {
        let tenant = j % config.tenants;
        let needed: BTreeSet<&'static str> = tenant_agents[tenant]
            .iter()
            .flat_map(|&a| agents[a].required_scopes.iter().copied())
            .collect();
        // Usually every scope its tenant's agents require, so a missing scope is the exception.
        let mut scopes: Vec<&'static str> =
            needed.into_iter().filter(|_| rng.percent(85)).collect();
        if rng.percent(15) {
            push_unique(&mut scopes, rng.choose(&SCOPES));
        }
        // Free ids: upstream agents need not be in the file.
        let delegation_chain = match rng.below(100) {
            0..75 => Vec::new(),
            75..95 => vec![format!("upstream-{}", 1 + rng.below(5))],
            _ => vec![
                format!("gateway-{}", 1 + rng.below(3)),
                format!("upstream-{}", 1 + rng.below(5)),
            ],
        };
        Caller {
            id: format!("caller-{j}"),
            tenant,
            classification: rng.weighted(&CLASSIFICATION_WEIGHTS),
            scopes,
            delegation_chain,
        }
    }

    /// Whether `check_delegation` admits a driver send from `caller` to `agent`. Cycle and depth
    /// never deny here: callers are not agents and `max_depth` leaves room for every chain.
    fn admits(&self, caller: usize, agent: usize) -> bool {
        let (c, a) = (&self.callers[caller], &self.agents[agent]);
        c.tenant == a.tenant
            && a.clearance >= c.classification
            && a.required_scopes.iter().all(|s| c.scopes.contains(s))
    }

    /// The agent `to: {discover: tags}` picks for `caller` (semantics.md §5), if any.
    fn discover_top(&self, caller: usize, tags: &[&str]) -> Option<usize> {
        let c = &self.callers[caller];
        let mut best: Option<(usize, usize)> = None;
        for &a in &self.tenant_agents[c.tenant] {
            let agent = &self.agents[a];
            if agent.clearance < c.classification {
                continue;
            }
            let score = agent
                .skills
                .iter()
                .map(|s| tags.iter().filter(|t| s.tags.contains(t)).count())
                .max()
                .unwrap_or(0);
            let better = match best {
                _ if score == 0 => false,
                None => true,
                Some((best_score, b)) => {
                    score > best_score || (score == best_score && agent.name < self.agents[b].name)
                }
            };
            if better {
                best = Some((score, a));
            }
        }
        best.map(|(_, a)| a)
    }
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

fn progress_message(rng: &mut Rng, tag: &str) -> HandlerStep {
    HandlerStep::Message(format!("Found {} {tag} records so far", 1 + rng.below(40)))
}

/// Mostly both a text and a data part (as the seed's screening result has), sometimes one.
fn artifact(rng: &mut Rng, agent: &Agent, tag: &str) -> HandlerStep {
    let items = 1 + rng.below(500) as u64;
    let flagged = rng.below(items as usize + 1) as u64;
    let (text, data) = match rng.below(100) {
        0..15 => (true, false),
        15..25 => (false, true),
        _ => (true, true),
    };
    HandlerStep::Artifact {
        name: format!("{tag}-result"),
        text: text.then(|| format!("{items} {tag} items processed, {flagged} flagged")),
        data: data.then(|| {
            DataMap(vec![
                ("items", DataValue::Int(items)),
                ("flagged", DataValue::Int(flagged)),
                ("source", DataValue::Str(agent.name.clone())),
                ("final", DataValue::Bool(rng.percent(80))),
            ])
        }),
    }
}

/// The whole synthetic scenario for `config`.
fn generate(config: &Config) -> Result<String, fmt::Error> {
    let mut rng = Rng::new(config.seed);
    let world = World::build(config, &mut rng);
    let mut out = String::with_capacity(4096 + config.agents * 700 + config.steps * 120);
    writeln!(
        out,
        "# a2a-sim-gen --seed {} --agents {} --steps {} --tenants {} --skills-per-agent {} \
         --callers {} --nesting-depth {}",
        config.seed,
        config.agents,
        config.steps,
        config.tenants,
        config.skills_per_agent,
        config.callers,
        config.nesting_depth
    )?;
    let name = format!(
        "synthetic seed {}: {} agents, {} tenants, {} steps",
        config.seed, config.agents, config.tenants, config.steps
    );
    writeln!(out, "name: {}", Q(&name))?;
    write_policy(&mut out, world.max_depth)?;
    write_agents(&mut out, &world)?;
    write_callers(&mut out, &world)?;
    if config.steps == 0 {
        writeln!(out, "steps: []")?;
    } else {
        writeln!(out, "steps:")?;
        let mut driver = Driver {
            world: &world,
            rng,
            aliases: Vec::new(),
            pending: Vec::new(),
            tasks: 0,
        };
        for step in 1..=config.steps {
            driver.step(&mut out, step)?;
        }
    }
    Ok(out)
}

fn write_policy(out: &mut String, max_depth: usize) -> fmt::Result {
    writeln!(out, "policy:")?;
    writeln!(out, "  max_depth: {max_depth}")?;
    writeln!(out, "  push_allowed_hosts: {}", QList(&PUSH_HOSTS))
}

fn write_agents(out: &mut String, world: &World) -> fmt::Result {
    writeln!(out, "agents:")?;
    for agent in &world.agents {
        writeln!(out, "  - name: {}", Q(&agent.name))?;
        writeln!(out, "    description: {}", Q(&agent.description))?;
        writeln!(out, "    version: {}", Q(&agent.version))?;
        writeln!(out, "    tenant: {}", Q(&tenant_name(agent.tenant)))?;
        writeln!(out, "    clearance: {}", Q(LEVELS[agent.clearance]))?;
        if !agent.required_scopes.is_empty() {
            writeln!(
                out,
                "    required_scopes: {}",
                QList(&agent.required_scopes)
            )?;
        }
        if !agent.scopes.is_empty() {
            writeln!(out, "    scopes: {}", QList(&agent.scopes))?;
        }
        writeln!(
            out,
            "    capabilities: {{streaming: true, push_notifications: {}}}",
            agent.push_notifications
        )?;
        writeln!(out, "    skills:")?;
        for skill in &agent.skills {
            writeln!(
                out,
                "      - {{id: {}, name: {}, tags: {}}}",
                Q(&skill.id),
                Q(&skill.name),
                QList(&skill.tags)
            )?;
        }
        writeln!(out, "    handler:")?;
        for step in &agent.handler {
            write_handler_step(out, world, step)?;
        }
    }
    Ok(())
}

fn write_handler_step(out: &mut String, world: &World, step: &HandlerStep) -> fmt::Result {
    out.push_str("      - ");
    match step {
        HandlerStep::Status(state, None) => writeln!(out, "{state}"),
        HandlerStep::Status(state, Some(text)) => writeln!(out, "{state}: {}", Q(text)),
        HandlerStep::Message(text) => writeln!(out, "message: {}", Q(text)),
        HandlerStep::Artifact { name, text, data } => {
            write!(out, "artifact: {{name: {}", Q(name))?;
            if let Some(text) = text {
                write!(out, ", text: {}", Q(text))?;
            }
            if let Some(data) = data {
                write!(out, ", data: {data}")?;
            }
            writeln!(out, "}}")
        }
        HandlerStep::Delegate {
            to,
            text,
            on_error_continue,
        } => {
            let to = &world.agents[*to].name;
            write!(out, "delegate: {{to: {}, text: {}", Q(to), Q(text))?;
            if *on_error_continue {
                write!(out, ", on_error: {}", Q("continue"))?;
            }
            writeln!(out, "}}")
        }
    }
}

fn write_callers(out: &mut String, world: &World) -> fmt::Result {
    writeln!(out, "callers:")?;
    for caller in &world.callers {
        write!(
            out,
            "  - {{id: {}, tenant: {}, classification: {}",
            Q(&caller.id),
            Q(&tenant_name(caller.tenant)),
            Q(LEVELS[caller.classification])
        )?;
        if !caller.scopes.is_empty() {
            write!(out, ", scopes: {}", QList(&caller.scopes))?;
        }
        if !caller.delegation_chain.is_empty() {
            write!(
                out,
                ", delegation_chain: {}",
                QList(&caller.delegation_chain)
            )?;
        }
        writeln!(out, "}}")?;
    }
    Ok(())
}

/// What the generator knows about an alias it defined.
struct AliasInfo {
    caller: usize,
    /// The agent the send went to (after discovery), if any.
    agent: Option<usize>,
    /// The send created a task that is paused and not yet replied to or canceled.
    pending: bool,
}

/// How a task step names its task.
enum TaskRef {
    Alias(usize),
    Id(usize),
}

/// Writes driver steps one by one, tracking enough of the run to make them meaningful: which
/// aliases exist, who owns them, and which tasks wait for a reply.
struct Driver<'w> {
    world: &'w World,
    rng: Rng,
    /// Alias `t{k + 1}` is `aliases[k]`.
    aliases: Vec<AliasInfo>,
    /// Candidates for `reply`; entries no longer pending are dropped lazily.
    pending: Vec<usize>,
    /// Task ids the run has probably drawn so far (admitted sends and their nested tasks).
    tasks: usize,
}

impl Driver<'_> {
    fn step(&mut self, out: &mut String, step: usize) -> fmt::Result {
        // send, stream, discover, reply, set_push_config, get, cancel
        match self.rng.weighted(&[40, 15, 9, 12, 8, 9, 7]) {
            0 => self.send(out, "send", step),
            1 => self.send(out, "stream", step),
            2 => self.discover(out),
            3 => match self.take_pending() {
                Some(k) => self.reply(out, k, step),
                None => self.send(out, "send", step),
            },
            4 => self.set_push_config(out),
            5 => self.task_step(out, "get"),
            _ => self.task_step(out, "cancel"),
        }
    }

    fn alias(k: usize) -> String {
        format!("t{}", k + 1)
    }

    /// 1–2 tags a caller would search for: usually ones an agent of its tenant has.
    fn search_tags(&mut self, caller: usize, max: usize) -> Vec<&'static str> {
        let tenant = self.world.callers[caller].tenant;
        if self.rng.percent(70) {
            let agent = self.rng.choose(&self.world.tenant_agents[tenant]);
            let skill = self.rng.pick(&self.world.agents[agent].skills);
            let n = 1 + self.rng.below(max.min(skill.tags.len()));
            let mut tags = Vec::with_capacity(n);
            while tags.len() < n {
                push_unique(&mut tags, self.rng.choose(&skill.tags));
            }
            tags
        } else {
            let home = self.rng.below(TAGS.len());
            tags_near(&mut self.rng, home, max)
        }
    }

    fn send(&mut self, out: &mut String, op: &str, step: usize) -> fmt::Result {
        let world = self.world;
        let c = self.rng.below(world.callers.len());
        let caller = &world.callers[c];
        write!(out, "  - {op}: {{caller: {}, to: ", Q(&caller.id))?;
        let roll = self.rng.below(100);
        let target = if roll < 15 {
            let tags = self.search_tags(c, 2);
            write!(out, "{{discover: {}}}", QList(&tags))?;
            world.discover_top(c, &tags)
        } else {
            let tenant = if roll < 25 && world.tenant_agents.len() > 1 {
                // Another tenant's agent: a realistic `tenant` denial.
                let others = world.tenant_agents.len() - 1;
                (caller.tenant + 1 + self.rng.below(others)) % world.tenant_agents.len()
            } else {
                caller.tenant
            };
            let a = self.rng.choose(&world.tenant_agents[tenant]);
            write!(out, "{}", Q(&world.agents[a].name))?;
            Some(a)
        };
        let topic = match target {
            Some(a) => self.rng.pick(&world.agents[a].skills).tags[0],
            None => self.rng.choose(&TAGS),
        };
        let text = format!("Request {step}: please {} {topic}", self.rng.pick(&VERBS));
        write!(out, ", text: {}", Q(&text))?;
        if self.rng.percent(10) {
            let data = DataMap(vec![
                ("amount", DataValue::Int(1 + self.rng.below(100_000) as u64)),
                (
                    "currency",
                    DataValue::Str(self.rng.choose(&["EUR", "USD"]).into()),
                ),
                ("urgent", DataValue::Bool(self.rng.percent(30))),
            ]);
            write!(out, ", data: {data}")?;
        }
        let alias = self.rng.percent(85).then_some(self.aliases.len());
        if let Some(k) = alias {
            write!(out, ", as: {}", Q(&Self::alias(k)))?;
        }
        if self.rng.percent(10) {
            let url = self.push_url();
            write!(out, ", push: {{url: {}", Q(url))?;
            if let Some(token) = self.push_token() {
                write!(out, ", token: {}", Q(&token))?;
            }
            write!(out, "}}")?;
        }
        if !self.aliases.is_empty() && self.rng.percent(10) {
            // Any earlier task: a context id is a correlation key, not a credential.
            let k = self.rng.below(self.aliases.len());
            write!(out, ", context_of: {}", Q(&Self::alias(k)))?;
        } else if self.rng.percent(4) {
            let context = format!("case-{}", 1 + self.rng.below(20));
            write!(out, ", context: {}", Q(&context))?;
        }
        writeln!(out, "}}")?;

        let admitted = target.is_some_and(|a| world.admits(c, a));
        if let Some(a) = target.filter(|_| admitted) {
            self.tasks += 1 + world.agents[a].chain_len;
        }
        if let Some(k) = alias {
            let pending = admitted && target.is_some_and(|a| world.agents[a].script.pauses());
            self.aliases.push(AliasInfo {
                caller: c,
                agent: target,
                pending,
            });
            if pending {
                self.pending.push(k);
            }
        }
        Ok(())
    }

    /// A paused task to reply to, no longer pending afterwards.
    fn take_pending(&mut self) -> Option<usize> {
        while !self.pending.is_empty() {
            let k = self.pending.swap_remove(self.rng.below(self.pending.len()));
            if self.aliases[k].pending {
                self.aliases[k].pending = false;
                return Some(k);
            }
        }
        None
    }

    fn reply(&mut self, out: &mut String, k: usize, step: usize) -> fmt::Result {
        let caller = &self.world.callers[self.aliases[k].caller];
        write!(
            out,
            "  - reply: {{caller: {}, task: {}, text: {}",
            Q(&caller.id),
            Q(&Self::alias(k)),
            Q(&format!(
                "Answer {step}: {}",
                self.rng.pick(&["yes", "no", "use the default"])
            ))
        )?;
        if self.rng.percent(10) {
            let data = DataMap(vec![("confirmed", DataValue::Bool(self.rng.percent(50)))]);
            write!(out, ", data: {data}")?;
        }
        writeln!(out, "}}")
    }

    /// A caller and the task it names: mostly its own alias, sometimes another caller's (which it
    /// cannot see) or a literal id probed blindly.
    fn pick_task(&mut self) -> (usize, TaskRef) {
        let callers = self.world.callers.len();
        // Often a paused task: pushes then fire on its reply, and cancel has something to cancel.
        if !self.pending.is_empty() && self.rng.percent(35) {
            let k = self.rng.choose(&self.pending);
            if self.aliases[k].pending {
                return (self.aliases[k].caller, TaskRef::Alias(k));
            }
        }
        if !self.aliases.is_empty() && self.rng.percent(85) {
            let k = self.rng.below(self.aliases.len());
            let caller = if self.rng.percent(85) {
                self.aliases[k].caller
            } else {
                self.rng.below(callers)
            };
            (caller, TaskRef::Alias(k))
        } else {
            let id = 1 + self.rng.below(self.tasks + 3);
            (self.rng.below(callers), TaskRef::Id(id))
        }
    }

    fn write_task_ref(out: &mut String, caller: &Caller, task: &TaskRef) -> fmt::Result {
        match task {
            TaskRef::Alias(k) => write!(
                out,
                "{{caller: {}, task: {}",
                Q(&caller.id),
                Q(&Self::alias(*k))
            ),
            TaskRef::Id(n) => write!(
                out,
                "{{caller: {}, task_id: {}",
                Q(&caller.id),
                Q(&format!("task-{n}"))
            ),
        }
    }

    fn task_step(&mut self, out: &mut String, op: &str) -> fmt::Result {
        let (c, task) = self.pick_task();
        write!(out, "  - {op}: ")?;
        Self::write_task_ref(out, &self.world.callers[c], &task)?;
        writeln!(out, "}}")?;
        // The owner's cancel ends the pause: no reply to that task later.
        if let (TaskRef::Alias(k), "cancel") = (&task, op)
            && self.aliases[*k].caller == c
        {
            self.aliases[*k].pending = false;
        }
        Ok(())
    }

    fn set_push_config(&mut self, out: &mut String) -> fmt::Result {
        let (c, task) = self.pick_task();
        write!(out, "  - set_push_config: ")?;
        Self::write_task_ref(out, &self.world.callers[c], &task)?;
        if self.rng.percent(10) {
            let agent = match task {
                TaskRef::Alias(k) => self.aliases[k].agent,
                TaskRef::Id(_) => None,
            };
            let agent = agent.unwrap_or_else(|| self.rng.below(self.world.agents.len()));
            write!(out, ", agent: {}", Q(&self.world.agents[agent].name))?;
        }
        let url = self.push_url();
        write!(out, ", url: {}", Q(url))?;
        if let Some(token) = self.push_token() {
            write!(out, ", token: {}", Q(&token))?;
        }
        writeln!(out, "}}")
    }

    fn push_url(&mut self) -> &'static str {
        if self.rng.percent(65) {
            self.rng.choose(&ALLOWED_PUSH_URLS)
        } else {
            self.rng.choose(&REFUSED_PUSH_URLS)
        }
    }

    /// Mostly a token; sometimes none or an empty one (both are `missing_token`).
    fn push_token(&mut self) -> Option<String> {
        match self.rng.below(100) {
            0..15 => None,
            15..25 => Some(String::new()),
            _ => Some(format!("tok-{:08x}", self.rng.next_u64() as u32)),
        }
    }

    fn discover(&mut self, out: &mut String) -> fmt::Result {
        let c = self.rng.below(self.world.callers.len());
        let tags = self.search_tags(c, 3);
        write!(
            out,
            "  - discover: {{caller: {}, tags: {}",
            Q(&self.world.callers[c].id),
            QList(&tags)
        )?;
        if self.rng.percent(50) {
            write!(out, ", limit: {}", self.rng.below(6))?;
        }
        writeln!(out, "}}")
    }
}

/// One agent that pauses `history` times, one caller, one send and `history` replies: the task's
/// status history grows to `2 * history + 3` entries.
fn generate_long_history(history: usize) -> Result<String, fmt::Error> {
    let mut out = String::with_capacity(512 + history * 100);
    writeln!(out, "# a2a-sim-gen --history {history}")?;
    let name = format!("long history: one task paused and resumed {history} times");
    writeln!(out, "name: {}", Q(&name))?;
    write_policy(&mut out, 4)?;
    writeln!(out, "agents:")?;
    writeln!(out, "  - name: {}", Q("long-talker"))?;
    writeln!(
        out,
        "    description: {}",
        Q("Asks for more, again and again")
    )?;
    writeln!(out, "    tenant: {}", Q(&tenant_name(0)))?;
    writeln!(out, "    clearance: {}", Q("restricted"))?;
    writeln!(
        out,
        "    capabilities: {{streaming: true, push_notifications: true}}"
    )?;
    writeln!(out, "    skills:")?;
    writeln!(
        out,
        "      - {{id: {}, tags: {}}}",
        Q("converse"),
        QList(&["conversation"])
    )?;
    writeln!(out, "    handler:")?;
    for _ in 0..history {
        writeln!(out, "      - working")?;
        writeln!(out, "      - input_required: {}", Q("more?"))?;
    }
    // input-required -> completed is not a transition: resume with `working` first.
    writeln!(out, "      - working")?;
    writeln!(out, "      - completed")?;
    writeln!(out, "callers:")?;
    writeln!(
        out,
        "  - {{id: {}, tenant: {}, classification: {}}}",
        Q("caller-0"),
        Q(&tenant_name(0)),
        Q("internal")
    )?;
    writeln!(out, "steps:")?;
    writeln!(
        out,
        "  - send: {{caller: {}, to: {}, text: {}, as: {}}}",
        Q("caller-0"),
        Q("long-talker"),
        Q("Start a long conversation"),
        Q("long")
    )?;
    for i in 1..=history {
        writeln!(
            out,
            "  - reply: {{caller: {}, task: {}, text: {}}}",
            Q("caller-0"),
            Q("long"),
            Q(&format!("more {i}"))
        )?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(seed: u64, agents: usize, steps: usize) -> Config {
        Config {
            seed,
            agents,
            steps,
            tenants: agents.min(3),
            skills_per_agent: 2,
            callers: 2 * agents.min(3),
            nesting_depth: 3,
        }
    }

    fn render(config: &Config) -> String {
        generate(config).expect("formatting into a String")
    }

    /// The lines of the `steps:` list, one per driver step.
    fn step_lines(yaml: &str) -> Vec<&str> {
        yaml.lines()
            .skip_while(|l| !l.starts_with("steps:"))
            .skip(1)
            .filter(|l| l.starts_with("  - "))
            .collect()
    }

    /// The JSON string value that follows `key` in a flow mapping line.
    fn value_after(line: &str, key: &str) -> Option<String> {
        let at = line.find(key)?;
        let rest = &line[at + key.len()..];
        serde_json::Deserializer::from_str(rest)
            .into_iter::<String>()
            .next()?
            .ok()
    }

    const CASES: [(u64, usize, usize); 6] = [
        (1, 4, 10),
        (2, 20, 50),
        (3, 1, 7),
        (4, 7, 0),
        (5, 200, 3000),
        (6, 2, 1),
    ];

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        for (seed, agents, steps) in CASES {
            let c = config(seed, agents, steps);
            assert_eq!(render(&c), render(&c), "{c:?}");
            let other = Config {
                seed: seed + 100,
                ..c.clone()
            };
            assert_ne!(render(&c), render(&other), "{c:?}");
        }
    }

    #[test]
    fn the_world_does_not_depend_on_the_step_count() {
        let short = render(&config(9, 30, 5));
        let long = render(&config(9, 30, 500));
        let world = |s: &str| {
            let start = s.find("\npolicy:").unwrap_or(0);
            let end = s.find("\nsteps:").unwrap_or(s.len());
            s[start..end].to_string()
        };
        assert_eq!(world(&short), world(&long));
    }

    #[test]
    fn produces_exactly_the_requested_steps() {
        for (seed, agents, steps) in CASES {
            let yaml = render(&config(seed, agents, steps));
            assert_eq!(step_lines(&yaml).len(), steps, "seed {seed}");
            if steps == 0 {
                assert!(yaml.contains("\nsteps: []\n"));
            }
        }
        for history in [1, 5, 300] {
            let yaml = generate_long_history(history).expect("formatting into a String");
            let steps = step_lines(&yaml);
            assert_eq!(steps.len(), history + 1);
            assert!(steps[0].contains("as: \"long\""));
            assert!(steps[1..].iter().all(|l| l.contains("task: \"long\"")));
            let pauses = yaml.matches("input_required: \"more?\"").count();
            assert_eq!(pauses, history);
        }
    }

    #[test]
    fn every_alias_is_defined_once_before_it_is_used() {
        for seed in 0..40 {
            let yaml = render(&config(seed, 12, 400));
            let mut defined = BTreeSet::new();
            let mut uses = 0;
            for line in step_lines(&yaml) {
                for key in [", task: ", ", context_of: "] {
                    if let Some(alias) = value_after(line, key) {
                        assert!(defined.contains(&alias), "seed {seed}: {line}");
                        uses += 1;
                    }
                }
                if let Some(alias) = value_after(line, ", as: ") {
                    assert!(!alias.is_empty());
                    assert!(
                        defined.insert(alias),
                        "seed {seed}: duplicate alias in {line}"
                    );
                }
            }
            assert!(uses > 0, "seed {seed}: no alias was ever used");
        }
    }

    #[test]
    fn every_reply_goes_to_a_task_of_the_same_caller() {
        let yaml = render(&config(11, 20, 2000));
        let mut owner = std::collections::BTreeMap::new();
        let mut replies = 0;
        for line in step_lines(&yaml) {
            let caller = value_after(line, "{caller: ").expect("every step names its caller");
            if let Some(alias) = value_after(line, ", as: ") {
                owner.insert(alias, caller.clone());
            }
            if line.starts_with("  - reply:") {
                let alias = value_after(line, ", task: ").expect("replies name an alias");
                assert_eq!(owner.get(&alias), Some(&caller), "{line}");
                replies += 1;
            }
        }
        assert!(replies > 0);
    }

    #[test]
    fn names_in_steps_exist() {
        let c = config(12, 25, 1500);
        let yaml = render(&c);
        let agents: BTreeSet<String> = (0..c.agents).map(|i| format!("agent-{i:03}")).collect();
        let callers: BTreeSet<String> = (0..c.callers).map(|j| format!("caller-{j}")).collect();
        for line in step_lines(&yaml) {
            let caller = value_after(line, "{caller: ").expect("every step names its caller");
            assert!(callers.contains(&caller), "{line}");
            for key in [", to: ", ", agent: "] {
                if let Some(agent) = value_after(line, key) {
                    assert!(agents.contains(&agent), "{line}");
                }
            }
        }
    }

    #[test]
    fn delegations_go_up_within_a_tenant_and_respect_the_depth() {
        for seed in 0..20 {
            let c = Config {
                nesting_depth: 2,
                ..config(seed, 60, 0)
            };
            let world = World::build(&c, &mut Rng::new(seed));
            let mut longest = 0;
            for (i, agent) in world.agents.iter().enumerate() {
                let mut hops = 0;
                let mut at = i;
                while let Script::Nested { to } = world.agents[at].script {
                    assert!(to > at);
                    assert_eq!(world.agents[to].tenant, agent.tenant);
                    assert!(!world.agents[to].script.pauses());
                    for scope in &world.agents[to].required_scopes {
                        assert!(world.agents[at].scopes.contains(scope));
                    }
                    hops += 1;
                    at = to;
                }
                assert_eq!(hops, agent.chain_len);
                longest = longest.max(hops);
            }
            assert!(longest <= c.nesting_depth);
            // Deepest chain: a caller chain of MAX_CALLER_CHAIN, the driver task, and each hop.
            assert!(MAX_CALLER_CHAIN + 1 + longest < world.max_depth);
        }
        let world = World::build(&config(1, 200, 0), &mut Rng::new(1));
        assert!(world.agents.iter().any(|a| a.chain_len == 3));
    }

    #[test]
    fn no_nesting_when_depth_is_zero() {
        let c = Config {
            nesting_depth: 0,
            ..config(3, 50, 100)
        };
        assert!(!render(&c).contains("delegate:"));
    }

    #[test]
    fn strings_are_quoted_as_json() {
        for s in [
            "plain",
            "",
            "with \"quotes\" and \\ backslash",
            "line\nbreak\ttab\r\u{0}\u{1f}\u{7f}",
            "*.hooks.example.net",
            "é ünïcode ✓",
            "- [x]: {y} # z",
        ] {
            let expected = serde_json::to_string(s).expect("a string serialises");
            assert_eq!(Q(s).to_string(), expected);
        }
    }

    #[test]
    fn rng_is_splitmix64() {
        // Reference outputs of splitmix64 seeded with 1234567.
        let mut rng = Rng::new(1234567);
        let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(
            first,
            [
                6457827717110365317,
                3203168211198807973,
                9817491932198370423
            ]
        );
        let mut rng = Rng::new(7);
        assert!((0..10_000).all(|_| rng.below(3) < 3));
    }

    #[test]
    fn flags_are_validated() {
        let parse = |args: &[&str]| {
            Args::try_parse_from(std::iter::once("a2a-sim-gen").chain(args.iter().copied()))
                .map_err(|e| e.to_string())
                .and_then(Args::into_mode)
        };
        assert_eq!(
            parse(&["--seed", "1", "--agents", "2", "--steps", "3"]),
            Ok(Mode::Synthetic(Config {
                seed: 1,
                agents: 2,
                steps: 3,
                tenants: 2,
                skills_per_agent: 2,
                callers: 4,
                nesting_depth: 3,
            }))
        );
        assert_eq!(
            parse(&["--seed", "1", "--history", "9"]),
            Ok(Mode::LongHistory { history: 9 })
        );
        for bad in [
            &["--seed", "1", "--steps", "3"][..],
            &["--seed", "1", "--agents", "0", "--steps", "3"],
            &[
                "--seed",
                "1",
                "--agents",
                "2",
                "--steps",
                "3",
                "--tenants",
                "3",
            ],
            &[
                "--seed",
                "1",
                "--agents",
                "2",
                "--steps",
                "3",
                "--callers",
                "0",
            ],
            &[
                "--seed",
                "1",
                "--agents",
                "2",
                "--steps",
                "3",
                "--skills-per-agent",
                "0",
            ],
            &[
                "--seed",
                "1",
                "--agents",
                "2",
                "--steps",
                "3",
                "--history",
                "0",
                "--x",
            ],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
