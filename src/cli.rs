//! Command line: raw flags (clap) → a command, run, exit status.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use crate::corpus;
use crate::engine::world;
use crate::error::{Diagnostic, EXIT_LOAD, LoadError, Severity};
use crate::protocol::adapter;
use crate::protocol::card;
use crate::protocol::export;
use crate::protocol::version::A2aVersion;
use crate::report::table::Layout;
use crate::report::{json as report_json, table as report_table};
use crate::scenario::loader;
use crate::scenario::overrides::Override;
use crate::testing::command as test_command;
use crate::testing::partition::Partition;

#[derive(Debug, Parser)]
#[command(
    name = "a2a-sim",
    version,
    about = "Simulate agent-to-agent delegation over A2A, deterministically"
)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
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
    Card {
        file: PathBuf,
        /// The agent (omit with --list).
        #[arg(required_unless_present = "list")]
        agent: Option<String>,
        #[arg(long, value_enum, default_value_t = Version::V1_0)]
        a2a_version: Version,
        /// List the scenario's agents, one name a line.
        #[arg(long)]
        list: bool,
    },
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
    Token(crate::token::command::TokenCommand),
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
enum ExploreFormat {
    /// Each violation and its minimal `faults:` block, then `N runs, N violations`.
    Human,
    /// One JSON object a line per violation, then {"runs", "violations"}.
    Json,
}

