//! The report contract rendered from a run: JSON and tables; views of it: a Mermaid sequence
//! diagram and an HTML timeline. Reads the engine's records (and the
//! scenario's handlers, to say why a `when` went the way it did) only.

mod condition;
mod faults_table;
mod handler_steps;
pub mod html;
mod html_marks;
mod html_tables;
mod html_text;
pub mod json;
mod json_blocks;
mod json_out;
mod json_records;
pub mod mermaid;
mod mermaid_lines;
mod mermaid_steps;
mod mermaid_tasks;
mod pretty;
pub mod table;

pub use condition::CondText;
pub use handler_steps::step_at;

/// `1 task`, `2 tasks`, `0 errors`: a count with its noun, plural unless it is one.
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else if noun.ends_with('h') {
        format!("{n} {noun}es")
    } else {
        format!("{n} {noun}s")
    }
}
