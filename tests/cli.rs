//! The real binary, run as a user would.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::binary::{a2a_sim, a2a_sim_in, scratch};

const TRACED: &str = "scenarios/traced-delegation.yaml";

#[test]
fn the_traced_delegation_shows_chain_history_and_both_parts() {
    let r = a2a_sim(&["run", TRACED]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    for want in [
        "orchestrator -> payments-agent",
        "submitted",
        "working",
        "completed",
        "Acme Trading FZE: 1 possible match (score 0.83) against SDN list",
        r#"{"matches":1,"top_score":0.83,"list":"SDN","recommendation":"manual_review"}"#,
    ] {
        assert!(r.stdout.contains(want), "missing {want:?} in\n{}", r.stdout);
    }
}

#[test]
fn json_output_is_byte_identical_across_runs_and_in_file_order() {
    let a = a2a_sim(&[
        "run",
        "--format",
        "json",
        TRACED,
        "scenarios/discovery.yaml",
    ]);
    let b = a2a_sim(&[
        "run",
        "--format",
        "json",
        TRACED,
        "scenarios/discovery.yaml",
        "--jobs",
        "1",
    ]);
    assert_eq!(a.status, 0, "{}", a.stderr);
    assert_eq!(a.stdout, b.stdout);
    let first = a.stdout.find("traced delegation").unwrap();
    let second = a
        .stdout
        .find("\"scenario\": \"discovery")
        .unwrap_or(usize::MAX);
    assert!(first < second);
    let docs: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&a.stdout)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[0]["format_version"], 1);
}

#[test]
fn table_output_does_not_depend_on_the_terminal_width() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_a2a-sim"));
    let narrow = cmd
        .args(["run", TRACED])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("COLUMNS", "20")
        .output()
        .unwrap();
    let wide = a2a_sim(&["run", TRACED]);
    assert_eq!(String::from_utf8_lossy(&narrow.stdout), wide.stdout);
    assert!(
        !wide.stdout.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
}

