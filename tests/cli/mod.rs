//! The real binary, run as a user would: a module per command.

mod card;
mod card_verify;
mod check;
mod convert;
mod run;
mod schema;
mod test_command;

const TRACED: &str = "scenarios/traced-delegation.yaml";
