//! `a2a-sim-gen`: prints one synthetic `a2a-sim` scenario (YAML) to stdout; see the library.

use std::io::Write as _;
use std::process::ExitCode;

use a2a_sim_gen::Args;
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};

fn main() -> ExitCode {
    let mode = match Args::parse().into_mode() {
        Ok(mode) => mode,
        Err(message) => Args::command()
            .error(ErrorKind::ValueValidation, message)
            .exit(),
    };
    let yaml = mode.yaml();
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
