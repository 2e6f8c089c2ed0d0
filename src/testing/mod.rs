//! The test runner: golden files, `expect:` checks, JUnit output and partitions. Uses every layer
//! below it; nothing below uses it.

pub mod check;
pub mod command;
pub mod expect;
pub mod explore;
pub mod golden;
pub mod junit;
pub mod partition;
pub mod received;
pub mod schedule;
pub mod shrink;
pub mod wording;
