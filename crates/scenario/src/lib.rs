//! Scenario files into the engine's model: the YAML contract's types, parsing with positions,
//! imports and overrides, loading, card files, the JSON Schema, located diagnostics, and `check`'s
//! walks (handler paths, laundering paths, look-alike ids); also the corpus of files a command
//! reads. Depends on the engine and on `token` (callers' JWTs are verified at load); never on the
//! reports or the server.

mod authority_paths;
mod card_file;
mod confusables;
pub mod corpus;
mod diagnostic;
pub mod escape;
mod file;
mod file_text;
mod imports;
mod library;
mod loader;
mod overrides;
mod parallel;
mod paths;
mod problem;
mod push_hosts;
mod redact;
pub mod regular_file;
mod schema;
mod secrets;
mod source;
pub mod yaml;

pub use card_file::{CardVersion, detect as card_version};
pub use confusables::confusable;
pub use diagnostic::{Coded, Diagnostic, LoadError, Severity, did_you_mean, with_hint};
pub use file::{ScenarioFile, StepList};
pub use loader::{Load, Loaded, Warnings, decode_utf8, default_name, read};
pub use overrides::Override;
pub use schema::scenario_schema;
