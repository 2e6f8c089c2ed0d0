//! Analyses for operators: `explain` (why a step, a discovery or a task went the way it did),
//! `coverage` over a corpus and `audit` of recorded A2A traffic. May use the engine, scenario
//! loading, the protocol tables and the reports' helpers; only the CLI uses it.

pub mod audit;
pub mod coverage;
pub mod explain;
