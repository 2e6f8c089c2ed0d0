//! One file of a scenario (the importing file, or an import): its name in diagnostics, its text,
//! and what locating and redacting a problem in it needs, built on its first problem.

use std::sync::OnceLock;

use crate::diagnostic::Diagnostic;
use crate::redact;
use crate::secrets::{self, Redact, Secrets};
use crate::yaml::{self, Seg};

/// One file of a merged scenario: how diagnostics name it, and its text.
#[derive(Debug, Clone)]
pub struct Source {
    pub display: String,
    pub text: String,
    /// Built on the first problem located in this file, for all of them.
    index: OnceLock<yaml::Index>,
    /// Whether the file has an anchor, and its secret values: read when a problem needs them.
    anchors: OnceLock<bool>,
    secrets: OnceLock<Secrets>,
}

impl Source {
    pub fn new(display: String, text: String) -> Self {
        Source {
            display,
            text,
            index: OnceLock::new(),
            anchors: OnceLock::new(),
            secrets: OnceLock::new(),
        }
    }

    /// What a message about the value at `path` of this file must not show.
    pub fn redact(&self, path: &[Seg]) -> Redact {
        let anchors = *self.anchors.get_or_init(|| self.text.contains('&'));
        if !secrets::may_be_secret(path, anchors) {
            return Redact::NOTHING;
        }
        self.secrets
            .get_or_init(|| Secrets::read(&self.text))
            .at(path)
    }

    /// The position of the value at `path` in this file.
    pub fn locate(&self, path: &[Seg]) -> Option<(usize, usize)> {
        self.index
            .get_or_init(|| yaml::Index::new(&self.text))
            .locate(&self.text, path)
    }

    /// A problem at `path` in this file, located.
    pub fn diagnostic(&self, path: &[Seg], message: String) -> Diagnostic {
        let (line, column) = self.locate(path).unwrap_or((1, 1));
        Diagnostic {
            file: self.display.clone(),
            line,
            column,
            message: redact::message(&message, &self.redact(path)),
            coded: None,
        }
    }
}
