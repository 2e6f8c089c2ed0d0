//! The raw flags (clap): every subcommand and its options, before anything is checked.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::protocol::A2aVersion;
use crate::scenario::Override;
use crate::testing::partition::Partition;

#[derive(Debug, Parser)]
#[command(
    name = "a2a-sim",
    version,
    about = "Simulate agent-to-agent delegation over A2A, deterministically"
)]
pub(super) struct Args {
    #[command(subcommand)]
    pub(super) command: Command,
}

#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// Run scenario files and print their reports, one per file, in the order given.
    Run {
        /// Scenario files or directories; `-` reads one scenario from standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// A2A version of `a2a` and `a2a-stream` output.
        #[arg(long, value_enum, default_value_t = Version::V1_0)]
        a2a_version: Version,
        /// With `--format a2a-stream`: each event in its JSON-RPC 2.0 response envelope.
        #[arg(long)]
        jsonrpc: bool,
        /// Worker threads for several files (default: one per core; at least 1).
        #[arg(long, value_parser = jobs_parser())]
        jobs: Option<usize>,
        /// Override a scalar key: `--set policy.max_depth=3` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = Override::parse)]
        set: Vec<Override>,
        #[command(flatten)]
        real: crate::running::RealAgentArgs,
    },
    /// Load and validate scenario files (and libraries) without running them.
    Check {
        /// Scenario files or directories; `-` reads one scenario from standard input.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// How problems are printed on stderr.
        #[arg(long, value_enum, default_value_t = ErrorFormat::Human)]
        error_format: ErrorFormat,
        /// Treat these as errors (exit status 2): `--deny warnings`.
        #[arg(long, value_enum)]
        deny: Vec<Deny>,
        /// Silence one finding code (repeatable): `--allow authority_amplified`.
        #[arg(long, value_enum)]
        allow: Vec<Allow>,
        /// Worker threads (default: one per core; at least 1).
        #[arg(long, value_parser = jobs_parser())]
        jobs: Option<usize>,
        /// Override a scalar key: `--set policy.max_depth=3` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = Override::parse)]
        set: Vec<Override>,
    },
    /// Compare each scenario's JSON report with its golden file (X.golden.json beside X.yaml).
    Test {
        /// Files or directories (searched recursively for *.yaml and *.yml).
        #[arg(default_value = "scenarios")]
        paths: Vec<PathBuf>,
        /// Write or rewrite the golden files of the scenarios run.
        #[arg(long)]
        bless: bool,
        /// Run only one partition: hash:M/N or slice:M/N (1-based).
        #[arg(long, value_parser = Partition::parse)]
        partition: Option<Partition>,
        /// Also write a JUnit XML report here.
        #[arg(long)]
        junit: Option<PathBuf>,
        /// How failures are printed: `human`, or `github` (workflow annotations).
        #[arg(long, value_enum, default_value_t = TestErrorFormat::Human)]
        error_format: TestErrorFormat,
        /// Refused: goldens pin files as written, not overrides.
        #[arg(long = "set", value_name = "KEY=VALUE", hide = true)]
        set: Vec<String>,
        /// Worker threads (default: one per core; at least 1).
        #[arg(long, value_parser = jobs_parser())]
        jobs: Option<usize>,
        #[command(flatten)]
        real: crate::running::RealAgentArgs,
    },
    /// Run scenarios under fault schedules drawn from a seed; shrink each violation to a minimal
    /// `faults:` block.
    Explore {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Runs per file, numbered 1..N.
        #[arg(long, default_value_t = 100)]
        runs: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Kinds to draw, a comma list (default: all five).
        #[arg(long, value_parser = crate::testing::schedule::parse_kinds)]
        faults: Option<[bool; 5]>,
        /// Worker threads (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
        /// Run only runs M, M+N, M+2N, …: slice:M/N (1-based).
        #[arg(long, value_parser = parse_slice)]
        partition: Option<(u64, u64)>,
        #[arg(long, value_enum, default_value_t = ExploreFormat::Human)]
        format: ExploreFormat,
        /// Draw agent faults on these agents only, a comma list (default: every agent).
        #[arg(long, value_delimiter = ',', value_name = "AGENTS")]
        agents: Option<Vec<String>>,
        /// Never draw agent faults on these agents, a comma list.
        #[arg(long, value_delimiter = ',', value_name = "AGENTS")]
        skip_agents: Vec<String>,
        /// Stop at the run that gives the N-th distinct violation.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_distinct: Option<u64>,
        /// Override a scalar key: `--set policy.max_depth=3` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = Override::parse)]
        set: Vec<Override>,
        #[command(flatten)]
        real: crate::running::RealAgentArgs,
    },
    /// Print the JSON Schema of scenario files (for editors).
    Schema,
    /// Print a shell completion script: `a2a-sim completions bash > /etc/bash_completion.d/a2a-sim`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff): `a2a-sim man > a2a-sim.1`.
    Man,
    /// Print an agent's A2A AgentCard.
    ///
    /// With `--verify CARD --keys JWKS`: check a signed card's signatures instead.
    Card {
        /// The scenario (not with --verify).
        #[arg(required_unless_present = "verify")]
        file: Option<PathBuf>,
        /// The agent (may be omitted when the file has only one, and with --list).
        agent: Option<String>,
        #[arg(long, value_enum, default_value_t = Version::V1_0)]
        a2a_version: Version,
        /// List the scenario's agents, one name a line.
        #[arg(long)]
        list: bool,
        /// Check the signatures of this AgentCard JSON file against --keys: exit 0 when at least
        /// one verifies and none is malformed, 1 when not.
        #[arg(long, value_name = "CARD", requires = "keys", conflicts_with_all = ["file", "list"])]
        verify: Option<PathBuf>,
        /// A JWKS file of public keys, matched to signatures by `kid` (with --verify).
        #[arg(long, value_name = "JWKS", requires = "verify")]
        keys: Option<PathBuf>,
    },
    /// Serve every agent of a scenario as a real A2A server (JSON-RPC, HTTP+JSON, gRPC) on localhost.
    #[cfg(feature = "serve")]
    Serve(ServeArgs),
    /// Explain a step's admission and push checks, a discovery's exclusions and scores, or a
    /// task's path through its handler, with the values each rule compared.
    Explain {
        file: PathBuf,
        /// A step (1-based): each admission check with its operands and verdict, and the push checks.
        #[arg(long, group = "what")]
        step: Option<usize>,
        /// A discovery step (1-based): every agent excluded (with values) or scored, and ranked.
        #[arg(long, group = "what")]
        discover: Option<usize>,
        /// A task (`task-N`): each handler step it took, each decision and why, with ticks.
        #[arg(long, group = "what")]
        task: Option<String>,
        #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
        format: ReportFormat,
    },
    /// Lifecycle edges, denial and error codes, handler steps and `when` branches a corpus exercised.
    Coverage {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
        format: ReportFormat,
        /// Exit 1 when the total coverage is below this percentage.
        #[arg(long)]
        fail_under: Option<f64>,
    },
    /// Audit recorded A2A traffic (JSON Lines or SSE, 0.3 or 1.0) against the lifecycle and the
    /// stream rules; exit 1 on findings.
    Audit {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
        format: ReportFormat,
    },
    /// Convert one task between A2A (1.0 or 0.3, detected), ACP and the internal record.
    Convert {
        #[arg(long, value_enum)]
        from: From,
        #[arg(long, value_enum)]
        to: To,
        /// A2A version of A2A output.
        #[arg(long, value_enum, default_value_t = Version::V1_0)]
        a2a_version: Version,
        /// The agent of a foreign A2A task that has no a2a-sim metadata.
        #[arg(long)]
        agent: Option<String>,
        /// The input file (one task, or an array as `run --format a2a`/`acp` prints: each is
        /// converted); `-` or nothing for stdin.
        file: Option<PathBuf>,
    },
    /// Mint and inspect JWTs for verified callers.
    #[command(subcommand)]
    Token(super::token::TokenCommand),
}

