//! `--set KEY=VALUE`: an override of one scalar, shown in the report, located when it is wrong,
//! refused by `test`, and taken by `explore` into every run.

use crate::common::{
    binary::{a2a_sim_in, write},
    library::{USES_LIBS, with_libs},
};

#[test]
fn set_overrides_a_scalar_and_is_shown_in_the_report() {
    let dir = with_libs("ed-set");
    let r = a2a_sim_in(
        &dir,
        &[
            "run",
            "--format",
            "json",
            "--set",
            "callers.orchestrator.classification=restricted",
            "s.yaml",
        ],
        None,
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys[1], "overrides");
    assert_eq!(
        v["overrides"][0],
        "callers.orchestrator.classification=restricted"
    );
    assert_eq!(v["denials"][0]["codes"][0], "classification");
    let table = a2a_sim_in(
        &dir,
        &["run", "--set", "policy.max_depth=1", "s.yaml"],
        None,
    );
    assert!(
        table.stdout.lines().nth(1) == Some("overrides: policy.max_depth=1"),
        "{}",
        table.stdout
    );
    // Steps by their number, the operation implied.
    let r = a2a_sim_in(
        &dir,
        &[
            "run",
            "--format",
            "json",
            "--set",
            "steps.1.text=hello",
            "s.yaml",
        ],
        None,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["tasks"][0]["history"][0]["message"], "hello",
        "{}",
        r.stdout
    );
}

#[test]
fn set_problems_are_located_at_the_override() {
    let dir = with_libs("ed-set-bad");
    for (set, want) in [
        (
            "policy.max_depth=0",
            "--set policy.max_depth=0: max_depth must be at least 1",
        ),
        (
            "agents.nobody.tenant=x",
            "--set agents.nobody.tenant=x: no agent `nobody`",
        ),
        (
            "policy.max_dept=3",
            "--set policy.max_dept=3: unknown field `max_dept`",
        ),
    ] {
        let r = a2a_sim_in(&dir, &["check", "--set", set, "s.yaml"], None);
        assert_eq!(r.status, 2, "{set}");
        assert!(r.stderr.starts_with(want), "{set}: {}", r.stderr);
    }
    let r = a2a_sim_in(&dir, &["test", "--set", "policy.max_depth=3", "."], None);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("`test --set` is refused"), "{}", r.stderr);
}

#[test]
fn explore_takes_set_with_the_same_semantics_and_located_errors() {
    let dir = with_libs("ed-set-explore");
    write(
        &dir,
        "s.yaml",
        &format!("{USES_LIBS}expect:\n  - {{task: a, always: true, state: completed}}\n"),
    );
    let args = ["explore", "s.yaml", "--runs", "3", "--faults", "slow"];
    let plain = a2a_sim_in(&dir, &args, None);
    assert_eq!(
        (plain.status, plain.stdout.as_str()),
        (0, "3 runs, 0 violations\n"),
        "{}",
        plain.stderr
    );
    // The override reaches every run: the caller now lacks the clearance, so the claim breaks.
    let mut set = args.to_vec();
    set.extend(["--set", "callers.orchestrator.classification=restricted"]);
    let r = a2a_sim_in(&dir, &set, None);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    // The three runs give the same violation with the same (empty) schedule: one finding.
    assert!(
        r.stdout.ends_with("3 runs, 3 violations, 1 distinct\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("(seed 1, first of 3 runs)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("outcome denied"), "{}", r.stdout);
    let mut bad = args.to_vec();
    bad.extend(["--set", "policy.max_depth=0"]);
    let r = a2a_sim_in(&dir, &bad, None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr
            .starts_with("--set policy.max_depth=0: max_depth must be at least 1"),
        "{}",
        r.stderr
    );
    let r = a2a_sim_in(&dir, &["explore", "s.yaml", "--set", "nokey"], None);
    assert_eq!(r.status, 2, "{}", r.stderr);
}
