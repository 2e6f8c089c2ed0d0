//! The report contract rendered from a run: JSON and tables. Reads the engine's records (and the
//! scenario's handlers, to say why a `when` went the way it did) only.

pub mod condition;
pub mod faults_table;
pub mod handler_steps;
pub mod json;
pub mod pretty;
pub mod table;
