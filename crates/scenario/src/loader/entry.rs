//! The one way in: a [`Load`] says what to load — a file's path or a text — with which `--set`
//! overrides and whether to look for `check`'s warnings, and loads it. Reading a file into its
//! text is [`file_text`](crate::file_text)'s, re-exported here.

use std::path::Path;

use crate::diagnostic::{Diagnostic, LoadError};
use crate::secrets::Redact;
use crate::{imports, paths, redact};
use engine::scenario::*;

use super::locate::{coded, locate_all};
use super::state::Loader;
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

/// Whether a load looks for `check`'s warnings (handler bugs, laundering paths, look-alike ids)
/// in a scenario that loaded. `run` and `serve` print none, so they skip the walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Warnings {
    Find,
    Skip,
}

/// A scenario that loaded, and what `check` warns about in it.
#[derive(Debug)]
pub struct Loaded {
    pub scenario: Scenario,
    /// Handler bugs found on some path (see `paths`), in file order.
    /// They never stop a run.
    pub warnings: Vec<Diagnostic>,
    /// The file has no `steps`: a library, for other files' `imports`.
    pub library: bool,
}

/// What [`Load::load`] does: merges the imports, then loads the scenario, finding `check`'s
/// warnings or not (a scenario that loads loads the same either way, and the errors of one that
/// does not are the same).
pub(crate) fn load_string_as(
    display: &str,
    text: String,
    base: &Path,
    default_name: String,
    overrides: &[Override],
    find: Warnings,
) -> Result<Loaded, LoadError> {
    let mut merged = imports::merge_owned(display, text, base, overrides)
        .map_err(|diagnostics| LoadError { diagnostics })?;
    let library = merged.file.steps.is_none();
    let mut loader = Loader {
        problems: Vec::new(),
        templates: false,
        symbols: Symbols::default(),
        base,
        results: Vec::new(),
        extra: Vec::new(),
        no_agent_token: None,
    };
    let file = std::mem::take(&mut merged.file);
    if !library {
        for (key, missing) in [
            ("agents", file.agents.is_none()),
            ("callers", file.callers.is_none()),
        ] {
            if missing {
                loader.problem(
                    Vec::new(),
                    format!(
                        "missing field `{key}` (neither this file nor its imports declare `{key}`)"
                    ),
                );
            }
        }
    }
    let mut scenario = loader.scenario(file, default_name);
    scenario.overrides = overrides.iter().map(Override::shown).collect();
    if merged.origins.expect.iter().any(|&(src, _)| src != 0) {
        scenario.expectation_sites = (0..merged.origins.expect.len())
            .map(|i| {
                let d = merged.locate(
                    &[crate::yaml::Seg::from("expect"), crate::yaml::Seg::Index(i)],
                    String::new(),
                );
                format!("{}:{}:{}", d.file, d.line, d.column)
            })
            .collect();
    }
    if loader.problems.is_empty() && loader.extra.is_empty() {
        if find == Warnings::Skip {
            return Ok(Loaded {
                scenario,
                warnings: Vec::new(),
                library,
            });
        }
        let mut found = paths::warnings(&scenario);
        found.extend(crate::push_hosts::warnings(&scenario));
        let mut warnings = locate_all(&merged, found);
        if let Some(root) = merged.sources.first() {
            warnings.extend(coded(root, &scenario));
        }
        return Ok(Loaded {
            scenario,
            warnings,
            library,
        });
    }
    let mut diagnostics = locate_all(&merged, loader.problems);
    // Problems in key files: no value of theirs is a secret of the scenario's, but URLs and
    // JWT-shaped text are shown as everywhere.
    for d in &mut loader.extra {
        d.message = redact::message(&d.message, &Redact::NOTHING);
    }
    diagnostics.append(&mut loader.extra);
    Err(LoadError { diagnostics })
}