/// `slice:M/N`, the only partition `explore` takes (runs have no paths to hash).
fn parse_slice(s: &str) -> Result<(u64, u64), String> {
    match Partition::parse(s)? {
        Partition::Slice { m, n } => Ok((m, n)),
        Partition::Hash { .. } => Err(format!("`{s}`: explore partitions runs by slice:M/N only")),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ErrorFormat {
    /// `FILE:LINE:COL: message`
    Human,
    /// One JSON object a line: {"severity", "file", "line", "column", "message"}
    Json,
    /// GitHub Actions workflow annotations: `::error file=F,line=L,col=C::message`
    Github,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TestErrorFormat {
    /// Diffs and `FILE:LINE:COL: message` lines
    Human,
    /// GitHub Actions workflow annotations, one per problem or failed comparison
    Github,
}

/// `--jobs N` with N ≥ 1: zero workers would run nothing.
fn jobs_parser() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(1..)
}

/// The coded findings `check --allow` can silence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
enum Allow {
    /// A path that reaches a scope its driver caller lacks (authority.md §3).
    AuthorityAmplified,
    /// Two look-alike ids, tenants or scopes.
    ConfusableIds,
}

impl Allow {
    fn code(self) -> &'static str {
        match self {
            Allow::AuthorityAmplified => "authority_amplified",
            Allow::ConfusableIds => "confusable_ids",
        }
    }
}

/// What `check --deny` turns into errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Deny {
    /// The handler-path warnings (illegal transitions, escalations, scripts that end open).
    Warnings,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
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
enum Version {
    #[value(name = "1.0")]
    V1_0,
    #[value(name = "0.3")]
    V0_3,
}

impl Version {
    fn a2a(self) -> A2aVersion {
        match self {
            Version::V1_0 => A2aVersion::V1_0,
            Version::V0_3 => A2aVersion::V0_3,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum From {
    A2a,
    Acp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum To {
    A2a,
    Acp,
    Internal,
}

/// Runs the command line; returns the exit status.
pub fn main() -> i32 {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_LOAD } else { 0 };
        }
    };
    match args.command {
        Command::Run {
            jsonrpc: true,
            format,
            ..
        } if format != Format::A2aStream => {
            eprintln!("a2a-sim: `--jsonrpc` wraps stream events: it needs `--format a2a-stream`");
            EXIT_LOAD
        }
        Command::Run {
            files,
            format,
            a2a_version,
            jobs,
            set,
            jsonrpc,
        } => run(
            &files,
            if jsonrpc {
                Format::A2aStreamJsonRpc
            } else {
                format
            },
            a2a_version.a2a(),
            jobs.unwrap_or_else(corpus::default_jobs),
            &set,
        ),
        Command::Check {
            paths,
            error_format,
            deny,
            allow,
            jobs,
            set,
        } => check(
            &paths,
            error_format,
            deny.contains(&Deny::Warnings),
            &allow.iter().map(|a| a.code()).collect::<Vec<_>>(),
            jobs.unwrap_or_else(corpus::default_jobs),
            &set,
        ),
        Command::Test { set, .. } if !set.is_empty() => {
            eprintln!(
                "a2a-sim: `test --set` is refused: goldens pin scenario files as written, not overrides; use `run --set` or write the value in a file"
            );
            EXIT_LOAD
        }
        Command::Test {
            paths,
            bless,
            partition,
            junit,
            error_format,
            jobs,
            set: _,
        } => test_command::run(
            &paths,
            bless,
            partition,
            junit.as_deref(),
            jobs.unwrap_or_else(corpus::default_jobs),
            error_format == TestErrorFormat::Github,
        ),
        Command::Explore {
            files,
            runs,
            seed,
            faults,
            jobs,
            partition,
            format,
        } => {
            let opts = crate::testing::explore::Options {
                runs,
                seed,
                kinds: faults.unwrap_or([true; 5]),
                jobs: jobs.unwrap_or_else(corpus::default_jobs),
                slice: partition,
                json: format == ExploreFormat::Json,
            };
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            crate::testing::explore::command(&files, &opts, &mut out)
        }
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Args::command(), "a2a-sim", &mut out);
            finish(std::io::stdout().lock().write_all(&out), 0)
        }
        Command::Man => {
            let mut out = Vec::new();
            let r = clap_mangen::Man::new(Args::command())
                .render(&mut out)
                .and_then(|()| std::io::stdout().lock().write_all(&out));
            finish(r, 0)
        }
        Command::Schema => finish(
            report_json::write_pretty(
                &crate::scenario::schema::scenario_schema(),
                &mut std::io::stdout().lock(),
            ),
            0,
        ),
        Command::Card {
            file,
            agent,
            a2a_version,
            list,
        } => card_cmd(&file, agent.as_deref(), a2a_version.a2a(), list),
        Command::Explain {
            file,
            step,
            discover,
            task,
            format,
        } => crate::analysis::explain::command(
            &file,
            step,
            discover,
            task.as_deref(),
            format == ReportFormat::Json,
        ),
        Command::Coverage {
            paths,
            format,
            fail_under,
        } => crate::analysis::coverage::command(&paths, format == ReportFormat::Json, fail_under),
        Command::Audit { files, format } => {
            crate::analysis::audit::command(&files, format == ReportFormat::Json)
        }
        Command::Convert {
            from,
            to,
            a2a_version,
            agent,
            file,
        } => convert(from, to, a2a_version.a2a(), agent.as_deref(), file),
        Command::Token(cmd) => crate::token::command::run(cmd),
    }
}

/// Writes, treating a closed pipe (`| head`) as a normal end.
fn finish(result: std::io::Result<()>, status: i32) -> i32 {
    match result {
        Ok(()) => status,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => status,
        Err(e) => {
            eprintln!("a2a-sim: cannot write the output: {e}");
            EXIT_LOAD
        }
    }
}

/// One file's rendered output, or why it has none.
enum Rendered {
    Output(Vec<u8>),
    LoadError(LoadError),
    ExportError(String),
}

