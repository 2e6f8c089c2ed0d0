//! `audit` on recordings: clean ones made by `run --format a2a-stream`, and hand-broken copies.

use std::io::Cursor;

use a2a_sim::analysis::audit::{Finding, MAX_LINE, audit_reader};

use crate::common::binary::{a2a_sim, a2a_sim_in, scratch};

fn stream(file: &str, version: &str) -> String {
    let r = a2a_sim(&[
        "run",
        "--format",
        "a2a-stream",
        "--a2a-version",
        version,
        file,
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    r.stdout
}

fn audit(text: &str) -> Vec<Finding> {
    let mut found = Vec::new();
    audit_reader(&mut Cursor::new(text.as_bytes()), &mut |f| found.push(f)).unwrap();
    found
}

fn rules(found: &[Finding]) -> Vec<(u64, &'static str)> {
    found.iter().map(|f| (f.line, f.rule)).collect()
}

fn edit(text: &str, f: impl Fn(usize, &str) -> Option<String>) -> String {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| f(i + 1, l))
        .map(|l| l + "\n")
        .collect()
}

#[test]
fn every_bundled_recording_is_clean_in_both_versions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    for f in a2a_sim::corpus::expand(&[dir]).unwrap() {
        for v in ["1.0", "0.3"] {
            let found = audit(&stream(f.to_str().unwrap(), v));
            assert!(found.is_empty(), "{} {v}: {found:?}", f.display());
        }
    }
}

const TRACED: &str = "scenarios/traced-delegation.yaml";

/// A broken copy: its name, its text, and the findings it must give.
type Case = (&'static str, String, Vec<(u64, &'static str)>);

#[test]
fn hand_broken_copies_give_located_findings() {
    // traced-delegation: 1 Task, 2 working, 3 artifact, 4 completed (final), which ends it.
    for v in ["0.3", "1.0"] {
        let s = stream(TRACED, v);
        let cases: Vec<Case> = vec![
            (
                "drop working",
                edit(&s, |n, l| (n != 2).then(|| l.into())),
                vec![(3, "illegal-transition")],
            ),
            (
                "event after terminal",
                format!("{s}{}\n", s.lines().nth(2).unwrap()),
                vec![(5, "after-terminal"), (5, "stream-not-closed")],
            ),
            (
                "no ending status update",
                edit(&s, |n, l| (n != 4).then(|| l.into())),
                vec![(3, "stream-not-closed")],
            ),
            (
                "context changes",
                edit(&s, |n, l| {
                    Some(if n == 3 {
                        l.replace("\"ctx-1\"", "\"ctx-9\"")
                    } else {
                        l.into()
                    })
                }),
                vec![(3, "context-changed")],
            ),
            (
                "append to an unknown artifact",
                edit(&s, |n, l| {
                    Some(if n == 3 {
                        l.replace("\"artifact\":{", "\"append\":true,\"artifact\":{")
                    } else {
                        l.into()
                    })
                }),
                vec![(3, "append-unknown-artifact")],
            ),
            (
                "time goes backwards",
                edit(&s, |n, l| {
                    Some(if n == 4 {
                        l.replace("00:00:03Z", "00:00:00Z")
                    } else {
                        l.into()
                    })
                }),
                vec![(4, "timestamp-backwards")],
            ),
            (
                "a bad timestamp",
                edit(&s, |n, l| {
                    Some(if n == 2 {
                        l.replace("2026-01-01T00:00:02Z", "yesterday")
                    } else {
                        l.into()
                    })
                }),
                vec![(2, "bad-timestamp")],
            ),
            (
                "garbage line",
                edit(&s, |n, l| {
                    Some(if n == 3 {
                        "{\"kind\": oops".into()
                    } else {
                        l.into()
                    })
                }),
                vec![(3, "bad-line")],
            ),
            (
                "wrong version's spelling",
                edit(&s, |n, l| {
                    Some(if n == 2 {
                        l.replace("\"working\"", "\"TASK_STATE_WORKING\"").replace(
                            "\"TASK_STATE_WORKING\"",
                            if v == "0.3" {
                                "\"TASK_STATE_WORKING\""
                            } else {
                                "\"working\""
                            },
                        )
                    } else {
                        l.into()
                    })
                }),
                vec![(2, "bad-line"), (4, "illegal-transition")],
            ),
        ];
        for (name, text, want) in cases {
            assert_eq!(rules(&audit(&text)), want, "{v}: {name}\n{text}");
        }
    }
}

