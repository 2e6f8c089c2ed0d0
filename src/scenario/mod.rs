//! Scenario files: the YAML contract's types, parsing with positions, loading into the engine's
//! model, card files and the JSON Schema. May use the engine, `error` and protocol timestamps;
//! never the reports.

pub mod card_file;
pub mod file;
pub mod loader;
pub mod schema;
pub mod yaml;
