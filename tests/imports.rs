//! `imports`: a scenario that takes agents, callers and policy from library files; duplicates and
//! conflicting policy keys across files, errors located in the file that holds them, import
//! cycles, and libraries that `check` reads but `run` and `test` pass over.

use crate::common::{
    binary::{a2a_sim_in, scratch, write},
    library::{CALLERS_LIB, USES_LIBS, with_libs},
};

#[test]
fn imports_bring_agents_callers_and_policy() {
    let dir = with_libs("ed-imports");
    let r = a2a_sim_in(&dir, &["run", "--format", "json", "s.yaml"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["tasks"][0]["agent"], "screener");
    assert_eq!(v["tasks"][0]["state"], "completed");
}

#[test]
fn a_duplicate_across_imported_files_names_both() {
    let dir = with_libs("ed-imports-dup");
    write(
        &dir,
        "s.yaml",
        &format!(
            "{USES_LIBS}agents:\n  - {{name: screener, tenant: acme, clearance: public, skills: [{{id: s, tags: [x]}}]}}\n"
        ),
    );
    let r = a2a_sim_in(&dir, &["check", "s.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.starts_with("s.yaml:5:")
            && r.stderr.contains("duplicate agent name `screener`")
            && r.stderr.contains("lib/agents.yaml"),
        "{}",
        r.stderr
    );
}

#[test]
fn policy_keys_imported_and_set_differently_are_an_error() {
    let dir = with_libs("ed-imports-policy");
    write(
        &dir,
        "s.yaml",
        &format!("policy: {{max_depth: 2}}\n{USES_LIBS}"),
    );
    let r = a2a_sim_in(&dir, &["check", "s.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("s.yaml:1:")
            && r.stderr.contains("policy.max_depth")
            && r.stderr.contains("lib/agents.yaml"),
        "{}",
        r.stderr
    );
    // Set alike: fine.
    write(
        &dir,
        "s.yaml",
        &format!("policy: {{max_depth: 4}}\n{USES_LIBS}"),
    );
    assert_eq!(a2a_sim_in(&dir, &["check", "s.yaml"], None).status, 0);
}

#[test]
fn errors_in_an_imported_file_are_located_in_it_and_cycles_refused() {
    let dir = with_libs("ed-imports-err");
    write(
        &dir,
        "lib/callers.yaml",
        "callers:\n  - {id: orchestrator, tenant: acme, classification: secret}\n",
    );
    let r = a2a_sim_in(&dir, &["check", "s.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(r.stderr.starts_with("lib/callers.yaml:2:"), "{}", r.stderr);
    assert!(
        r.stderr.contains("unknown classification level `secret`"),
        "{}",
        r.stderr
    );

    write(
        &dir,
        "lib/callers.yaml",
        &format!("imports: [../s.yaml]\n{CALLERS_LIB}"),
    );
    let r = a2a_sim_in(&dir, &["check", "s.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("lib/callers.yaml:1:") && r.stderr.contains("import cycle"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_library_is_checked_skipped_by_test_and_refused_by_run() {
    let dir = with_libs("ed-library");
    assert_eq!(
        a2a_sim_in(&dir, &["check", "lib/agents.yaml"], None).status,
        0
    );
    let r = a2a_sim_in(&dir, &["run", "lib/agents.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("is a library"), "{}", r.stderr);
    let r = a2a_sim_in(&dir, &["test", "--bless", "."], None);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("s.yaml") && !r.stdout.contains("agents.yaml"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.ends_with("1 passed, 0 failed, 0 errors\n"),
        "{}",
        r.stdout
    );
    // A directory walk of `run` skips libraries too.
    let r = a2a_sim_in(&dir, &["run", "."], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
}

#[test]
fn imported_items_come_first_in_import_order_and_paths_are_relative_to_their_file() {
    let dir = scratch("ed-imports-order");
    let agent = |name: &str| {
        format!(
            "  - {{name: {name}, tenant: acme, clearance: public, skills: [{{id: {name}, tags: [x]}}], handler: [working, completed]}}\n"
        )
    };
    // lib/one.yaml imports nested/zero.yaml (relative to lib/), whose agent's card is relative
    // to lib/nested/.
    let card = std::fs::read_to_string("scenarios/cards/kyc-registry.json").unwrap();
    write(&dir, "lib/nested/cards/kyc.json", &card);
    write(
        &dir,
        "lib/nested/zero.yaml",
        "agents:\n  - {card: cards/kyc.json, tenant: acme, clearance: public, handler: [working, completed]}\n",
    );
    write(
        &dir,
        "lib/one.yaml",
        &format!("imports: [nested/zero.yaml]\nagents:\n{}", agent("one")),
    );
    write(&dir, "lib/two.yaml", &format!("agents:\n{}", agent("two")));
    write(
        &dir,
        "s.yaml",
        &format!(
            "imports: [lib/one.yaml, lib/two.yaml]\nagents:\n{}{CALLERS_LIB}steps:\n  - send: {{caller: orchestrator, to: kyc-registry, text: hi}}\n",
            agent("root")
        ),
    );
    let r = a2a_sim_in(&dir, &["card", "--list", "s.yaml"], None);
    assert_eq!(
        (r.status, r.stdout.as_str()),
        (
            0,
            "kyc-registry\tlib/nested/cards/kyc.json\none\ntwo\nroot\n"
        ),
        "{}",
        r.stderr
    );
}