#[test]
fn the_two_deliberate_omissions_are_named() {
    let s = stream(TRACED, "0.3");
    let f = audit(&edit(&s, |n, l| (n != 2).then(|| l.into())));
    assert!(f[0].message.contains("submitted -> completed"), "{f:?}");
    assert!(f[0].message.contains("left out on purpose"), "{f:?}");
    // input-required -> rejected
    let text = concat!(
        r#"{"kind":"task","id":"t","contextId":"c","status":{"state":"submitted"}}"#,
        "\n",
        r#"{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"},"final":false}"#,
        "\n",
        r#"{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"input-required"},"final":false}"#,
        "\n",
        r#"{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"rejected"},"final":true}"#,
        "\n",
        r#"{"kind":"task","id":"t","contextId":"c","status":{"state":"rejected"}}"#,
        "\n",
    );
    let f = audit(text);
    assert_eq!(rules(&f), vec![(4, "illegal-transition")]);
    assert!(
        f[0].message.contains("input-required -> rejected") && f[0].message.contains("on purpose")
    );
}

#[test]
fn final_must_be_on_the_streams_last_status_update() {
    let s = stream(TRACED, "0.3");
    let early = edit(&s, |n, l| {
        Some(if n == 2 {
            l.replace("\"final\":false", "\"final\":true")
        } else {
            l.into()
        })
    });
    assert_eq!(rules(&audit(&early)), vec![(4, "final-misplaced")]);
    let missing = edit(&s, |n, l| {
        Some(if n == 4 {
            l.replace("\"final\":true", "\"final\":false")
        } else {
            l.into()
        })
    });
    // The status update that ends the stream is its last: in 0.3 it is the one marked final.
    assert_eq!(rules(&audit(&missing)), vec![(4, "final-misplaced")]);
    let absent = edit(&s, |n, l| {
        Some(if n == 2 {
            l.replace(",\"final\":false", "")
        } else {
            l.into()
        })
    });
    // The line is not an event, so the next status update skips `working`.
    assert_eq!(
        rules(&audit(&absent)),
        vec![(2, "bad-line"), (4, "illegal-transition")]
    );
}

#[test]
fn sse_captures_and_json_rpc_responses_are_read_too() {
    let s = stream(TRACED, "1.0");
    let sse: String = s
        .lines()
        .map(|l| format!("event: message\r\ndata: {l}\r\n\r\n"))
        .collect();
    assert!(audit(&sse).is_empty(), "{:?}", audit(&sse));
    let rpc: String = s
        .lines()
        .enumerate()
        .map(|(i, l)| format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{l}}}\n"))
        .collect();
    assert!(audit(&rpc).is_empty());
    let broken = rpc.lines().skip(1).take(2).collect::<Vec<_>>().join("\n");
    assert_eq!(rules(&audit(&broken)), vec![(2, "stream-not-closed")]);
    let err = "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32001,\"message\":\"Task not found\"}}\n";
    assert!(audit(err).is_empty(), "an error response is not an event");
    // A mixed file: versions are detected per line.
    let (a, b) = (stream(TRACED, "0.3"), stream(TRACED, "1.0"));
    let mixed: String = a
        .lines()
        .zip(b.lines())
        .enumerate()
        .map(|(i, (x, y))| format!("{}\n", if i % 2 == 0 { x } else { y }))
        .collect();
    assert!(audit(&mixed).is_empty(), "{:?}", audit(&mixed));
    assert!(audit("data:\n\n: comment\nid: 4\nretry: 10\n").is_empty());
}

