//! The one way in: a [`Load`] says what to load — a file's path or a text — with which `--set`
//! overrides and whether to look for `check`'s warnings, and loads it. Reading a file into its
//! text is [`file_text`](crate::file_text)'s, re-exported here.

use std::path::Path;

use super::{Loaded, Warnings, load_string_as};
use crate::diagnostic::LoadError;
pub use crate::file_text::{decode_utf8, read};
use crate::overrides::Override;
use engine::scenario::Scenario;

/// What to load and how: `Load::file(path)` or `Load::text(display, text, base, name)`, then
/// optionally `.overrides(..)` and `.warnings(..)`, then `.load()` (the scenario with `check`'s
/// warnings) or `.scenario()`.
pub struct Load<'a> {
    source: Source<'a>,
    overrides: &'a [Override],
    warnings: Warnings,
}

enum Source<'a> {
    File(&'a Path),
    Text {
        /// How diagnostics name it.
        display: &'a str,
        text: String,
        /// Where files it names (imports, cards, keys) are read from.
        base: &'a Path,
        /// Its name when it gives none.
        name: String,
    },
}

impl<'a> Load<'a> {
    /// A scenario file, named in diagnostics as given; what it names is read relative to its
    /// folder, and its name defaults to its file name without extension.
    pub fn file(path: &'a Path) -> Self {
        Load {
            source: Source::File(path),
            overrides: &[],
            warnings: Warnings::Find,
        }
    }

    /// Scenario text (a `String` is taken without a copy).
    pub fn text(
        display: &'a str,
        text: impl Into<String>,
        base: &'a Path,
        default_name: impl Into<String>,
    ) -> Self {
        Load {
            source: Source::Text {
                display,
                text: text.into(),
                base,
                name: default_name.into(),
            },
            overrides: &[],
            warnings: Warnings::Find,
        }
    }

    /// `--set` overrides, each applied to the file that holds its key.
    pub fn overrides(mut self, overrides: &'a [Override]) -> Self {
        self.overrides = overrides;
        self
    }

    /// Whether to look for `check`'s warnings (found by default; a scenario loads the same
    /// either way).
    pub fn warnings(mut self, warnings: Warnings) -> Self {
        self.warnings = warnings;
        self
    }

    /// Loads it: the scenario and `check`'s warnings, or the located problems.
    pub fn load(self) -> Result<Loaded, LoadError> {
        match self.source {
            Source::File(path) => {
                let text = read(path)?;
                let base = path.parent().unwrap_or(Path::new("."));
                load_string_as(
                    &path.display().to_string(),
                    text,
                    base,
                    default_name(path),
                    self.overrides,
                    self.warnings,
                )
            }
            Source::Text {
                display,
                text,
                base,
                name,
            } => load_string_as(display, text, base, name, self.overrides, self.warnings),
        }
    }

    /// [`Load::load`], the scenario only.
    pub fn scenario(self) -> Result<Scenario, LoadError> {
        self.load().map(|l| l.scenario)
    }
}

/// The scenario's default name: its file name without extension.
pub fn default_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
