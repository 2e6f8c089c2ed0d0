//! The report contract rendered from a run: JSON and tables. Reads the engine's records only.

pub mod json;
pub mod pretty;
pub mod table;