#[test]
fn no_input_panics_and_every_bad_line_is_located() {
    let nested = "[".repeat(100_000);
    let deep_task = format!("{}{}", "{\"task\":".repeat(200), "}".repeat(200));
    let weird: Vec<&[u8]> = vec![
        b"\xff\xfe\x00",
        b"[1,2]",
        b"null",
        b"42",
        b"\"task\"",
        b"{}",
        b"{\"kind\":\"task\"}",
        b"{\"kind\":\"task\",\"id\":7}",
        b"{\"kind\":\"status-update\",\"taskId\":\"t\"}",
        b"{\"kind\":\"bogus\"}",
        b"{\"task\":{},\"message\":{}}",
        b"{\"statusUpdate\":{\"taskId\":\"t\",\"status\":{\"state\":\"TASK_STATE_CANCELLED\"}}}",
        b"{\"kind\":\"task\",\"id\":\"t\",\"id\":\"u\",\"status\":{\"state\":\"working\"}}",
        b"{\"jsonrpc\":\"2.0\",\"result\":{\"jsonrpc\":\"2.0\",\"result\":{}}}",
        b"{\"jsonrpc\":\"2.0\"}",
        b"data: {",
        nested.as_bytes(),
        deep_task.as_bytes(),
    ];
    for (i, line) in weird.iter().enumerate() {
        let mut input = line.to_vec();
        input.push(b'\n');
        let mut found = Vec::new();
        audit_reader(&mut Cursor::new(input), &mut |f| found.push(f)).unwrap();
        assert!(!found.is_empty(), "case {i} gave no finding");
        assert!(found.iter().all(|f| f.line == 1), "case {i}: {found:?}");
    }
    // No trailing newline, blank lines and CRLF are fine; an over-long line is one finding.
    let s = stream(TRACED, "0.3");
    assert!(audit(s.trim_end()).is_empty());
    assert!(audit(&s.replace('\n', "\r\n\r\n")).is_empty());
    let mut long = vec![b'x'; MAX_LINE + 10];
    long.push(b'\n');
    long.extend_from_slice(s.as_bytes());
    let mut found = Vec::new();
    // A small buffer: the line spans many reads.
    let mut r = std::io::BufReader::with_capacity(4096, Cursor::new(long));
    audit_reader(&mut r, &mut |f| found.push(f)).unwrap();
    assert_eq!(rules(&found), vec![(1, "line-too-long")]);
}

#[test]
fn the_command_locates_findings_and_exits_1() {
    let dir = scratch("audit-cli");
    let s = stream(TRACED, "0.3");
    std::fs::write(dir.join("ok.jsonl"), &s).unwrap();
    std::fs::write(
        dir.join("bad.jsonl"),
        edit(&s, |n, l| (n != 2).then(|| l.into())),
    )
    .unwrap();
    let r = a2a_sim_in(&dir, &["audit", "ok.jsonl"], None);
    assert_eq!(r.status, 0, "{}", r.stdout);
    let r = a2a_sim_in(&dir, &["audit", "ok.jsonl", "bad.jsonl"], None);
    assert_eq!(r.status, 1);
    assert!(
        r.stdout
            .starts_with("bad.jsonl:3: illegal-transition: task `task-1`: submitted -> completed"),
        "{}",
        r.stdout
    );
    let r = a2a_sim_in(&dir, &["audit", "bad.jsonl", "--format", "json"], None);
    let first: serde_json::Value = serde_json::from_str(r.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["file"], "bad.jsonl");
    assert_eq!(first["line"], 3);
    assert_eq!(first["rule"], "illegal-transition");
    let last: serde_json::Value = serde_json::from_str(r.stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["summary"]["findings"], 1);
    let r = a2a_sim_in(&dir, &["audit", "missing.jsonl"], None);
    assert_eq!(r.status, 2);
}

#[test]
fn streams_shaped_as_the_official_sdk_server_sends_them_give_no_finding() {
    // The official SDK server ends a stream with the status update that leaves the task terminal
    // or interrupted (0.3 marks it `final: true`) and sends nothing after it; a reply to the
    // interrupted task is a new stream of the same task, opening with a status update.
    let v03 = concat!(
        r#"{"kind":"task","id":"t","contextId":"c","status":{"state":"submitted"}}"#,
        "\n",
        r#"{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"},"final":false}"#,
        "\n",
        r#"{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"input-required"},"final":true}"#,
        "\n",
        r#"{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"},"final":false}"#,
        "\n",
        r#"{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[]}}"#,
        "\n",
        r#"{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"completed"},"final":true}"#,
        "\n",
    );
    assert!(audit(v03).is_empty(), "{:?}", audit(v03));
    let v10 = concat!(
        r#"{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_SUBMITTED"}}}"#,
        "\n",
        r#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}"#,
        "\n",
        r#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_AUTH_REQUIRED"}}}"#,
        "\n",
        r#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}"#,
        "\n",
        r#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_FAILED"}}}"#,
        "\n",
    );
    assert!(audit(v10).is_empty(), "{:?}", audit(v10));
    // Cut before its end, the same stream is still open.
    let cut: String = v10.lines().take(4).map(|l| format!("{l}\n")).collect();
    assert_eq!(rules(&audit(&cut)), vec![(4, "stream-not-closed")]);
}
