//! Scenario files into the engine's model: the YAML contract's types, parsing with positions,
//! imports and overrides, loading, card files, the JSON Schema, located diagnostics, and `check`'s
//! walks (handler paths, laundering paths, look-alike ids); also the corpus of files a command
//! reads. Depends on the engine and on `token` (callers' JWTs are verified at load); never on the
//! reports or the server.

mod authority_paths;
pub mod card_file;
mod confusables;
pub mod corpus;
pub mod diagnostic;
pub mod escape;
pub mod file;
mod file_text;
mod imports;
mod library;
pub mod loader;
mod overrides;
mod paths;
mod problem;
mod push_hosts;
mod redact;
pub mod regular_file;
mod schema;
mod secrets;
mod source;
pub mod yaml;

pub use confusables::confusable;
pub use overrides::Override;
pub use schema::scenario_schema;
