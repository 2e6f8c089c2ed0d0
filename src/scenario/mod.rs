//! Scenario files: the YAML contract's types, parsing with positions, loading into the engine's
//! model, card files, the JSON Schema, and `check`'s walks: handler paths, laundering paths, look-alike ids. May use the
//! engine, `error` and protocol timestamps; never the reports.

pub mod authority_paths;
pub mod card_file;
pub mod confusables;
pub mod file;
pub mod imports;
pub mod loader;
pub mod overrides;
pub mod paths;
pub mod redact;
pub mod schema;
pub mod secrets;
pub mod source;
pub mod yaml;
