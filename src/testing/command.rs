//! `a2a-sim test`: runs the scenarios (in parallel), prints `ok` / `FAILED` per scenario in input
//! order with diffs and failed expectations, the bless hint once, and `N passed, N failed`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use crate::corpus;
use crate::error::{Error, Status};
use crate::escape::Escaped;
use crate::testing::golden::{self, Blessed, Outcome};
use crate::testing::junit;
use crate::testing::partition::Partition;

/// Failed if any scenario failed; input errors if a file did not load (that wins).
pub fn run(
    paths: &[PathBuf],
    bless: bool,
    partition: Option<Partition>,
    junit_path: Option<&std::path::Path>,
    jobs: usize,
    github: bool,
    real: &crate::running::RealAgentArgs,
) -> Result<Status, Error> {
    let files = corpus::expand(paths).map_err(Error::Usage)?;
    // Libraries (files without `steps`) are checked by `check`, not tested.
    let files: Vec<PathBuf> = corpus::without_libraries(files, jobs, |_| false);
    if files.is_empty() {
        // As nextest does: a run that tests nothing is a mistake, not a success.
        let searched: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(Error::Usage(format!(
            "no scenarios found under {}",
            searched.join(", ")
        )));
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    type Numbered<'a> = Vec<(usize, &'a PathBuf)>;
    let (selected, skipped): (Numbered, Numbered) = files
        .iter()
        .enumerate()
        .partition(|(i, f)| partition.is_none_or(|p| p.contains(*i, f, &cwd)));
    let stdout = std::io::stdout();
    let colour = stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut out = std::io::BufWriter::new(stdout.lock());
    let (mut passed, mut failed, mut errors) = (0, 0, 0);
    // JUnit cases with their place in the sorted list, so they come out in input order.
    let mut cases: Vec<(usize, junit::Case)> = Vec::new();
    let mut to_bless = Vec::new();
    let paths_only: Vec<&PathBuf> = selected.iter().map(|(_, p)| *p).collect();
    corpus::for_each_ordered(
        &paths_only,
        jobs,
        |p| golden::test_one(p, bless, real),
        |i, o: Outcome| {
            let at = selected[i].0;
            let name = o.path.display().to_string();
            let verdict = if o.passed() { "ok" } else { "FAILED" };
            let mut details = String::new();
            let mut annotations = Vec::new();
            if github {
                annotations = annotate(&o);
            }
            if let Some(e) = &o.load_error {
                details.push_str(&format!("{e}\n"));
            }
            if let Some(e) = &o.run_error {
                for line in e.lines() {
                    details.push_str(&format!("  {}\n", crate::escape::text(line)));
                }
            }
            // Names, paths and the report's text are shown escaped ([`crate::escape`]); a load
            // error escapes its own.
            if o.missing_golden {
                details.push_str(&format!(
                    "  no golden file {}\n",
                    Escaped(&golden::golden_path(&o.path).display().to_string())
                ));
            }
            if let Some(d) = &o.diff {
                for line in d.lines() {
                    details.push_str(&crate::escape::text(line));
                    details.push('\n');
                }
            }
            for u in &o.unmet {
                details.push_str(&format!("  {}\n", Escaped(u)));
            }
            if let Some(e) = &o.write_error {
                details.push_str(&format!("  {}\n", Escaped(e)));
            }
            let blessed = match o.blessed {
                Some(Blessed::New) => " (blessed: new golden)",
                Some(Blessed::Updated) => " (blessed: golden updated)",
                None => "",
            };
            let _ = writeln!(out, "{verdict:<6} {}{blessed}", Escaped(&name));
            if github {
                for a in &annotations {
                    let _ = writeln!(out, "{a}");
                }
            } else if !details.is_empty() {
                let _ = out.write_all(colourise(&details, colour).as_bytes());
            }
            if o.passed() {
                passed += 1;
                cases.push((
                    at,
                    junit::Case {
                        name,
                        result: junit::CaseResult::Passed,
                        message: None,
                    },
                ));
            } else if o.load_error.is_some() || o.run_error.is_some() {
                errors += 1;
                cases.push((
                    at,
                    junit::Case {
                        name,
                        result: junit::CaseResult::Error(details),
                        message: None,
                    },
                ));
            } else {
                failed += 1;
                {
                    if o.missing_golden || o.diff.is_some() {
                        to_bless.push(o.path.display().to_string());
                    }
                    cases.push((
                        at,
                        junit::Case {
                            name,
                            result: junit::CaseResult::Failed(details),
                            message: o.first_difference.as_ref().map(|d| d.summary()),
                        },
                    ));
                }
            }
        },
    );
    for (at, p) in &skipped {
        cases.push((
            *at,
            junit::Case {
                name: p.display().to_string(),
                result: junit::CaseResult::Skipped,
                message: None,
            },
        ));
    }
    cases.sort_by_key(|(at, _)| *at);
    let cases: Vec<junit::Case> = cases.into_iter().map(|(_, c)| c).collect();
    if !to_bless.is_empty() {
        let _ = writeln!(
            out,
            "\nto accept the actual output as the new golden: a2a-sim test --bless {}",
            Escaped(&to_bless.join(" "))
        );
    }
    let skipped_note = if partition.is_some() {
        format!(", {} skipped", skipped.len())
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "{passed} passed, {failed} failed, {}{skipped_note}",
        crate::report::plural(errors, "error")
    );
    let _ = out.flush();
    if let Some(path) = junit_path
        && let Err(e) = std::fs::write(path, junit::render(&cases))
    {
        return Err(Error::Output(
            format!("the JUnit report {}", path.display()),
            e,
        ));
    }
    Ok(if errors > 0 {
        Status::InputErrors
    } else if failed > 0 {
        Status::Failed
    } else {
        Status::Success
    })
}

