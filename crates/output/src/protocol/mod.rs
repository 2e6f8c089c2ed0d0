//! Protocol shapes: A2A 1.0 / 0.3 cards, tasks and streams, ACP runs, the adapter tables and
//! timestamps. Reads what the engine recorded; never loads files.

pub mod adapter;
pub mod card;
pub mod export;
mod security;
mod signing;
mod version;

pub use signing::{TAMPERED, issue as sign_card};
pub use version::A2aVersion;
