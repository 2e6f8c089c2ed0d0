//! The byte scanner of scenario YAML (`yaml::scanned`) reads every file of the repository and every
//! generated file either exactly as serde_norway does (`yaml::slow_parse`) or not at all: as a
//! value tree (every scalar's resolution) and as the typed file model (strings, options, enums).

use std::path::{Path, PathBuf};

use a2a_sim::scenario::yaml::{self, scanned, slow_parse};
use a2a_sim::scenario::{ScenarioFile, StepList};

type V = serde_json::Value;

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            // Installed packages (an example agent's node_modules) are not the repository's.
            if path
                .file_name()
                .is_some_and(|n| n == "node_modules" || n == "target")
            {
                continue;
            }
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

/// Whether the scanner read `text`; panics if it read it otherwise than serde_norway.
fn agrees(what: &str, text: &str) -> bool {
    let value = scanned::<V>(text);
    if let Some(v) = &value {
        assert_eq!(Ok(v), slow_parse::<V>(text).as_ref(), "{what}: value tree");
    }
    let typed = scanned::<ScenarioFile>(text).map(|f| format!("{f:?}"));
    if let Some(t) = &typed {
        let slow = slow_parse::<ScenarioFile>(text).map(|f| format!("{f:?}"));
        assert_eq!(Ok(t), slow.as_ref(), "{what}: typed model");
    }
    value.is_some() || typed.is_some()
}

#[test]
fn every_yaml_file_of_the_repository_is_read_as_serde_norway_reads_it_or_given_up() {
    let mut files = Vec::new();
    for dir in [
        "scenarios",
        "tests",
        "conformance",
        "benches/data",
        "scripts",
        "examples",
    ] {
        yaml_files(Path::new(dir), &mut files);
    }
    assert!(files.len() > 100, "{} files", files.len());
    let mut read = 0;
    let mut scenarios = (0, 0);
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let ok = agrees(&path.display().to_string(), &text);
        read += usize::from(ok);
        if path.starts_with("scenarios") {
            scenarios.0 += 1;
            scenarios.1 += usize::from(ok);
        }
    }
    // Not vacuous: most files are the scanner's (every bundled scenario but a handful).
    assert!(read * 2 > files.len(), "{read} of {} read", files.len());
    assert!(scenarios.1 * 2 > scenarios.0, "{scenarios:?}");
}

#[test]
fn generated_files_are_read_by_the_scanner_as_serde_norway_reads_them() {
    let flags: &[&[&str]] = &[
        &["--seed", "1", "--agents", "30", "--steps", "1500"],
        &[
            "--seed",
            "7",
            "--agents",
            "5",
            "--steps",
            "300",
            "--tenants",
            "2",
            "--callers",
            "3",
        ],
        &[
            "--seed",
            "11",
            "--agents",
            "12",
            "--steps",
            "400",
            "--skills-per-agent",
            "4",
            "--nesting-depth",
            "5",
        ],
        &["--seed", "3", "--history", "200"],
    ];
    for f in flags {
        let text = a2a_sim_gen::yaml_for(f).expect("a2a-sim-gen's flags are valid");
        assert!(agrees(&format!("{f:?}"), &text), "{f:?}: not read");
        assert!(
            scanned::<ScenarioFile>(&text).is_some(),
            "{f:?}: not read as a scenario"
        );
        // Read on two threads (the second half of the steps on the other), the same file model.
        let whole = yaml::parse::<ScenarioFile>(&text).expect("reads");
        let mut joined = 0;
        let split = yaml::parse_split(&text, "steps", 0, |f: &mut ScenarioFile, rest: StepList| {
            joined = rest.len();
            f.steps.get_or_insert_default().append(rest);
        })
        .expect("reads");
        assert!(
            format!("{whole:?}") == format!("{split:?}"),
            "{f:?}: read differently on two threads"
        );
        if f.contains(&"--steps") {
            assert!(joined > 0, "{f:?}: the split path was not taken");
        }
    }
}
