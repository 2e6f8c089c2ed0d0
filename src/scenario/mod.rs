//! Scenario files: the YAML contract's types, parsing with positions, loading into the engine's
//! model, card files, the JSON Schema, and `check`'s walk of every handler path. May use the
//! engine, `error` and protocol timestamps; never the reports.

pub mod card_file;
pub mod file;
pub mod imports;
pub mod loader;
pub mod overrides;
pub mod paths;
pub mod redact;
pub mod schema;
pub mod yaml;