/// Output of the analyses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Lines for people.
    Human,
    /// One JSON document.
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum ExploreFormat {
    /// Each distinct violation, its first run and count, and its minimal `faults:` block, then
    /// `N runs, N violations, N distinct`.
    Human,
    /// One JSON object a line per distinct violation (with its `count`), then {"runs",
    /// "violations", "distinct"}.
    Json,
}

/// `slice:M/N`, the only partition `explore` takes (runs have no paths to hash).
pub(super) fn parse_slice(s: &str) -> Result<(u64, u64), String> {
    match Partition::parse(s)? {
        Partition::Slice { m, n } => Ok((m, n)),
        Partition::Hash { .. } => Err(format!("`{s}`: explore partitions runs by slice:M/N only")),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum ErrorFormat {
    /// `FILE:LINE:COL: message`
    Human,
    /// One JSON object a line: {"severity", "file", "line", "column", "message"}
    Json,
    /// GitHub Actions workflow annotations: `::error file=F,line=L,col=C::message`
    Github,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum TestErrorFormat {
    /// Diffs and `FILE:LINE:COL: message` lines
    Human,
    /// GitHub Actions workflow annotations, one per problem or failed comparison
    Github,
}

/// `--jobs N` with N ≥ 1: zero workers would run nothing.
pub(super) fn jobs_parser() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(1..)
}

/// The coded findings `check --allow` can silence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub(super) enum Allow {
    /// A path that reaches a scope its driver caller lacks (authority.md §3).
    AuthorityAmplified,
    /// Two look-alike ids, tenants or scopes.
    ConfusableIds,
}

impl Allow {
    pub(super) fn code(self) -> &'static str {
        match self {
            Allow::AuthorityAmplified => "authority_amplified",
            Allow::ConfusableIds => "confusable_ids",
        }
    }
}

