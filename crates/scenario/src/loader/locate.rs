//! Where what a load found is shown: each problem in the file (or `--set`) that holds it, in
//! that order, and `check`'s coded findings (laundering paths, look-alike ids) in the importing
//! file.

use crate::diagnostic::{Coded, Diagnostic, Severity};
use crate::imports;
use crate::problem::Problem;
use crate::yaml::Seg;
use crate::{authority_paths, confusables};
use engine::scenario::Scenario;

/// `check`'s coded findings, located, in their own order: laundering paths (shortest first, walk
/// order), then look-alike identities.
pub(super) fn coded(root: &imports::Source, scenario: &Scenario) -> Vec<Diagnostic> {
    let locate = |at: &[Seg], message: String, coded: Coded| Diagnostic {
        coded: Some(Box::new(coded)),
        ..root.diagnostic(at, message)
    };
    let mut out: Vec<Diagnostic> = authority_paths::findings(scenario)
        .into_iter()
        .map(|f| {
            let coded = Coded {
                code: "authority_amplified",
                severity: f.severity,
                path: f.path,
                scopes: f.scopes,
                notes: f.notes,
            };
            locate(&f.at, f.message, coded)
        })
        .collect();
    out.extend(confusables::warnings(scenario).into_iter().map(|p| {
        let coded = Coded {
            code: "confusable_ids",
            severity: Severity::Warning,
            path: Vec::new(),
            scopes: Vec::new(),
            notes: Vec::new(),
        };
        locate(&p.path, p.message, coded)
    }));
    out
}

/// Positions for problems found by path: in the file (or `--set`) that holds each, in order.
pub(super) fn locate_all(merged: &imports::Merged, problems: Vec<Problem>) -> Vec<Diagnostic> {
    let mut diagnostics: Vec<Diagnostic> = problems
        .into_iter()
        .map(|p| merged.locate(&p.path, p.message))
        .collect();
    // Overrides first, then the importing file, then imports, each in file order.
    let rank = |d: &Diagnostic| {
        merged
            .sources
            .iter()
            .position(|s| s.display == d.file && d.line > 0)
            .map_or(0, |i| i + 1)
    };
    diagnostics.sort_by_key(|d| (rank(d), d.line, d.column));
    diagnostics
}