fn render(
    file: &std::path::Path,
    overrides: &[Override],
    format: Format,
    version: A2aVersion,
    layout: Layout,
    out: &mut dyn Write,
) -> Result<std::io::Result<()>, Rendered> {
    let scenario = load_for_run(file, overrides).map_err(Rendered::LoadError)?;
    let world = world::run(&scenario);
    Ok(match format {
        Format::Json => report_json::write(&world, out),
        Format::Table => out.write_all(report_table::render(&world, layout).as_bytes()),
        Format::A2a => export::write_tasks(&world, version, out),
        Format::A2aStream => export::write_stream(&world, version, out),
        Format::Mermaid => crate::report::mermaid::write(&world, out),
        Format::Html => crate::report::html::write(&world, out),
        Format::A2aStreamJsonRpc => export::write_stream_with(&world, version, true, out),
        Format::Acp => {
            // Refused, naming the rule, before anything is written.
            export::check_acp(&world).map_err(|e| {
                Rendered::ExportError(format!("{}: cannot export as ACP: {e}", file.display()))
            })?;
            export::write_runs(&world, out)
        }
    })
}

fn run(
    paths: &[PathBuf],
    format: Format,
    version: A2aVersion,
    jobs: usize,
    overrides: &[Override],
) -> i32 {
    let files = match corpus::expand_scenarios(paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("a2a-sim: {e}");
            return EXIT_LOAD;
        }
    };
    let stdout = std::io::stdout();
    let layout = if stdout.is_terminal() {
        Layout::Terminal
    } else {
        Layout::Fixed
    };
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut status = 0;
    let mut io_error = None;
    // Writes what a file's rendering produced and reports its problems; hands back a rendered
    // buffer for reuse.
    let mut settle =
        |r: Result<std::io::Result<()>, Rendered>, out: &mut dyn Write| -> Option<Vec<u8>> {
            let problem = match r {
                Ok(Ok(())) => return None,
                Ok(Err(e)) => {
                    io_error = io_error.take().or(Some(e));
                    return None;
                }
                Err(Rendered::Output(bytes)) => {
                    if let Err(e) = out.write_all(&bytes) {
                        io_error = io_error.take().or(Some(e));
                    }
                    return Some(bytes);
                }
                Err(Rendered::LoadError(e)) => e.to_string(),
                Err(Rendered::ExportError(e)) => e,
            };
            let _ = out.flush();
            eprintln!("{problem}");
            status = EXIT_LOAD;
            None
        };
    if jobs <= 1 || files.len() <= 1 {
        // Straight to stdout as it is rendered.
        for file in &files {
            let r = render(file, overrides, format, version, layout, &mut out);
            settle(r, &mut out);
        }
    } else {
        // Each file renders into a buffer (output must stay in input order); written buffers go
        // back to a pool, so the workers do not keep mapping and unmapping fresh memory.
        let pool: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());
        let work = |file: &PathBuf| {
            let mut buf = pool
                .lock()
                .ok()
                .and_then(|mut p| p.pop())
                .unwrap_or_default();
            match render(file, overrides, format, version, layout, &mut buf) {
                Ok(_) => Err(Rendered::Output(buf)),
                Err(e) => Err(e),
            }
        };
        corpus::for_each_ordered(&files, jobs, work, |_, r| {
            if let Some(mut buf) = settle(r, &mut out) {
                buf.clear();
                if let Ok(mut p) = pool.lock() {
                    p.push(buf);
                }
            }
        });
    }
    let flushed = out.flush();
    match io_error.map_or(flushed, Err) {
        Ok(()) => status,
        Err(e) => finish(Err(e), status),
    }
}

