//! `a2a-sim test`: the bless, break and fix workflow with goldens, its exit codes, partitions,
//! JUnit output, and expectations that fail at their line.

use std::path::Path;

use crate::common::binary::{a2a_sim, a2a_sim_in, scratch};

use super::TRACED;

#[test]
fn the_test_workflow_bless_break_fix() {
    let dir = scratch("workflow");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    for f in ["traced-delegation.yaml", "discovery.yaml"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let first = a2a_sim_in(&dir, &["test", "."], None);
    assert_eq!(first.status, 1, "missing goldens fail");
    assert!(
        first.stdout.contains("a2a-sim test --bless"),
        "{}",
        first.stdout
    );
    let bless = a2a_sim_in(&dir, &["test", "--bless", "."], None);
    assert_eq!(bless.status, 0, "{}", bless.stdout);
    assert!(bless.stdout.contains("(blessed: new golden)"));
    assert!(
        bless.stdout.ends_with("2 passed, 0 failed, 0 errors\n"),
        "{}",
        bless.stdout
    );

    let golden = dir.join("traced-delegation.golden.json");
    let good = std::fs::read_to_string(&golden).unwrap();
    std::fs::write(&golden, good.replace("manual_review", "auto_clear")).unwrap();
    let broken = a2a_sim_in(&dir, &["test", "."], None);
    assert_eq!(broken.status, 1);
    assert!(
        broken.stdout.contains("FAILED ./traced-delegation.yaml"),
        "{}",
        broken.stdout
    );
    assert!(
        broken
            .stdout
            .contains("-            \"recommendation\": \"auto_clear\""),
        "{}",
        broken.stdout
    );
    assert!(
        broken
            .stdout
            .contains("+            \"recommendation\": \"manual_review\""),
        "{}",
        broken.stdout
    );
    assert_eq!(
        broken.stdout.matches("to accept the actual output").count(),
        1
    );
    assert!(broken.stdout.ends_with("1 passed, 1 failed, 0 errors\n"));

    // CRLF goldens compare equal.
    std::fs::write(&golden, good.replace('\n', "\r\n")).unwrap();
    let fixed = a2a_sim_in(&dir, &["test", "."], None);
    assert_eq!(fixed.status, 0, "{}", fixed.stdout);
    assert!(fixed.stdout.ends_with("2 passed, 0 failed, 0 errors\n"));
}

#[test]
fn a_load_error_in_test_exits_2_even_with_failures() {
    let dir = scratch("test-exit");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(TRACED),
        dir.join("a.yaml"),
    )
    .unwrap();
    std::fs::write(dir.join("b.yaml"), "agents: [").unwrap();
    let r = a2a_sim_in(&dir, &["test", "."], None);
    assert_eq!(r.status, 2, "{}", r.stdout);
    assert!(
        r.stdout.ends_with("0 passed, 1 failed, 1 error\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn partitions_run_each_scenario_once() {
    for kind in ["hash", "slice"] {
        let mut seen = Vec::new();
        let mut skipped_total = 0;
        for m in 1..=3 {
            let p = format!("{kind}:{m}/3");
            let r = a2a_sim(&["test", "--partition", &p]);
            assert_eq!(r.status, 0, "{}", r.stdout);
            seen.extend(
                r.stdout
                    .lines()
                    .filter(|l| l.starts_with("ok"))
                    .map(str::to_string),
            );
            let last = r.stdout.lines().last().unwrap().to_string();
            assert!(last.contains(" skipped"), "{last}");
            skipped_total += last
                .rsplit(", ")
                .next()
                .unwrap()
                .trim_end_matches(" skipped")
                .parse::<usize>()
                .unwrap();
        }
        let all = a2a_sim(&["test"]);
        let mut want: Vec<String> = all
            .stdout
            .lines()
            .filter(|l| l.starts_with("ok"))
            .map(str::to_string)
            .collect();
        seen.sort();
        want.sort();
        assert_eq!(seen, want, "{kind}");
        assert_eq!(skipped_total, 2 * want.len());
    }
}

#[test]
fn junit_has_one_testcase_per_scenario() {
    let dir = scratch("junit");
    let out = dir.join("report.xml");
    let r = a2a_sim(&["test", "--junit", out.to_str().unwrap()]);
    assert_eq!(r.status, 0);
    let xml = std::fs::read_to_string(out).unwrap();
    let scenarios = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "yaml")
        })
        .count();
    assert_eq!(xml.matches("<testcase ").count(), scenarios);
    assert!(xml.contains("failures=\"0\""));
}

#[test]
fn expectations_fail_with_their_line_and_survive_bless() {
    let dir = scratch("expect");
    let text = "agents:\n  - {name: s, tenant: t, clearance: public, skills: [{id: s, tags: [x]}], handler: [working, completed]}\ncallers:\n  - {id: c, tenant: t, classification: public}\n  - {id: o, tenant: other, classification: public}\nsteps:\n  - send: {caller: c, to: s, text: hi, as: a}\n  - send: {caller: o, to: s, text: hi, as: b}\nexpect:\n  - {task: a, state: completed, delegation_chain: [c]}\n  - {denied: b, codes: [tenant]}\n  - {denied: 2, codes: [tenant]}\n  - {errors: 0}\n  - {pushes: []}\n  - {task: a, state: failed}\n";
    std::fs::write(dir.join("e.yaml"), text).unwrap();
    let r = a2a_sim_in(&dir, &["test", "--bless", "e.yaml"], None);
    assert_eq!(r.status, 1, "{}", r.stdout);
    assert!(r.stdout.contains("e.yaml:15:5: expectation failed: task `a` (task-1): expected state failed, got completed"), "{}", r.stdout);
    assert_eq!(r.stdout.matches("expectation failed").count(), 1);
    assert!(
        dir.join("e.golden.json").exists(),
        "bless still writes the golden"
    );
}
