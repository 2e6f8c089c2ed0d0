//! Command line: raw flags (clap) → a command, run, exit status.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::adapter;
use crate::card;
use crate::error::EXIT_LOAD;
use crate::export;
use crate::protocol::A2aVersion;
use crate::report_table::Layout;
use crate::{loader, report_json, report_table, world};

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
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// A2A version of `a2a` and `a2a-stream` output.
        #[arg(long, value_enum, default_value_t = Version::V1_0)]
        a2a_version: Version,
    },
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
    /// Convert one task between A2A (1.0 or 0.3, detected), ACP and the internal record.
    Convert {
        #[arg(long, value_enum)]
        from: From,
        #[arg(long, value_enum)]
        to: To,
        /// A2A version of A2A output.
        #[arg(long, value_enum, default_value_t = Version::V1_0)]
        a2a_version: Version,
        /// The input file; `-` or nothing for stdin.
        file: Option<PathBuf>,
    },
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
    /// Every task as an ACP Run, in one JSON array.
    Acp,
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
            files,
            format,
            a2a_version,
        } => run(&files, format, a2a_version.a2a()),
        Command::Card {
            file,
            agent,
            a2a_version,
            list,
        } => card_cmd(&file, agent.as_deref(), a2a_version.a2a(), list),
        Command::Convert {
            from,
            to,
            a2a_version,
            file,
        } => convert(from, to, a2a_version.a2a(), file),
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

fn run(files: &[PathBuf], format: Format, version: A2aVersion) -> i32 {
    let stdout = std::io::stdout();
    let layout = if stdout.is_terminal() {
        Layout::Terminal
    } else {
        Layout::Fixed
    };
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut status = 0;
    for file in files {
        let scenario = match loader::load_path(file) {
            Ok(s) => s,
            Err(e) => {
                let _ = out.flush();
                eprintln!("{e}");
                status = EXIT_LOAD;
                continue;
            }
        };
        let world = world::run(&scenario);
        let written = match format {
            Format::Json => report_json::write(&world, &mut out),
            Format::Table => out.write_all(report_table::render(&world, layout).as_bytes()),
            Format::A2a => export::write_tasks(&world, version, &mut out),
            Format::A2aStream => export::write_stream(&world, version, &mut out),
            Format::Acp => match export::write_runs(&world, &mut out) {
                Ok(()) => Ok(()),
                Err(e) => {
                    let _ = out.flush();
                    eprintln!("{}: cannot export as ACP: {e}", file.display());
                    status = EXIT_LOAD;
                    continue;
                }
            },
        };
        let code = finish(written.and_then(|()| out.flush()), status);
        if code != status {
            return code;
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
        let names: String = scenario
            .agents
            .iter()
            .map(|a| format!("{}\n", a.name()))
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
        Ok(doc) => finish(write_json(&doc, &mut out), 0),
        Err(e) => {
            eprintln!("{}: agent `{name}`: {e}", file.display());
            EXIT_LOAD
        }
    }
}

fn write_json(doc: &serde_json::Value, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, doc).map_err(std::io::Error::other)?;
    out.write_all(b"\n")
}

fn convert(from: From, to: To, version: A2aVersion, file: Option<PathBuf>) -> i32 {
    let (name, text) = match file.as_deref().filter(|p| p.as_os_str() != "-") {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(t) => (path.display().to_string(), t),
            Err(e) => {
                eprintln!("{}: cannot read the file: {e}", path.display());
                return EXIT_LOAD;
            }
        },
        None => {
            let mut t = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut t) {
                eprintln!("<stdin>: cannot read: {e}");
                return EXIT_LOAD;
            }
            ("<stdin>".to_string(), t)
        }
    };
    let doc: serde_json::Value = match serde_json::from_str(&text) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{name}:{}:{}: not JSON: {e}", e.line(), e.column());
            return EXIT_LOAD;
        }
    };
    let internal = match from {
        From::A2a => adapter::a2a_to_internal(&doc),
        From::Acp => adapter::acp_to_internal(&doc),
    };
    let output = internal.and_then(|t| match to {
        To::Internal => Ok(adapter::internal_to_json(&t)),
        To::A2a => Ok(adapter::internal_to_a2a(&t, version)),
        To::Acp => adapter::internal_to_acp(&t, &adapter::RunTimes::default()),
    });
    match output {
        Ok(doc) => finish(write_json(&doc, &mut std::io::stdout().lock()), 0),
        Err(e) => {
            eprintln!("{name}: {e}");
            EXIT_LOAD
        }
    }
}