fn check(
    paths: &[PathBuf],
    format: ErrorFormat,
    deny_warnings: bool,
    allowed: &[&str],
    jobs: usize,
    overrides: &[Override],
) -> i32 {
    let files = match corpus::expand(paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("a2a-sim: {e}");
            return EXIT_LOAD;
        }
    };
    let mut status = 0;
    let results: Vec<Result<Vec<Diagnostic>, LoadError>> = {
        let mut v = Vec::with_capacity(files.len());
        corpus::for_each_ordered(
            &files,
            jobs,
            |f| load(f, overrides).map(|l| l.warnings),
            |_, r| v.push(r),
        );
        v
    };
    let mut err = std::io::stderr().lock();
    for r in results {
        let (diagnostics, severity) = match r {
            Err(e) => (e.diagnostics, "error"),
            Ok(warnings) if deny_warnings => (warnings, "error"),
            Ok(warnings) => (warnings, "warning"),
        };
        let diagnostics: Vec<Diagnostic> = diagnostics
            .into_iter()
            .filter(|d| d.coded.as_ref().is_none_or(|c| !allowed.contains(&c.code)))
            .collect();
        for d in &diagnostics {
            // A note stays a note under `--deny warnings`: a service identity accepted on purpose.
            let severity = match &d.coded {
                Some(c) if c.severity == Severity::Note => "note",
                _ => severity,
            };
            if severity == "error" {
                status = EXIT_LOAD;
            }
            let level = match severity {
                "error" => crate::annotation::Level::Error,
                "note" => crate::annotation::Level::Notice,
                _ => crate::annotation::Level::Warning,
            };
            let line = match (format, &d.coded) {
                (ErrorFormat::Github, _) => {
                    crate::annotation::github(level, &d.file, d.line, d.column, &d.message)
                }
                (ErrorFormat::Human, Some(c)) => format!(
                    "{}:{}:{}: {severity}[{}]: {}",
                    d.file, d.line, d.column, c.code, d.message
                ),
                (ErrorFormat::Human, None) if severity == "warning" => {
                    format!("{}:{}:{}: warning: {}", d.file, d.line, d.column, d.message)
                }
                (ErrorFormat::Human, None) => d.to_string(),
                (ErrorFormat::Json, coded) => {
                    let mut v = serde_json::json!({
                        "severity": severity,
                        "file": d.file,
                        "line": d.line,
                        "column": d.column,
                        "message": d.message,
                    });
                    if let (Some(c), Some(o)) = (coded, v.as_object_mut()) {
                        o.insert("code".into(), c.code.into());
                        if c.code == "authority_amplified" {
                            o.insert("path".into(), c.path.clone().into());
                            o.insert("scopes".into(), c.scopes.clone().into());
                        }
                    }
                    v.to_string()
                }
            };
            let _ = writeln!(err, "{line}");
        }
    }
    status
}

fn card_cmd(file: &std::path::Path, agent: Option<&str>, version: A2aVersion, list: bool) -> i32 {
    let scenario = match loader::load_path(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return EXIT_LOAD;
        }
    };
    let mut out = std::io::stdout().lock();
    if list {
        // One agent a line; a card taken from a file adds a tab and the file.
        let names: String = scenario
            .agents
            .iter()
            .map(|a| match &a.card.file {
                Some(f) => format!("{}\t{f}\n", a.name()),
                None => format!("{}\n", a.name()),
            })
            .collect();
        return finish(out.write_all(names.as_bytes()), 0);
    }
    let name = agent.unwrap_or_default();
    let Some(a) = scenario.agents.iter().find(|a| a.name() == name) else {
        let names: Vec<&str> = scenario.agents.iter().map(|a| a.name()).collect();
        let msg = crate::error::with_hint(
            format!("{}: no agent `{name}`", file.display()),
            name,
            names.iter().copied(),
        );
        eprintln!("{msg}; the agents are: {}", names.join(", "));
        return EXIT_LOAD;
    };
    match card::card_json(&a.card, version) {
        Ok(doc) => finish(report_json::write_pretty(&doc, &mut out), 0),
        Err(e) => {
            eprintln!("{}: agent `{name}`: {e}", file.display());
            EXIT_LOAD
        }
    }
}

/// The input of `convert`: a file, or stdin for `-` or none; with the name to report it by.
fn read_input(file: Option<&std::path::Path>) -> anyhow::Result<(String, String)> {
    use anyhow::Context;
    match file.filter(|p| p.as_os_str() != "-") {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("{}: cannot read the file", path.display()))?;
            Ok((path.display().to_string(), text))
        }
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("<stdin>: cannot read")?;
            Ok(("<stdin>".to_string(), text))
        }
    }
}

