//! What a run looks like from outside: the report contract (JSON, tables) and its views (Mermaid,
//! HTML) in [`report`]; the protocol shapes (A2A 1.0 / 0.3 cards, tasks and streams, ACP runs, the
//! adapter tables) in [`protocol`]. Reads what the engine recorded and the loaded scenario; never
//! loads files, never serves.

pub mod protocol;
pub mod report;
