//! The one module that touches YAML.
//!
//! Scenario files are parsed with `serde_norway` (the maintained fork of the archived `serde_yaml`,
//! on the same libyaml port, with the same messages and positions) straight into the typed file
//! model, so type errors, unknown keys and YAML syntax errors come back located by the parser
//! itself. Two faster readers come first (`scan`, a byte scanner of the YAML scenario files are
//! written in, then `fast`, `saphyr-parser`'s events); each reads a file exactly as serde_norway
//! would or gives up, and every error comes from serde_norway. Problems found later
//! (a dangling reference, a duplicate name) are located with [`locate`], which walks the document
//! again to the offending value.

mod bytes;
mod de;
mod errors;
mod fast;
mod locate;
mod position;
mod read;
mod scan;
mod split;

pub use bytes::find;
pub use errors::plain_message;
pub use locate::{Index, locate};
pub use position::{Seg, YamlError, has_content};
pub use read::{Value, from_tree, parse, parse_scalar, parse_tree, parse_value};

// What the tests hold the readers to serde_norway with, and count work by: not the API.
#[doc(hidden)]
pub use locate::probed_bytes;
#[doc(hidden)]
pub use read::{reads_fast, scanned, slow_parse, streamed};
#[doc(hidden)]
pub use split::{SPLIT_FROM, parse_split};

#[cfg(test)]
mod tests;
