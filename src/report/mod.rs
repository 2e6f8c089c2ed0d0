//! The report contract rendered from a run: JSON and tables; views of it: a Mermaid sequence
//! diagram and an HTML timeline. Reads the engine's records (and the
//! scenario's handlers, to say why a `when` went the way it did) only.

pub mod condition;
pub mod faults_table;
pub mod handler_steps;
pub mod html;
mod html_tables;
pub mod json;
pub mod mermaid;
pub mod pretty;
pub mod table;
