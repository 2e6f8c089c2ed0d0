//! `check`: load errors, handler-path warnings and coded findings, in each error format.

use std::io::Write;
use std::path::PathBuf;

use super::args::ErrorFormat;
use super::input::load;
use crate::corpus;
use crate::error::{Diagnostic, Error, LoadError, Severity, Status};
use crate::scenario::Override;

pub(super) fn check(
    paths: &[PathBuf],
    format: ErrorFormat,
    deny_warnings: bool,
    allowed: &[&str],
    jobs: usize,
    overrides: &[Override],
) -> Result<Status, Error> {
    let files = corpus::expand(paths).map_err(Error::Usage)?;
    let mut status = Status::Success;
    let results: Vec<Result<Vec<Diagnostic>, LoadError>> = {
        let mut v = Vec::with_capacity(files.len());
        corpus::for_each_ordered(
            &files,
            jobs,
            |f| {
                load(f, overrides).map(|l| {
                    if files.len() == 1 {
                        // The process ends after one file: freeing its model piece by piece
                        // (100,000 steps' strings) would be a twentieth of a large file's check.
                        std::mem::forget(l.scenario);
                    }
                    l.warnings
                })
            },
            |_, r| v.push(r),
        );
        v
    };
    let mut err = std::io::stderr().lock();
    for r in results {
        let (diagnostics, severity) = match r {
            Err(e) => (e.diagnostics, "error"),
            Ok(warnings) if deny_warnings => (warnings, "error"),
            Ok(warnings) => (warnings, "warning"),
        };
        let diagnostics: Vec<Diagnostic> = diagnostics
            .into_iter()
            .filter(|d| d.coded.as_ref().is_none_or(|c| !allowed.contains(&c.code)))
            .collect();
        for d in &diagnostics {
            // A note stays a note under `--deny warnings`: a service identity accepted on purpose.
            let severity = match &d.coded {
                Some(c) if c.severity == Severity::Note => "note",
                _ => severity,
            };
            if severity == "error" {
                status = Status::InputErrors;
            }
            let level = match severity {
                "error" => crate::annotation::Level::Error,
                "note" => crate::annotation::Level::Notice,
                _ => crate::annotation::Level::Warning,
            };
            // Human and GitHub lines are read by people: names in them are shown escaped.
            let line = match (format, &d.coded) {
                (ErrorFormat::Github, _) => crate::annotation::github(
                    level,
                    &crate::escape::text(&d.file),
                    d.line,
                    d.column,
                    &d.shown_message(),
                ),
                (ErrorFormat::Human, Some(c)) => {
                    format!("{}{severity}[{}]: {}", d.place(), c.code, d.shown_message())
                }
                (ErrorFormat::Human, None) if severity == "warning" => {
                    format!("{}warning: {}", d.place(), d.shown_message())
                }
                (ErrorFormat::Human, None) => d.to_string(),
                (ErrorFormat::Json, coded) => {
                    let mut v = serde_json::json!({
                        "severity": severity,
                        "file": d.file,
                        "line": d.line,
                        "column": d.column,
                        "message": d.full_message(),
                    });
                    if let (Some(c), Some(o)) = (coded, v.as_object_mut()) {
                        o.insert("code".into(), c.code.into());
                        if c.code == "authority_amplified" {
                            o.insert("path".into(), c.path.clone().into());
                            o.insert("scopes".into(), c.scopes.clone().into());
                        }
                    }
                    v.to_string()
                }
            };
            let _ = writeln!(err, "{line}");
        }
    }
    Ok(status)
}
