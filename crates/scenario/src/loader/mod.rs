//! Loading: a scenario file's text → a checked [`Scenario`], or every problem with its position.

use std::path::Path;

use crate::diagnostic::{Diagnostic, LoadError};
use crate::overrides::Override;
pub use crate::problem::Problem;
use crate::secrets::Redact;
use crate::yaml::Seg;
use crate::{imports, paths, redact};
use engine::scenario::*;

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

struct Loader<'b> {
    problems: Vec<Problem>,
    /// The handler being read comes from a file with `templates: true`.
    templates: bool,
    symbols: Symbols,
    base: &'b Path,
    /// Each agent's named results, for `expect` paths.
    results: Vec<Vec<handlers::NamedResult>>,
    /// Problems located in other files (a JWKS, a private JWK): their own line and column.
    extra: Vec<Diagnostic>,
    /// Why a real agent's `{token}` cannot be filled in (no `keys`, or no platform key to sign
    /// it with); `None` when it can.
    no_agent_token: Option<&'static str>,
}
mod entry;
mod place;
pub use entry::*;
use place::{Child, Place, child, path};

macro_rules! at {
    ($($seg:expr),* $(,)?) => { vec![$($crate::yaml::Seg::from($seg)),*] };
}

// After `at!`, which they use.
mod agents;
mod card_signing;
mod conditions;
mod expectations;
mod external;
mod faults;
mod handlers;
mod locate;
mod matrix_claims;
mod names;
mod received_claims;
mod scenario;
mod settings;
mod steps;
mod task_paths;
mod templates;
mod tokens;
mod value_tests;
mod values;
mod webhook_claims;

use locate::{coded, locate_all};
use names::{Names, Table};

impl Loader<'_> {
    fn problem(&mut self, path: Vec<Seg>, message: impl Into<String>) {
        self.problems.push(Problem {
            path,
            message: message.into(),
        });
    }
}