fn convert(
    from: From,
    to: To,
    version: A2aVersion,
    agent: Option<&str>,
    file: Option<PathBuf>,
) -> i32 {
    let (name, text) = match read_input(file.as_deref()) {
        Ok(input) => input,
        Err(e) => {
            eprintln!("{e:#}");
            return EXIT_LOAD;
        }
    };
    let doc: serde_json::Value = match serde_json::from_str(&text) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{name}:{}:{}: not JSON: {e}", e.line(), e.column());
            return EXIT_LOAD;
        }
    };
    let one = |doc: &serde_json::Value| {
        let internal = match from {
            From::A2a => adapter::a2a_to_internal(doc),
            From::Acp => adapter::acp_to_internal(doc),
        };
        internal.and_then(|mut t| {
            if t.agent.is_none() {
                t.agent = agent.map(str::to_string);
            }
            match to {
                To::Internal => Ok(adapter::internal_to_json(&t)),
                To::A2a => Ok(adapter::internal_to_a2a(&t, version)),
                To::Acp => adapter::internal_to_acp(
                    &t,
                    &adapter::source_times(doc, from == From::Acp, t.state),
                ),
            }
        })
    };
    // An array, as `run --format a2a` / `acp` prints: each element, the error naming its index.
    let output = match &doc {
        serde_json::Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, d)| one(d).map_err(|e| adapter::ConvertError(format!("[{i}]: {}", e.0))))
            .collect::<Result<Vec<_>, _>>()
            .map(serde_json::Value::Array),
        _ => one(&doc),
    };
    match output {
        Ok(doc) => finish(
            report_json::write_pretty(&doc, &mut std::io::stdout().lock()),
            0,
        ),
        Err(e) => {
            eprintln!("{name}: {e}");
            EXIT_LOAD
        }
    }
}

/// The standard input, read once: `-` names it as a scenario file.
fn stdin_text() -> Result<&'static str, LoadError> {
    static TEXT: std::sync::OnceLock<Result<String, String>> = std::sync::OnceLock::new();
    let r = TEXT.get_or_init(|| {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        loader::decode_utf8(STDIN, &bytes)
            .map(str::to_string)
            .map_err(|e| e.to_string())
    });
    match r {
        Ok(t) => Ok(t.as_str()),
        Err(e) => Err(LoadError::single(
            STDIN,
            1,
            1,
            e.trim_start_matches("<stdin>:1:1: "),
        )),
    }
}

/// How diagnostics name standard input.
const STDIN: &str = "<stdin>";

/// Loads a scenario file or, for `-`, standard input (named `stdin`, relative paths from the
/// current directory).
fn load(file: &std::path::Path, overrides: &[Override]) -> Result<loader::Loaded, LoadError> {
    if file.as_os_str() == "-" {
        let text = stdin_text()?;
        loader::load_str_with(
            STDIN,
            text,
            std::path::Path::new("."),
            "stdin".into(),
            overrides,
        )
    } else {
        loader::load_path_with(file, overrides)
    }
}

/// [`load`] for `run`: a library (no `steps`) has nothing to run.
fn load_for_run(
    file: &std::path::Path,
    overrides: &[Override],
) -> Result<crate::engine::scenario::Scenario, LoadError> {
    let loaded = load(file, overrides)?;
    if loaded.library {
        let name = if file.as_os_str() == "-" {
            STDIN.to_string()
        } else {
            file.display().to_string()
        };
        return Err(LoadError::single(
            &name,
            1,
            1,
            "this file is a library (it has no `steps`): `check` validates it, and scenarios use it through `imports`; there is nothing to run",
        ));
    }
    Ok(loaded.scenario)
}
