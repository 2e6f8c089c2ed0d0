//! The documentation against the binary: the CLI reference's `check` row lists every flag
//! `check --help` has, and the README and the book answer the questions a new user asked.

use std::path::Path;

use crate::common::binary::a2a_sim;

#[test]
fn check_help_matches_the_cli_reference() {
    let help = a2a_sim(&["check", "--help"]).stdout;
    assert!(
        help.contains(r#"{"severity", "file", "line", "column", "message"}"#),
        "{help}"
    );
    let cli = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/reference/cli.md"),
    )
    .unwrap();
    let row = cli
        .lines()
        .find(|l| l.starts_with("| `a2a-sim check "))
        .unwrap();
    for flag in help
        .split_whitespace()
        .filter(|w| w.starts_with("--") && *w != "--help")
    {
        assert!(
            row.contains(flag),
            "the CLI reference's check row lacks {flag}: {row}"
        );
    }
    for value in ["human", "json", "github"] {
        assert!(row.contains(value), "{value}");
    }
}

#[test]
fn the_readme_is_an_orientation_and_the_book_holds_the_rest() {
    // About 150 lines: what it is, a scenario and what it prints, install, the commands, links.
    // Keys, the report contract and the changelog live in docs/ and CHANGELOG.md.
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 160, "the README has {lines} lines");
    for link in [
        "docs/src/SUMMARY.md",
        "CHANGELOG.md",
        "docs/src/guide/real-agents.md",
    ] {
        assert!(readme.contains(link), "the README links to {link}");
    }
}

#[test]
fn the_readme_and_the_book_explain_what_a_new_user_asked() {
    // The README and the book in docs/ together.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut pages = vec![root.join("docs/src")];
    while let Some(dir) = pages.pop() {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let path = e.path();
            if path.is_dir() {
                pages.push(path);
            } else if path.extension().is_some_and(|x| x == "md") {
                readme.push_str(&std::fs::read_to_string(path).unwrap());
            }
        }
    }
    assert!(!readme.contains("deep dive"));
    assert!(readme.contains("| `input-required` | `working`, `canceled`, `failed` |"));
    assert!(readme.contains("best single skill's") && readme.contains("Scopes and depth are"));
    assert!(readme.contains("which includes the caller"));
    for key in [
        "`imports`",
        "--set KEY=VALUE",
        "completions",
        "a2a-sim man",
        "--jsonrpc",
        "--agent NAME",
        "streaming_not_supported",
        "--error-format github",
        "status_message",
        "no scenarios found under",
        "PATH defaults to `scenarios`",
        "templates: true",
        "`a2a-sim explore FILE... [--runs N] [--seed S] [--faults KINDS] [--set KEY=VALUE]...",
    ] {
        assert!(readme.contains(key), "the README and the book lack {key}");
    }
}
