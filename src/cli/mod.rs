//! Command line: raw flags (clap) → a command, run, exit status.

use std::io::Write;

use clap::{CommandFactory, Parser};

use crate::error::{Error, Status, written};
use crate::report::json as report_json;
use crate::testing::command as test_command;

mod args;
mod card_verify;
mod check;
mod config;
mod convert;
mod input;
mod run;
#[cfg(feature = "serve")]
mod serve;
mod token;

use self::args::*;
use self::check::check;
use self::config::{CardConfig, Config};
use self::convert::{card_cmd, convert};

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
    match Config::from_command(args.command)? {
        Config::Run(c) => run::run(&c.files, c.format, c.version, c.jobs, &c.set, &c.real),
        Config::Check(c) => check(
            &c.paths,
            c.error_format,
            c.deny_warnings,
            &c.allowed,
            c.jobs,
            &c.set,
        ),
        Config::Test(c) => test_command::run(
            &c.paths,
            c.bless,
            c.partition,
            c.junit.as_deref(),
            c.jobs,
            c.github,
            &c.real,
        ),
        Config::Explore(c) => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            Ok(crate::testing::explore::command(
                &c.files, &c.options, &c.set, &c.real, &mut out,
            ))
        }
        #[cfg(feature = "serve")]
        Config::Serve(c) => serve::serve(*c),
        Config::Card(CardConfig::Verify { card, keys }) => card_verify::verify(&card, &keys),
        Config::Card(CardConfig::Print {
            file,
            agent,
            version,
            list,
        }) => card_cmd(&file, agent.as_deref(), version, list),
        Config::Plain(command) => plain(command),
    }
}

/// The commands whose flags need no second stage.
fn plain(command: Command) -> Result<Status, Error> {
    match command {
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
                &crate::scenario::scenario_schema(),
                &mut std::io::stdout().lock(),
            ))?;
            Ok(Status::Success)
        }
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
        // The commands with a config of their own never get here.
        Command::Run { .. }
        | Command::Card { .. }
        | Command::Check { .. }
        | Command::Test { .. }
        | Command::Explore { .. } => {
            Err(Error::Usage("this command has a config of its own".into()))
        }
        #[cfg(feature = "serve")]
        Command::Serve(_) => Err(Error::Usage("this command has a config of its own".into())),
    }
}
