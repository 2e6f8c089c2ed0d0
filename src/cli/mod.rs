//! Command line: raw flags (clap) → a command, run, exit status.

use std::io::{IsTerminal, Write};
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

mod args;
mod check;
mod convert;
mod input;
mod run;

use self::args::*;
use self::check::check;
use self::convert::{card_cmd, convert};
use self::input::*;
use self::run::*;

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
            set,
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
            crate::testing::explore::command(&files, &opts, &set, &mut out)
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
        #[cfg(feature = "serve")]
        Command::Serve {
            file,
            listen,
            advertise_host,
            a2a_version,
            root_agent,
            tick_ms,
            wall_clock,
            allow_loopback_push,
            push_ca,
            report,
            ready_file,
            exit_after,
            idle_exit,
            max_body,
            set,
        } => {
            let scenario = match input::load_for_run(&file, &set) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("{e}");
                    return EXIT_LOAD;
                }
            };
            let idle_exit = match idle_exit {
                Some(s) if s.is_finite() && s > 0.0 => Some(std::time::Duration::from_secs_f64(s)),
                Some(s) => {
                    eprintln!("a2a-sim: --idle-exit {s}: give a positive number of seconds");
                    return EXIT_LOAD;
                }
                None => None,
            };
            crate::serve::run(
                scenario,
                crate::serve::Options {
                    listen,
                    advertise_host,
                    version: a2a_version.a2a(),
                    root_agent,
                    tick_ms,
                    wall_clock,
                    allow_loopback_push,
                    push_ca,
                    report,
                    ready_file,
                    exit_after,
                    idle_exit,
                    max_body,
                },
            )
        }
    }
}

/// Writes, treating a closed pipe (`| head`) as a normal end.
pub(super) fn finish(result: std::io::Result<()>, status: i32) -> i32 {
    match result {
        Ok(()) => status,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => status,
        Err(e) => {
            eprintln!("a2a-sim: cannot write the output: {e}");
            EXIT_LOAD
        }
    }
}
