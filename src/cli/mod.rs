//! Command line: raw flags (clap) → a command, run, exit status.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use crate::corpus;
use crate::engine::world;
use crate::error::{Diagnostic, Error, LoadError, Severity, Status, written};
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
mod token;

use self::args::*;
use self::check::check;
use self::convert::{card_cmd, convert};
use self::input::*;

/// Runs the command line: how the command ended, or why it stopped. Only `main` prints the error
/// and turns either into the exit code.
pub fn run() -> Result<Status, Error> {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            // clap prints `--help` and `--version` to stdout (a success) and its usage errors.
            let _ = e.print();
            return if e.use_stderr() {
                Ok(Status::InputErrors)
            } else {
                Ok(Status::Success)
            };
        }
    };
    match args.command {
        Command::Run {
            jsonrpc: true,
            format,
            ..
        } if format != Format::A2aStream => Err(Error::Usage(
            "`--jsonrpc` wraps stream events: it needs `--format a2a-stream`".into(),
        )),
        Command::Run {
            files,
            format,
            a2a_version,
            jobs,
            set,
            jsonrpc,
            real,
        } => {
            crate::running::configure(real);
            run::run(
            &files,
            if jsonrpc {
                Format::A2aStreamJsonRpc
            } else {
                format
            },
            a2a_version.a2a(),
            jobs.unwrap_or_else(corpus::default_jobs),
            &set,
        )
        }
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
        Command::Test { set, .. } if !set.is_empty() => Err(Error::Usage(
            "`test --set` is refused: goldens pin scenario files as written, not overrides; use `run --set` or write the value in a file".into(),
        )),
        Command::Test {
            paths,
            bless,
            partition,
            junit,
            error_format,
            jobs,
            set: _,
            real,
        } => {
            crate::running::configure(real);
            test_command::run(
                &paths,
                bless,
                partition,
                junit.as_deref(),
                jobs.unwrap_or_else(corpus::default_jobs),
                error_format == TestErrorFormat::Github,
            )
        }
        Command::Explore {
            files,
            runs,
            seed,
            faults,
            jobs,
            partition,
            format,
            agents,
            skip_agents,
            max_distinct,
            set,
            real,
        } => {
            crate::running::configure(real);
            let opts = crate::testing::explore::Options {
                runs,
                seed,
                kinds: faults.unwrap_or([true; 5]),
                jobs: jobs.unwrap_or_else(corpus::default_jobs),
                slice: partition,
                json: format == ExploreFormat::Json,
                agents,
                skip_agents,
                max_distinct: max_distinct.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            };
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            Ok(crate::testing::explore::command(
                &files, &opts, &set, &mut out,
            ))
        }
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Args::command(), "a2a-sim", &mut out);
            written(std::io::stdout().lock().write_all(&out))?;
            Ok(Status::Success)
        }
        Command::Man => {
            let mut out = Vec::new();
            written(
                clap_mangen::Man::new(Args::command())
                    .render(&mut out)
                    .and_then(|()| std::io::stdout().lock().write_all(&out)),
            )?;
            Ok(Status::Success)
        }
        Command::Schema => {
            written(report_json::write_pretty(
                &crate::scenario::schema::scenario_schema(),
                &mut std::io::stdout().lock(),
            ))?;
            Ok(Status::Success)
        }
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
        Command::Audit { files, format } => Ok(crate::analysis::audit::command(
            &files,
            format == ReportFormat::Json,
        )),
        Command::Convert {
            from,
            to,
            a2a_version,
            agent,
            file,
        } => convert(from, to, a2a_version.a2a(), agent.as_deref(), file),
        Command::Token(cmd) => token::run(cmd),
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
            record,
            ready_file,
            exit_after,
            idle_exit,
            max_body,
            header_timeout,
            keep_alive_timeout,
            max_connections,
            default_caller,
            relay_children,
            set,
        } => {
            let scenario = input::load_for_serve(&file, &set)?;
            if record.is_some() && !scenario.steps.is_empty() {
                return Err(Error::Usage(format!(
                    "--record writes a scenario that imports {}, which has steps of its own: serve a library (a file without `steps`) to record a session of it",
                    file.display()
                )));
            }
            let seconds = |flag: &str, s: f64| {
                // At most a day: a longer timeout is no limit, and Duration must hold it.
                if s.is_finite() && s > 0.0 && s <= 86_400.0 {
                    Ok(std::time::Duration::from_secs_f64(s))
                } else {
                    Err(Error::Usage(format!(
                        "--{flag} {s}: give a number of seconds above 0, at most 86400"
                    )))
                }
            };
            let idle_exit = match idle_exit {
                Some(s) if s.is_finite() && s > 0.0 => Some(std::time::Duration::from_secs_f64(s)),
                Some(s) => {
                    return Err(Error::Usage(format!(
                        "--idle-exit {s}: give a positive number of seconds"
                    )));
                }
                None => None,
            };
            let header = seconds("header-timeout", header_timeout)?;
            let keep_alive = seconds("keep-alive-timeout", keep_alive_timeout)?;
            if max_connections == 0 {
                return Err(Error::Usage("--max-connections 0: give at least 1".into()));
            }
            // A served library's `expect` entries are checked against the session at its end.
            // (A file with steps of its own states claims about its own run, which is not what
            // a session replays: those are left to `test`.)
            let entries = if scenario.steps.is_empty() {
                scenario.expectations.len()
            } else {
                0
            };
            let unmet = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let finish: Option<crate::serve::Finish> = (entries > 0).then(|| {
                let unmet = unmet.clone();
                let file = file.clone();
                let text = crate::scenario::loader::read(&file).unwrap_or_default();
                Box::new(move |w: &crate::engine::world::World<'static>| {
                    let found = crate::testing::golden::unmet_located(w, &text, &file);
                    if let Ok(mut u) = unmet.lock() {
                        *u = found;
                    }
                }) as crate::serve::Finish
            });
            let ended = crate::serve::run_then(
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
                    record: record.map(|r| (r, file.clone())),
                    ready_file,
                    exit_after,
                    idle_exit,
                    max_body,
                    limits: crate::serve::Limits {
                        header,
                        keep_alive,
                        max_connections,
                    },
                    default_caller,
                    relay_children,
                },
                finish,
            );
            serve_status(ended)?;
            if entries == 0 {
                return Ok(Status::Success);
            }
            let unmet = unmet.lock().map(|u| u.clone()).unwrap_or_default();
            let name = crate::escape::text(&file.display().to_string()).into_owned();
            let mut out = std::io::stdout().lock();
            if unmet.is_empty() {
                let _ = writeln!(out, "ok     {name} (the session meets its {entries} expect entries)");
                return Ok(Status::Success);
            }
            let _ = writeln!(out, "FAILED {name} (the session's expect)");
            for u in &unmet {
                let _ = writeln!(out, "  {}", crate::escape::text(u));
            }
            Ok(Status::Failed)
        }
    }
}

/// How a session ended: its start-up and run problems are the binary's to print, as usage
/// errors (a flag, an address, a path), with exit 2.
#[cfg(feature = "serve")]
fn serve_status(ended: Result<(), crate::serve::ServeError>) -> Result<(), Error> {
    ended.map_err(|e| Error::Usage(e.0))
}
