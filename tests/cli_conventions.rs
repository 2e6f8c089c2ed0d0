//! The command line's conventions: shell completions and a man page, `-` for standard input
//! (relative paths then taken from the current directory), `--jobs 0` refused, and summaries
//! that count in the singular and the plural.

use std::path::Path;

use crate::common::{
    binary::{a2a_sim, a2a_sim_in, write},
    library::{USES_LIBS, with_libs},
};

#[test]
fn completions_for_every_shell_and_a_man_page() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let r = a2a_sim(&["completions", shell]);
        assert_eq!(r.status, 0, "{shell}");
        assert!(r.stdout.contains("a2a-sim"), "{shell}");
    }
    let man = a2a_sim(&["man"]);
    assert_eq!(man.status, 0);
    assert!(man.stdout.contains(".TH a2a-sim"), "{}", man.stdout);
}

#[test]
fn a_dash_reads_the_scenario_from_standard_input() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/discovery.yaml"),
    )
    .unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let r = a2a_sim_in(root, &["run", "--format", "json", "-"], Some(&text));
    assert_eq!(r.status, 0, "{}", r.stderr);
    let from_file = a2a_sim(&["run", "--format", "json", "scenarios/discovery.yaml"]);
    assert_eq!(
        r.stdout,
        from_file
            .stdout
            .replace("\"scenario\": \"discovery\"", "\"scenario\": \"stdin\"")
    );
    let r = a2a_sim_in(
        root,
        &["check", "-"],
        Some("agents: []\ncallers: []\nsteps:\n  - get: {caller: nobody, task_id: t}\n"),
    );
    assert_eq!(r.status, 2);
    assert!(r.stderr.starts_with("<stdin>:4:"), "{}", r.stderr);
}

#[test]
fn standard_input_resolves_relative_paths_from_the_current_directory() {
    let dir = with_libs("ed-stdin-rel");
    let r = a2a_sim_in(&dir, &["run", "--format", "json", "-"], Some(USES_LIBS));
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["scenario"], "stdin");
    assert_eq!(v["tasks"][0]["agent"], "screener");
    // An error inside an import read from standard input is located in the imported file.
    write(
        &dir,
        "lib/callers.yaml",
        "callers:\n  - {id: orchestrator, tenant: acme, classification: secret}\n",
    );
    let r = a2a_sim_in(&dir, &["check", "-"], Some(USES_LIBS));
    assert_eq!(r.status, 2);
    assert!(r.stderr.starts_with("lib/callers.yaml:2:"), "{}", r.stderr);
}

#[test]
fn jobs_zero_is_a_usage_error_and_summaries_are_plural_aware() {
    for cmd in ["run", "check", "test"] {
        let r = a2a_sim(&[cmd, "--jobs", "0", "scenarios/discovery.yaml"]);
        assert_eq!(r.status, 2, "{cmd}");
        assert!(r.stderr.contains("--jobs"), "{cmd}: {}", r.stderr);
    }
    let dir = with_libs("ed-plural");
    let r = a2a_sim_in(&dir, &["run", "s.yaml"], None);
    assert!(
        r.stdout
            .contains("1 step, 1 task, 0 denials, 0 pushes, 0 errors"),
        "{}",
        r.stdout
    );
    write(
        &dir,
        "one.yaml",
        &format!("{USES_LIBS}  - get: {{caller: orchestrator, task_id: task-9}}\n"),
    );
    let r = a2a_sim_in(&dir, &["run", "one.yaml"], None);
    assert!(
        r.stdout
            .contains("2 steps, 1 task, 0 denials, 0 pushes, 1 error\n"),
        "{}",
        r.stdout
    );
}
