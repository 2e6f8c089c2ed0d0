//! A problem found at a path into the document, by the loader or by `check`'s walks (handler
//! paths, look-alike ids): located in its file only when it is reported.

use crate::yaml::Seg;

/// A problem at a path into the document, located when it is reported.
pub struct Problem {
    pub path: Vec<Seg>,
    pub message: String,
}
