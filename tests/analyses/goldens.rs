//! The new outputs on the bundled scenarios, pinned: every `explain` (each step, each discovery,
//! each task; human and JSON), `coverage` of the bundled corpus and the matrix table, compared
//! with `tests/analyses-goldens/`.
//!
//! After checking a deliberate change: `A2A_SIM_BLESS=1 cargo test --test integration analyses`.

use std::path::{Path, PathBuf};

use a2a_sim::analysis::{coverage::Coverage, explain};
use a2a_sim::engine::scenario::Step;
use a2a_sim::scenario::Load;
use a2a_sim::{corpus, engine};

use crate::common::goldens::{bless_or_compare, blessing};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap() + "\n"
}

/// (golden file, actual text) for every new output.
fn outputs() -> Vec<(PathBuf, String)> {
    let dir = root().join("tests/analyses-goldens");
    let mut out = Vec::new();
    let files = corpus::expand(&[root().join("scenarios")]).unwrap();
    let mut cov = Coverage::default();
    for f in &files {
        let rel = f.strip_prefix(root()).unwrap_or(f).display().to_string();
        let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
        let s = Load::file(f).scenario().unwrap();
        let w = engine::run(&s);
        cov.add(&rel, &w);
        let (mut text, mut docs) = (String::new(), Vec::new());
        let mut add = |e: explain::Explanation| {
            text.push_str(&e.text);
            text.push('\n');
            docs.push(e.json);
        };
        for (i, step) in s.steps.iter().enumerate() {
            add(explain::step(&w, i + 1).unwrap());
            let by_discovery = match step {
                Step::Send(send) => {
                    matches!(send.to, a2a_sim::engine::scenario::Target::Discover(_))
                }
                _ => false,
            };
            if by_discovery {
                add(explain::discover(&w, i + 1).unwrap());
            }
        }
        for t in 0..w.tasks.len() {
            add(explain::task(&w, &format!("task-{}", t + 1)).unwrap());
        }
        out.push((dir.join(&stem).join("explain.txt"), text));
        out.push((
            dir.join(&stem).join("explain.json"),
            pretty(&serde_json::Value::Array(docs)),
        ));
        if s.steps.iter().any(|st| matches!(st, Step::Matrix { .. })) {
            let table = a2a_sim::report::table::render(&w, a2a_sim::report::table::Layout::Fixed);
            out.push((dir.join(&stem).join("table.txt"), table));
        }
    }
    let doc = cov.json();
    out.push((
        dir.join("coverage.txt"),
        a2a_sim::analysis::coverage::human(&doc),
    ));
    out.push((dir.join("coverage.json"), pretty(&doc)));
    out
}

#[test]
fn new_outputs_match_their_goldens() {
    let bless = blessing();
    let mut differ = Vec::new();
    for (file, actual) in outputs() {
        differ.extend(bless_or_compare(&file, &actual, bless));
    }
    assert!(
        differ.is_empty(),
        "output differs from (or lacks) its golden:\n{}\nrebless with A2A_SIM_BLESS=1 after checking",
        differ.join("\n")
    );
}

#[test]
fn outputs_are_deterministic() {
    let a = outputs();
    let b = outputs();
    assert_eq!(a, b);
    let _ = Path::new(".");
}