/// What `check --deny` turns into errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum Deny {
    /// The handler-path warnings (illegal transitions, escalations, scripts that end open).
    Warnings,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum Format {
    /// Tables for people.
    Table,
    /// The report contract (format_version 1).
    Json,
    /// Every task as an A2A Task, in one JSON array.
    A2a,
    /// Every stream event as A2A JSON Lines, in tick order.
    A2aStream,
    /// `a2a-stream` with `--jsonrpc` (not a value of `--format`).
    #[value(skip)]
    A2aStreamJsonRpc,
    /// Every task as an ACP Run, in one JSON array.
    Acp,
    /// One Mermaid sequenceDiagram per scenario.
    Mermaid,
    /// One self-contained HTML page per scenario: an SVG timeline above the report's tables.
    Html,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum Version {
    #[value(name = "1.0")]
    V1_0,
    #[value(name = "0.3")]
    V0_3,
}

impl Version {
    pub(super) fn a2a(self) -> A2aVersion {
        match self {
            Version::V1_0 => A2aVersion::V1_0,
            Version::V0_3 => A2aVersion::V0_3,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum From {
    A2a,
    Acp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum To {
    A2a,
    Acp,
    Internal,
}

/// The flags of `serve`.
#[cfg(feature = "serve")]
#[derive(Debug, clap::Args)]
pub(super) struct ServeArgs {
    pub file: PathBuf,
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:7420")]
    pub listen: std::net::SocketAddr,
    /// The host the served cards name (default: the listening address).
    #[arg(long)]
    pub advertise_host: Option<String>,
    /// A2A version of the served cards.
    #[arg(long, value_enum, default_value_t = Version::V1_0)]
    pub a2a_version: Version,
    /// Also serve this agent at `/`.
    #[arg(long)]
    pub root_agent: Option<String>,
    /// Real milliseconds per tick of scheduled work (default: the scenario's clock.tick_ms).
    #[arg(long)]
    pub tick_ms: Option<u64>,
    /// Timestamps from the wall clock rather than the scenario clock.
    #[arg(long)]
    pub wall_clock: bool,
    /// Admit 127.0.0.1 / localhost push URLs (local tests only).
    #[arg(long)]
    pub allow_loopback_push: bool,
    /// PEM certificates to trust for https webhooks besides the web's roots (a private CA,
    /// a local receiver's self-signed certificate).
    #[arg(long, value_name = "FILE")]
    pub push_ca: Option<PathBuf>,
    /// Write the session's JSON report here on shutdown.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Write the session as a scenario here on shutdown (the served file imported, the
    /// requests as steps, what became of each task as `expect`): `a2a-sim test` replays it.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Write the bound address (`127.0.0.1:PORT`) here once listening.
    #[arg(long)]
    pub ready_file: Option<PathBuf>,
    /// Shut down after N HTTP requests.
    #[arg(long)]
    pub exit_after: Option<u64>,
    /// Shut down after SECONDS without a request.
    #[arg(long)]
    pub idle_exit: Option<f64>,
    /// Largest request body accepted (bigger: 413).
    #[arg(long, default_value_t = 1 << 20)]
    pub max_body: usize,
    /// Close a connection whose request head (or body) takes longer than SECONDS to arrive.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub header_timeout: f64,
    /// Close a keep-alive connection idle for SECONDS between requests.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub keep_alive_timeout: f64,
    /// Connections served at once; a client past them gets 503.
    #[arg(long, value_name = "N", default_value_t = 512)]
    pub max_connections: usize,
    /// The caller of a request that names none (no `/as/CALLER/` prefix, header or token),
    /// for clients that can send nothing; not a caller that holds a token.
    #[arg(long, value_name = "CALLER")]
    pub default_caller: Option<String>,
    /// Streams also carry the status changes, messages and artifacts of the child tasks
    /// their request opened (nested delegations), to watch a whole tree; by default a
    /// stream carries its own task only, as an A2A server's does.
    #[arg(long)]
    pub relay_children: bool,
    /// Also serve A2A 1.0's gRPC binding on this address (`127.0.0.1:0`: a free port), every
    /// agent on it, told apart by the request's `tenant` (`agents/NAME`); the cards list it.
    #[arg(long, value_name = "ADDR")]
    pub grpc_listen: Option<std::net::SocketAddr>,
    /// Override a scalar key: `--set policy.max_depth=3` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = Override::parse)]
    pub set: Vec<Override>,
}
