//! Pinned protocol shapes: the cards, A2A tasks and stream events (1.0 and 0.3) and ACP runs of
//! every bundled scenario, compared with `tests/protocol-goldens/SCENARIO/`. The SDKs' validators
//! are looser than the specs, so these goldens fix every key and spelling.
//!
//! After checking a deliberate change: `A2A_SIM_BLESS=1 cargo test --test integration protocol`.

use std::path::{Path, PathBuf};

use a2a_sim::protocol::{A2aVersion, card, export};
use a2a_sim::scenario::Load;
use a2a_sim::{corpus, engine};

use crate::common::goldens::{bless_or_compare, blessing};

fn outputs(path: &Path) -> Vec<(String, String)> {
    let s = Load::file(path).scenario().unwrap();
    let w = engine::run(&s);
    let mut out = Vec::new();
    for (v, tag) in [(A2aVersion::V1_0, "1.0"), (A2aVersion::V0_3, "0.3")] {
        let cards: serde_json::Map<String, serde_json::Value> = s
            .agents
            .iter()
            .map(|a| (a.name().to_string(), card::card_json(&a.card, v).unwrap()))
            .collect();
        out.push((
            format!("cards-{tag}.json"),
            serde_json::to_string_pretty(&cards).unwrap() + "\n",
        ));
        let mut tasks = Vec::new();
        export::write_tasks(&w, v, &mut tasks).unwrap();
        out.push((format!("a2a-{tag}.json"), String::from_utf8(tasks).unwrap()));
        let mut stream = Vec::new();
        export::write_stream(&w, v, &mut stream).unwrap();
        out.push((
            format!("a2a-stream-{tag}.jsonl"),
            String::from_utf8(stream).unwrap(),
        ));
    }
    let mut runs = Vec::new();
    export::write_runs(&w, &mut runs).unwrap();
    out.push(("acp.json".to_string(), String::from_utf8(runs).unwrap()));
    out
}

#[test]
fn protocol_output_of_the_bundled_scenarios_matches_its_goldens() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = blessing();
    let mut differ = Vec::new();
    for scenario in corpus::expand(&[root.join("scenarios")]).unwrap() {
        let stem = scenario.file_stem().unwrap().to_string_lossy().into_owned();
        let dir: PathBuf = root.join("tests/protocol-goldens").join(&stem);
        for (name, actual) in outputs(&scenario) {
            differ.extend(bless_or_compare(&dir.join(&name), &actual, bless));
        }
    }
    assert!(
        differ.is_empty(),
        "protocol output differs from (or lacks) its golden:\n{}\nrebless with A2A_SIM_BLESS=1 after checking",
        differ.join("\n")
    );
}

#[test]
fn stream_calls_open_with_the_task_and_end_at_the_status_update_that_ends_or_pauses_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = Load::file(&root.join("scenarios/nested-delegation.yaml"))
        .scenario()
        .unwrap();
    let w = engine::run(&s);
    let mut out = Vec::new();
    export::write_stream(&w, A2aVersion::V0_3, &mut out).unwrap();
    let events: Vec<serde_json::Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The wire drops each call's events after the one that ends it: the record keeps them.
    let mut ended = vec![false; w.calls.len()];
    let kept: Vec<usize> = w
        .events
        .iter()
        .filter(|e| !std::mem::replace(&mut ended[e.call()], export::ends_stream(&w, e)))
        .map(|e| e.call())
        .collect();
    assert_eq!(events.len(), kept.len());
    assert!(
        kept.len() < w.events.len(),
        "the record's closing snapshots are not sent"
    );
    for (call, _) in w.calls.iter().enumerate() {
        let mine: Vec<&serde_json::Value> = events
            .iter()
            .zip(&kept)
            .filter(|(_, c)| **c == call)
            .map(|(j, _)| j)
            .collect();
        assert_eq!(mine.first().unwrap()["kind"], "task");
        let last = mine.last().unwrap();
        assert_eq!(last["kind"], "status-update", "call {call}");
        let state = last["status"]["state"].as_str().unwrap();
        assert!(
            [
                "completed",
                "failed",
                "canceled",
                "rejected",
                "input-required",
                "auth-required"
            ]
            .contains(&state),
            "call {call} ends at {state}"
        );
        let finals: Vec<bool> = mine
            .iter()
            .filter(|e| e["kind"] == "status-update")
            .map(|e| e["final"].as_bool().unwrap())
            .collect();
        assert_eq!(finals.iter().filter(|f| **f).count(), 1, "call {call}");
        assert_eq!(finals.last(), Some(&true), "call {call}");
    }
    // Timestamps come from the clock: tick n at epoch + n seconds.
    assert_eq!(events[0]["status"]["timestamp"], "2026-01-01T00:00:01Z");
}

#[test]
fn a_card_file_that_is_not_a_card_is_a_load_error_naming_the_field() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bad-card");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("card.json"), r#"{"name": "x", "description": "d", "version": "1", "supportedInterfaces": [{"url": "https://x.example"}]}"#).unwrap();
    std::fs::write(
        dir.join("s.yaml"),
        "agents:\n  - {card: card.json, tenant: t, clearance: public}\ncallers: []\nsteps: []\n",
    )
    .unwrap();
    let e = Load::file(&dir.join("s.yaml"))
        .scenario()
        .unwrap_err()
        .to_string();
    assert!(e.contains("s.yaml:2:12: card file `card.json`: field `supportedInterfaces[0].protocolBinding` must be a string"), "{e}");
}
