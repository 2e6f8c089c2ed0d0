//! Protocol shapes: A2A 1.0 / 0.3 cards, tasks and streams, ACP runs, the adapter tables and
//! timestamps. Reads what the engine recorded; never loads files.

pub mod adapter;
pub mod card;
pub mod export;
pub mod security;
pub mod signing;
pub mod version;
