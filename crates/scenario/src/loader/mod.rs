//! Loading: a scenario file's text → a checked `Scenario`, or every problem with its position.

mod entry;
mod place;
mod state;
pub use entry::*;
// What the files below share, imported once for them.
use place::{Child, Place, child, path};
use state::{Loader, Names, Table};

macro_rules! at {
    ($($seg:expr),* $(,)?) => { vec![$($crate::yaml::Seg::from($seg)),*] };
}

// After `at!`, which they use.
mod agents;
mod card_signing;
mod conditions;
mod expectations;
mod external;
mod faults;
mod handlers;
mod locate;
mod matrix_claims;
mod names;
mod received_claims;
mod scenario;
mod settings;
mod steps;
mod task_paths;
mod templates;
mod tokens;
mod value_tests;
mod values;
mod webhook_claims;
