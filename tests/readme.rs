//! The README against the binary: the `check` row lists every flag `check --help` has, and the
//! questions a new user asked are answered.

use std::path::Path;

use crate::common::binary::a2a_sim;

#[test]
fn check_help_matches_the_readme() {
    let help = a2a_sim(&["check", "--help"]).stdout;
    assert!(
        help.contains(r#"{"severity", "file", "line", "column", "message"}"#),
        "{help}"
    );
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.starts_with("| `a2a-sim check "))
        .unwrap();
    for flag in help
        .split_whitespace()
        .filter(|w| w.starts_with("--") && *w != "--help")
    {
        assert!(row.contains(flag), "README's check row lacks {flag}: {row}");
    }
    for value in ["human", "json", "github"] {
        assert!(row.contains(value), "{value}");
    }
}

#[test]
fn the_readme_explains_what_a_new_user_asked() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    assert!(!readme.contains("deep dive"));
    assert!(readme.contains("](#checking-files-and-editor-support)"));
    assert!(readme.contains("### Checking files and editor support"));
    assert!(readme.contains("syntax showcase"));
    assert!(
        readme.contains("### The task lifecycle")
            && readme.contains("| input-required | working, canceled, failed |")
    );
    assert!(
        readme.contains("best single skill's")
            && readme.contains("not** filtered by scopes or depth")
    );
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
        assert!(readme.contains(key), "README lacks {key}");
    }
}
