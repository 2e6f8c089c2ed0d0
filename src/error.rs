//! The binary's one error type, and the status a command ends with. Commands return
//! `Result<Status, Error>`; only `main` prints an [`Error`] and turns either into an exit code.

use std::fmt;

use scenario::escape::Escaped;
pub use scenario::{Coded, Diagnostic, LoadError, Severity, did_you_mean, with_hint};

/// How a command that ran through ended. Problems with single inputs (a file that did not load
/// among several) are reported as the command goes, so the others are still processed; the status
/// then says that something failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Exit 0.
    Success,
    /// Exit 1: the inputs loaded, and a claim about them failed (a test, `--fail-under`).
    Failed,
    /// Exit 2: some input did not load or could not be used; each was reported.
    InputErrors,
}

impl Status {
    pub fn code(self) -> u8 {
        match self {
            Status::Success => 0,
            Status::Failed => 1,
            Status::InputErrors => 2,
        }
    }
}

/// Why a command stopped. Every kind is exit 2, as bad input is: a user fixes the file, the flags
/// or the machine and runs again. Claims that fail are not errors but a [`Status`].
#[derive(Debug)]
pub enum Error {
    /// A scenario (or another input file) did not load: every problem, located.
    Load(LoadError),
    /// Flags or arguments that cannot be used as given.
    Usage(String),
    /// An input that could not be read or used, with the message that names it in full.
    Input(String),
    /// What the command runs could not start or stopped early: a server that cannot listen on its
    /// address or cannot go on serving.
    Runtime(String),
    /// An output could not be written: what it was, and why (a closed pipe on standard output is
    /// not an error: see [`written`]).
    Output(String, std::io::Error),
}

impl Error {
    pub fn code(&self) -> u8 {
        2
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Load(e) => write!(f, "{e}"),
            // Names and paths in a message come from files: control characters shown escaped.
            Error::Usage(message) => write!(f, "a2a-sim: {}", Escaped(message)),
            // Its own lines kept (a message quoting an agent's log), each escaped.
            Error::Input(message) => f.write_str(&crate::escape::lines(message)),
            Error::Runtime(message) => write!(f, "a2a-sim: {}", crate::escape::lines(message)),
            Error::Output(what, e) => write!(f, "a2a-sim: cannot write {}: {e}", Escaped(what)),
        }
    }
}

impl std::error::Error for Error {}

impl From<LoadError> for Error {
    fn from(e: LoadError) -> Self {
        Error::Load(e)
    }
}

/// A line a running server logs (a webhook it did not send), on stderr. The library crates print
/// nothing: `serve` is given this function.
pub fn log(line: &str) {
    eprintln!("a2a-sim: {}", crate::escape::lines(line));
}

/// A write's result, treating a closed pipe (`a2a-sim run … | head`) as a normal end.
pub fn written(result: std::io::Result<()>) -> Result<(), Error> {
    match result {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::Output("the output".into(), e))
        }
        _ => Ok(()),
    }
}
