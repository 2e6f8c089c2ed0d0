//! A name (from a scenario, or from recorded traffic) that holds ESC, CR, an OSC sequence, a C1
//! control, U+2028 or a newline reaches no terminal raw: every human output shows them escaped,
//! so no name can forge a `fake.yaml:1:1: error:` line or split one diagnostic into a second,
//! unlocated line.

use std::path::Path;

use crate::common::binary::{a2a_sim_in, scratch};

/// One name with every kind of trouble in it, as a double-quoted YAML scalar.
const EVIL: &str = r#""evil\e[2J\e]0;pwned\a\r\x9b31m\u2028\u202e\nfake.yaml:1:1: error: forged""#;

/// A caller's id with the same trouble (a caller named as its agent would be a cycle).
const EVIL_CALLER: &str = r#""caller\e[2J\u2028\nfake.yaml:1:1: error: forged""#;

/// What no human output may hold: the raw characters and a line the name starts.
fn clean(what: &str, out: &str) {
    for c in ['\u{1b}', '\r', '\u{7}', '\u{9b}', '\u{2028}', '\u{202e}'] {
        assert!(!out.contains(c), "{what}: a raw {c:?} in\n{out}");
    }
    for line in out.lines() {
        assert!(
            !line.starts_with("fake.yaml"),
            "{what}: a forged line:\n{out}"
        );
    }
    assert!(
        out.contains("fake.yaml:1:1: error: forged"),
        "{what}: the name is gone:\n{out}"
    );
}

fn world(dir: &Path) {
    // An agent whose handler can end in `working` (a warning naming it), and a caller of the
    // same name; the run has a task on it.
    let warns = format!(
        "agents:\n  - name: {EVIL}\n    tenant: acme\n    clearance: public\n    skills: [{{id: s, tags: [t]}}]\n    handler: [working, {{message: {EVIL}}}]\ncallers:\n  - {{id: {EVIL_CALLER}, tenant: acme, classification: public}}\nsteps:\n  - send: {{caller: {EVIL_CALLER}, to: {EVIL}, text: {EVIL}, as: t}}\n"
    );
    std::fs::write(dir.join("warns.yaml"), warns).unwrap();
    // A key that is no key of the format, and an unknown agent.
    let errs = format!("agents: []\ncallers: []\nsteps: []\n{EVIL}: 1\n");
    std::fs::write(dir.join("errs.yaml"), errs).unwrap();
    let refs = format!(
        "agents:\n  - {{name: a, tenant: acme, clearance: public, skills: [{{id: s, tags: [t]}}], handler: [working, completed]}}\ncallers:\n  - {{id: c, tenant: acme, classification: public}}\nsteps:\n  - send: {{caller: c, to: {EVIL}, text: hi}}\n"
    );
    std::fs::write(dir.join("refs.yaml"), refs).unwrap();
}

#[test]
fn check_shows_names_escaped_in_every_human_format() {
    let dir = scratch("escapes-check");
    world(&dir);
    for args in [
        vec!["check", "warns.yaml"],
        vec!["check", "--error-format", "github", "warns.yaml"],
        vec!["check", "errs.yaml"],
        vec!["check", "--error-format", "github", "errs.yaml"],
        vec!["check", "refs.yaml"],
    ] {
        let r = a2a_sim_in(&dir, &args, None);
        assert!(r.status == 0 || r.status == 2, "{args:?}: {}", r.stderr);
        let out = format!("{}{}", r.stdout, r.stderr);
        clean(&format!("{args:?}"), &out);
        // Every line is a located diagnostic (or a GitHub command).
        for line in out.lines() {
            assert!(
                line.starts_with("warns.yaml:")
                    || line.starts_with("errs.yaml:")
                    || line.starts_with("refs.yaml:")
                    || line.starts_with("::"),
                "{args:?}: an unlocated line {line:?} in\n{out}"
            );
        }
    }
}

#[test]
fn run_shows_names_escaped_in_its_table_and_its_errors() {
    let dir = scratch("escapes-run");
    world(&dir);
    let r = a2a_sim_in(&dir, &["run", "--format", "table", "warns.yaml"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    clean("run table", &r.stdout);
    for file in ["errs.yaml", "refs.yaml"] {
        let r = a2a_sim_in(&dir, &["run", file], None);
        assert_eq!(r.status, 2, "{}", r.stderr);
        clean(file, &r.stderr);
    }
}

#[test]
fn test_explain_and_coverage_show_names_escaped() {
    let dir = scratch("escapes-analyses");
    world(&dir);
    for (args, status) in [
        (vec!["explain", "warns.yaml", "--task", "task-1"], 0),
        (vec!["explain", "warns.yaml", "--step", "1"], 0),
        (vec!["coverage", "warns.yaml"], 0),
        (vec!["test", "refs.yaml"], 2),
        (vec!["test", "--error-format", "github", "refs.yaml"], 2),
    ] {
        let r = a2a_sim_in(&dir, &args, None);
        assert_eq!(r.status, status, "{args:?}: {}{}", r.stdout, r.stderr);
        clean(&format!("{args:?}"), &format!("{}{}", r.stdout, r.stderr));
    }
}

#[test]
fn audit_shows_recorded_text_escaped() {
    let dir = scratch("escapes-audit");
    let line =
        r#"{"kind": "evil\u001b]0;pwned\u0007\r\u009b\u2028\u202e\nfake.yaml:1:1: error: forged"}"#;
    std::fs::write(dir.join("day.jsonl"), format!("{line}\n")).unwrap();
    let r = a2a_sim_in(&dir, &["audit", "day.jsonl"], None);
    assert_eq!(r.status, 1, "{}", r.stderr);
    clean("audit", &r.stdout);
    assert!(
        r.stdout.starts_with("day.jsonl:1: bad-line: "),
        "{}",
        r.stdout
    );
}