/// GitHub annotations for a scenario that did not pass: each load error and failed expectation
/// where it is, a failed golden comparison on the golden file at its first differing line.
fn annotate(o: &golden::Outcome) -> Vec<String> {
    use crate::annotation::{Level, github};
    let file = o.path.display().to_string();
    let mut out = Vec::new();
    if let Some(e) = &o.load_error {
        for d in &e.diagnostics {
            out.push(github(Level::Error, &d.file, d.line, d.column, &d.message));
        }
    }
    if let Some(e) = &o.run_error {
        out.push(github(Level::Error, &file, 1, 1, e));
    }
    if o.missing_golden {
        let msg = format!(
            "no golden file {}; accept the output with `a2a-sim test --bless {file}`",
            golden::golden_path(&o.path).display()
        );
        out.push(github(Level::Error, &file, 1, 1, &msg));
    }
    if let Some(d) = &o.first_difference {
        let golden = golden::golden_path(&o.path).display().to_string();
        let msg = format!(
            "the report differs from the golden: {}; accept it with `a2a-sim test --bless {file}`",
            d.summary()
        );
        out.push(github(Level::Error, &golden, d.line, 1, &msg));
    }
    for u in &o.unmet {
        // `FILE:LINE:COL: message`, as the human output has it.
        let rest = u.strip_prefix(&format!("{file}:")).unwrap_or(u);
        let mut parts = rest.splitn(3, ':');
        let line = parts.next().and_then(|l| l.parse().ok()).unwrap_or(1);
        let col = parts.next().and_then(|c| c.parse().ok()).unwrap_or(1);
        let msg = parts.next().unwrap_or(rest).trim_start();
        out.push(github(Level::Error, &file, line, col, msg));
    }
    if let Some(e) = &o.write_error {
        out.push(github(Level::Error, &file, 1, 1, e));
    }
    out
}

/// Colours a unified diff's added and removed lines, on a terminal only.
fn colourise(text: &str, colour: bool) -> String {
    if !colour {
        return text.to_string();
    }
    text.lines()
        .map(|l| {
            if l.starts_with("+++") || l.starts_with("---") {
                format!("\x1b[1m{l}\x1b[0m\n")
            } else if l.starts_with('+') {
                format!("\x1b[32m{l}\x1b[0m\n")
            } else if l.starts_with('-') {
                format!("\x1b[31m{l}\x1b[0m\n")
            } else if l.starts_with("@@") {
                format!("\x1b[36m{l}\x1b[0m\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}
