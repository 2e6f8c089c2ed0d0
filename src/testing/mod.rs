//! The test runner: golden files, `expect:` checks, JUnit output and partitions. Uses every layer
//! below it; nothing below uses it.

pub mod command;
pub mod expect;
pub mod golden;
pub mod junit;
pub mod partition;
