//! Errors that reach the user. Located load problems come from the scenario layer.

pub use scenario::diagnostic::*;
