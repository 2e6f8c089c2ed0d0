//! `a2a-sim run`: what it prints (the same every run and whatever the terminal, no push token, in
//! every format what a run recording every stream prints), its exit codes, and a closed pipe
//! ended quietly.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::binary::{a2a_sim, a2a_sim_in, scratch};

use super::TRACED;

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

/// `run` records only the streams its format shows (`RecordStreams`): every format still prints
/// every bundled scenario exactly as a run that records them all does (the same rendering of such
/// a run, or the protocol goldens it is pinned by).
#[test]
fn every_format_of_run_prints_what_a_run_recording_every_stream_does() {
    use a2a_sim::engine;
    use a2a_sim::protocol::{A2aVersion, export};
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
        let scenario = a2a_sim::scenario::Load::file(file).scenario().unwrap();
        let w = engine::run(&scenario);
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
