//! A session's report is written as the session runs: each step once it is final, the world
//! forgetting the steps written, and the file's bytes are those of the report written whole at
//! the end.

use std::path::Path;

use a2a_sim::engine::World;
use a2a_sim::report::json::{Session, write};
use a2a_sim::scenario::Load;

use serde_json::{Value, json};

use super::support::*;

/// Serves every step of `file` as a session would, writing the report as it goes and forgetting
/// the steps written after every `forget_every` steps; the bytes, and the most step records the
/// world held at once.
fn session_report(file: &str, forget_every: Option<usize>) -> (Vec<u8>, usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut scenario = Load::text(file, &text, path.parent().unwrap(), "s")
        .scenario()
        .unwrap();
    let steps: &'static [_] = Box::leak(std::mem::take(&mut scenario.steps).into_boxed_slice());
    let scenario = Box::leak(Box::new(scenario));
    let mut world = World::new(scenario);
    world.pace_events();
    let mut out = Vec::new();
    let mut held = 0;
    match forget_every {
        None => {
            for step in steps {
                world.serve_step(step);
                held = held.max(world.steps.len());
            }
            world.finish();
            write(&world, &mut out).unwrap();
        }
        Some(n) => {
            let mut report = Session::begin(&world, &mut out);
            for (k, step) in steps.iter().enumerate() {
                world.serve_step(step);
                held = held.max(world.steps.len());
                report.steps(&world, &|call| world.call_open(call)).unwrap();
                if (k + 1) % n == 0 {
                    world.forget_steps(report.written() - world.steps_forgotten);
                }
            }
            world.finish();
            report.finish(&world).unwrap();
        }
    }
    (out, held)
}

#[test]
fn a_report_written_as_the_session_runs_is_the_report_written_at_its_end() {
    for file in [
        "multi-turn.yaml",
        "push-notifications.yaml",
        "admission-denials.yaml",
        "handler-bugs.yaml",
        "cancel-subtree.yaml",
        "nested-delegation.yaml",
        "verified-callers.yaml",
    ] {
        let (whole, all) = session_report(file, None);
        for every in [1, 2, 5] {
            let (written, held) = session_report(file, Some(every));
            assert!(
                written == whole,
                "{file}, forgetting every {every}: the report differs"
            );
            assert!(held <= every + 1, "{file}: {held} steps held of {all}");
        }
    }
}

#[test]
fn a_sessions_report_file_fills_while_it_runs() {
    let mut s = start("tests/serve/session.yaml", &["--report", "session.json"]);
    let report = s.dir.join("session.json");
    let get = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "task-9"}})
        .to_string();
    let send = json!({"jsonrpc": "2.0", "id": 2, "method": "SendMessage", "params": send_params("Screen")})
        .to_string();
    http(
        &s.addr,
        "POST",
        "/agents/notary/",
        &[CALLER],
        send.as_bytes(),
    );
    // A refused get is about 100 bytes of the report: 1,000 of them fill more than its 64 KiB
    // chunk.
    for _ in 0..1000 {
        http(
            &s.addr,
            "POST",
            "/agents/notary/",
            &[CALLER],
            get.as_bytes(),
        );
    }
    let during = std::fs::metadata(&report).unwrap().len();
    assert!(during > 0, "nothing was written while the session ran");
    terminate(&s);
    assert!(s.child.wait().unwrap().success());
    let doc: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let steps = doc["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1001);
    assert_eq!(steps[0]["result"]["task"], "task-1");
    assert_eq!(steps[1000]["step"], 1001);
    assert_eq!(doc["errors"].as_array().unwrap().len(), 1000);
}
