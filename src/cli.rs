//! Command line: raw flags (clap) → a validated command, run, exit status.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::error::EXIT_LOAD;
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
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Table,
    Json,
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
        Command::Run { files, format } => run(&files, format),
    }
}

fn run(files: &[PathBuf], format: Format) -> i32 {
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
        };
        if let Err(e) = written.and_then(|()| out.flush()) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return status;
            }
            eprintln!("a2a-sim: cannot write the report: {e}");
            return EXIT_LOAD;
        }
    }
    status
}