#[test]
fn a_file_that_does_not_load_exits_2_and_the_others_still_run() {
    let dir = scratch("bad-run");
    std::fs::write(
        dir.join("bad.yaml"),
        "agents: []\ncallers: []\nsteps:\n  - sned: {}\n",
    )
    .unwrap();
    let traced = Path::new(env!("CARGO_MANIFEST_DIR")).join(TRACED);
    let r = a2a_sim_in(
        &dir,
        &[
            "run",
            "--format",
            "json",
            "bad.yaml",
            traced.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(r.status, 2);
    assert!(r.stderr.starts_with("bad.yaml:4:5: "), "{}", r.stderr);
    assert!(r.stderr.contains("did you mean `send`?"), "{}", r.stderr);
    assert!(r.stdout.contains("traced delegation"));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(a2a_sim(&["run"]).status, 2);
    assert_eq!(a2a_sim(&["run", TRACED, "--format", "yaml"]).status, 2);
    assert_eq!(a2a_sim(&["frobnicate"]).status, 2);
    assert_eq!(a2a_sim(&["run", "no/such/file.yaml"]).status, 2);
    assert_eq!(a2a_sim(&["--help"]).status, 0);
}

#[test]
fn no_push_token_is_printed_in_any_format() {
    for format in ["json", "table", "a2a", "a2a-stream", "acp"] {
        let r = a2a_sim(&[
            "run",
            "--format",
            format,
            "scenarios/push-notifications.yaml",
        ]);
        assert_eq!(r.status, 0, "{format}: {}", r.stderr);
        assert!(
            !r.stdout.contains("s3cr3t") && !r.stderr.contains("s3cr3t"),
            "{format} leaked a token"
        );
    }
}

#[test]
fn check_reports_every_problem_at_its_line() {
    let dir = scratch("check");
    let text = "agents:\n  - {name: a, tenant: t, clearance: public, skills: [{id: s, tags: [x]}]}\n  - {name: a, tenant: t, clearance: secret, skills: [{id: s, tags: [x]}]}\ncallers:\n  - {id: c, tenant: t, classification: public}\nsteps:\n  - send: {caller: c, to: b, text: hi}\n  - get: {caller: d, task: nope}\n";
    std::fs::write(dir.join("s.yaml"), text).unwrap();
    let r = a2a_sim_in(&dir, &["check", "s.yaml"], None);
    assert_eq!(r.status, 2);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 5, "{}", r.stderr);
    assert!(
        lines[0].starts_with("s.yaml:3:12: duplicate agent name `a`"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("s.yaml:3:37: unknown classification level `secret`"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("s.yaml:7:27: unknown agent `b`"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].starts_with("s.yaml:8:19: unknown caller `d`"),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].starts_with("s.yaml:8:28: unknown alias `nope`"),
        "{}",
        lines[4]
    );
    let json = a2a_sim_in(&dir, &["check", "--error-format", "json", "s.yaml"], None);
    let first: serde_json::Value =
        serde_json::from_str(json.stderr.lines().next().unwrap()).unwrap();
    assert_eq!(
        (first["line"].as_u64(), first["column"].as_u64()),
        (Some(3), Some(12))
    );
    assert_eq!(a2a_sim(&["check", "scenarios"]).status, 0);
}

/// `serve` refuses to push to this machine unless told to: an allow-list entry that names it is
/// said at its line (issue 26, item 7), and a scenario without one says nothing.
#[test]
fn check_warns_of_a_push_host_that_names_this_machine() {
    let r = a2a_sim(&["check", "tests/serve/push-by-name.yaml"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "tests/serve/push-by-name.yaml:6:44: warning: `localhost` names this machine"
        ),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("--allow-loopback-push"), "{}", r.stderr);
    let quiet = a2a_sim(&["check", "tests/serve/session.yaml"]);
    assert!(
        !quiet.stderr.contains("names this machine"),
        "{}",
        quiet.stderr
    );
}

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

#[test]
fn schema_describes_every_bundled_scenario() {
    let r = a2a_sim(&["schema"]);
    assert_eq!(r.status, 0);
    let schema: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(schema["title"], "a2a-sim scenario");
    assert_eq!(schema["additionalProperties"], false);
}

#[test]
fn convert_round_trips_through_acp() {
    let tasks = a2a_sim(&["run", "--format", "a2a", TRACED]);
    let list: serde_json::Value = serde_json::from_str(&tasks.stdout).unwrap();
    let task = list[0].to_string();
    let acp = a2a_sim_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["convert", "--from", "a2a", "--to", "acp"],
        Some(&task),
    );
    assert_eq!(acp.status, 0, "{}", acp.stderr);
    let internal_a = a2a_sim_in(
        Path::new("."),
        &["convert", "--from", "a2a", "--to", "internal", "-"],
        Some(&task),
    );
    let internal_b = a2a_sim_in(
        Path::new("."),
        &["convert", "--from", "acp", "--to", "internal"],
        Some(&acp.stdout),
    );
    assert_eq!(internal_a.stdout, internal_b.stdout);
    assert!(
        internal_a
            .stdout
            .contains("\"recommendation\": \"manual_review\"")
    );
    // ACP requires created_at: taken from the task's status timestamp, deterministically.
    let run: serde_json::Value = serde_json::from_str(&acp.stdout).unwrap();
    assert_eq!(run["created_at"], "2026-01-01T00:00:03Z");
    assert_eq!(run["finished_at"], "2026-01-01T00:00:03Z");
    let bad = a2a_sim_in(
        Path::new("."),
        &["convert", "--from", "a2a", "--to", "acp"],
        Some("{\"id\": \"x\", \"status\": {\"state\": \"working\"}}"),
    );
    assert_eq!(bad.status, 2);
    assert!(bad.stderr.contains("agent_name"), "{}", bad.stderr);
}

#[test]
fn card_prints_the_agent_card_without_platform_metadata() {
    for v in ["1.0", "0.3"] {
        let r = a2a_sim(&["card", TRACED, "sanctions-screener", "--a2a-version", v]);
        assert_eq!(r.status, 0, "{}", r.stderr);
        for secret in [
            "acme\"",
            "confidential",
            "sanctions:screen",
            "handler",
            "tenant",
        ] {
            assert!(!r.stdout.contains(secret), "{v}: {secret} in {}", r.stdout);
        }
    }
    let r = a2a_sim(&["card", TRACED, "sanctions-screner"]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("did you mean `sanctions-screener`?"),
        "{}",
        r.stderr
    );
    assert_eq!(
        a2a_sim(&["card", TRACED, "--list"]).stdout,
        "sanctions-screener\n"
    );
}

#[test]
fn every_bundled_scenario_validates_against_the_schema() {
    let r = a2a_sim(&["schema"]);
    let schema: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = a2a_sim::corpus::expand(&[root.join("scenarios")]).unwrap();
    for f in &files {
        let doc =
            a2a_sim::scenario::yaml::parse_value(&std::fs::read_to_string(f).unwrap()).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", f.display());
    }
    // And it rejects what the loader rejects: an unknown key, an unknown step kind.
    for bad in [
        "agents: []\ncallers: []\nsteps: []\nextra: 1\n",
        "agents: []\ncallers: []\nsteps: [{sned: {}}]\n",
    ] {
        let doc = a2a_sim::scenario::yaml::parse_value(bad).unwrap();
        assert!(!validator.is_valid(&doc), "{bad}");
    }
}

#[test]
fn the_readme_quick_start_command_runs() {
    // `cargo run --release -- run scenarios/traced-delegation.yaml` needs a default binary.
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    assert!(manifest.contains("default-run = \"a2a-sim\""));
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    assert!(readme.contains("cargo run --release -- run scenarios/traced-delegation.yaml"));
    assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join(TRACED).exists());
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    // `a2a-sim run ... | head`: the reader going away is not an error, in any format.
    let dir = scratch("pipe");
    let mut steps = String::new();
    for _ in 0..3000 {
        steps.push_str("  - stream: {caller: c, to: s, text: go}\n");
    }
    let yaml = format!(
        "agents:\n  - {{name: s, tenant: t, clearance: public, skills: [{{id: s, tags: [x]}}], handler: [working, completed]}}\ncallers:\n  - {{id: c, tenant: t, classification: public}}\nsteps:\n{steps}"
    );
    std::fs::write(dir.join("big.yaml"), yaml).unwrap();
    for format in ["json", "table", "a2a", "a2a-stream", "acp"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_a2a-sim"))
            .args(["run", "--format", format, "big.yaml"])
            .current_dir(&dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 64];
        use std::io::Read;
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `run` records only the streams its format shows (`RecordStreams`): every format still prints
/// every bundled scenario exactly as a run that records them all does (the same rendering of such
/// a run, or the protocol goldens it is pinned by).
#[test]
fn every_format_of_run_prints_what_a_run_recording_every_stream_does() {
    use a2a_sim::engine::world;
    use a2a_sim::protocol::{export, version::A2aVersion};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = a2a_sim::corpus::expand(&[root.join("scenarios")]).unwrap();
    assert!(files.len() >= 7, "the bundled scenarios are missing");
    let golden = |path: PathBuf| {
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .replace("\r\n", "\n")
    };
    for file in &files {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let pinned = root.join("tests/protocol-goldens").join(&stem);
        let scenario = a2a_sim::scenario::loader::load_path(file).unwrap();
        let w = world::run(&scenario);
        let mut json = Vec::new();
        a2a_sim::report::json::write(&w, &mut json).unwrap();
        let json = String::from_utf8(json).unwrap();
        let mut jsonrpc = Vec::new();
        export::write_stream_with(&w, A2aVersion::V0_3, true, &mut jsonrpc).unwrap();
        let mut expected = vec![
            (vec!["json"], json),
            (
                vec!["table"],
                a2a_sim::report::table::render(&w, a2a_sim::report::table::Layout::Fixed),
            ),
            (vec!["a2a"], golden(pinned.join("a2a-1.0.json"))),
            (
                vec!["a2a", "--a2a-version", "0.3"],
                golden(pinned.join("a2a-0.3.json")),
            ),
            (
                vec!["a2a-stream"],
                golden(pinned.join("a2a-stream-1.0.jsonl")),
            ),
            (
                vec!["a2a-stream", "--a2a-version", "0.3", "--jsonrpc"],
                String::from_utf8(jsonrpc).unwrap(),
            ),
            (vec!["mermaid"], golden(pinned.join("mermaid.mmd"))),
            (vec!["html"], golden(pinned.join("timeline.html"))),
        ];
        if export::check_acp(&w).is_ok() {
            expected.push((vec!["acp"], golden(pinned.join("acp.json"))));
        }
        let path = file.to_string_lossy();
        for (format, want) in expected {
            let mut args = vec!["run", path.as_ref(), "--format"];
            args.extend(&format);
            let r = a2a_sim(&args);
            assert_eq!(r.status, 0, "{stem} {format:?}: {}", r.stderr);
            assert!(r.stdout == want, "{stem} {format:?} differs");
        }
    }
}
