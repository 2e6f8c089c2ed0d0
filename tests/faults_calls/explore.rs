//! Printing call-picked faults (YAML, JSON that loads back), shrinking them, and `explore` with them.

use super::*;

/// Faults as the scenario writes them, each as `fault_yaml` prints it back.
const PRINTED: [&str; 12] = [
    "{agent: screener, unavailable: {calls: [2]}}",
    "{agent: screener, unavailable: {calls: [2, 4]}}",
    "{agent: screener, unavailable: {from: 5, to: 12}}",
    "{agent: screener, unavailable: {from: 5}}",
    "{agent: screener, http_error: {status: 502, calls: [1]}}",
    "{agent: screener, http_error: {status: 503, from: 0, to: 5}}",
    "{agent: screener, slow: {extra: 3, calls: [2]}}",
    "{agent: screener, slow: {extra: 3, from: 5, to: 12}}",
    "{agent: screener, reset: {calls: [1, 3]}}",
    "{agent: screener, reset: {from: 2}}",
    "{agent: screener, drop_stream: {after: 2, calls: [4]}}",
    "{agent: screener, drop_stream: {after: 0, from: 1, to: 3}}",
];

#[test]
fn fault_yaml_prints_calls_in_place_of_the_window() {
    let faults: Vec<String> = PRINTED.iter().map(|f| format!("  - {f}")).collect();
    let s = load(&scenario(SCREENER, &faults.join("\n"), &send("a")));
    assert_eq!(s.faults.entries.len(), PRINTED.len());
    for (f, want) in s.faults.entries.iter().zip(PRINTED) {
        assert_eq!(fault_yaml(&s, f), want);
    }
}

#[test]
fn fault_json_gives_calls_and_loads_back_as_the_same_fault() {
    let faults: Vec<String> = PRINTED.iter().map(|f| format!("  - {f}")).collect();
    let s = load(&scenario(SCREENER, &faults.join("\n"), &send("a")));
    let json: Vec<Value> = s.faults.entries.iter().map(|f| fault_json(&s, f)).collect();
    assert_eq!(
        json[0],
        json!({"agent": "screener", "unavailable": {"calls": [2]}})
    );
    assert_eq!(
        json[4],
        json!({"agent": "screener", "http_error": {"status": 502, "calls": [1]}})
    );
    assert_eq!(
        json[6],
        json!({"agent": "screener", "slow": {"extra": 3, "calls": [2]}})
    );
    assert_eq!(
        json[10],
        json!({"agent": "screener", "drop_stream": {"after": 2, "calls": [4]}})
    );
    assert_eq!(
        json[2],
        json!({"agent": "screener", "unavailable": {"from": 5, "to": 12}})
    );
    // JSON is YAML: each line pasted back is the same fault.
    let lines: Vec<String> = json.iter().map(|j| format!("  - {j}")).collect();
    let again = load(&scenario(SCREENER, &lines.join("\n"), &send("a")));
    assert_eq!(again.faults.entries, s.faults.entries);
}

/// A claim faults break: the payment completes. The screener gets two attempts.
const WRONG: &str = concat!(
    crate::pay_and_screen!(),
    "expect:\n  - {task: pay, always: true, state: completed}\n"
);

fn on_screener(calls: &[u32]) -> Fault {
    Fault {
        target: FaultTarget::Agent(1),
        kind: FaultKind::Unavailable(Window::ALWAYS),
        calls: Some(calls.into()),
    }
}

#[test]
fn the_shrinker_drops_one_call_at_a_time() {
    let s = load(WRONG);
    // Both attempts refused (requests 1 and 2) breaks the claim; 3 and 5 are never made.
    let drawn = vec![on_screener(&[3, 1, 5, 2])];
    let v = check(&s, &schedule(&s.faults, &drawn)).expect("both attempts refused");
    assert_eq!(v.rule, Rule::Expect(1));
    let (shrunk, found) = shrink(&s, &s.faults, drawn, v, None);
    assert_eq!(found.rule, Rule::Expect(1));
    assert_eq!(shrunk, [on_screener(&[1, 2])], "order kept, no window made");
    // 1-minimal: either call alone breaks nothing.
    for one in [1, 2] {
        assert_eq!(
            check(&s, &schedule(&s.faults, &[on_screener(&[one])])),
            None
        );
    }
    // A single call that is needed stays, beside a window fault that is not.
    let s2 = load(&WRONG.replace("attempts: 2", "attempts: 1"));
    let drawn = vec![
        Fault::new(
            FaultTarget::Agent(0),
            FaultKind::Slow {
                window: Window {
                    from: 0,
                    to: Some(50),
                },
                extra: 2,
            },
        ),
        on_screener(&[1]),
    ];
    let v = check(&s2, &schedule(&s2.faults, &drawn)).expect("the one attempt refused");
    let (shrunk, _) = shrink(&s2, &s2.faults, drawn, v, None);
    assert_eq!(shrunk, [on_screener(&[1])]);
}

#[test]
fn explore_prints_a_call_picked_schedule_that_pastes_back() {
    let s = load(WRONG);
    let faults = vec![on_screener(&[1, 2])];
    let violation = check(&s, &schedule(&s.faults, &faults)).unwrap();
    let found = Found {
        run: 7,
        violation,
        faults,
    };
    let text = human("wrong.yaml", 1, &s, &found, 1);
    assert!(
        text.ends_with(
            "  minimal schedule (paste into the scenario):\n  faults:\n    - {agent: screener, unavailable: {calls: [1, 2]}}\n"
        ),
        "{text}"
    );
    let block: String = text
        .lines()
        .skip_while(|l| l.trim() != "faults:")
        .map(|l| format!("{}\n", &l[2..]))
        .collect();
    let pasted = load(&format!("{WRONG}{block}"));
    let w = engine::run(&pasted);
    assert_eq!(error_codes(&w), ["agent_unavailable", "agent_unavailable"]);
    assert!(a2a_sim::testing::check::always(&w).is_some(), "{block}");
    let line: Value = serde_json::from_str(&json_line("wrong.yaml", 1, &s, &found, 1)).unwrap();
    assert_eq!(
        line["faults"],
        json!([{"agent": "screener", "unavailable": {"calls": [1, 2]}}])
    );
}

#[test]
fn explore_runs_under_a_files_own_call_picked_faults() {
    let dir = scratch("faults-calls-explore");
    // Both attempts refused by the file's own faults: no drawn fault is needed.
    write(
        &dir,
        "wrong.yaml",
        &format!("{WRONG}faults:\n  - {{agent: screener, unavailable: {{calls: [1, 2]}}}}\n"),
    );
    let r = a2a_sim_in(&dir, &["explore", "wrong.yaml", "--runs", "10"], None);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("  no fault needed beyond the scenario's own faults\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.ends_with("10 runs, 10 violations, 1 distinct\n"),
        "{}",
        r.stdout
    );
    // The file's own faults with calls that are never made: no violation without drawn faults,
    // and each drawn schedule is added to them.
    let claimless = WRONG.split("expect:").next().unwrap();
    write(
        &dir,
        "fine.yaml",
        &format!("{claimless}faults:\n  - {{agent: screener, unavailable: {{calls: [9]}}}}\n"),
    );
    let r = a2a_sim_in(&dir, &["explore", "fine.yaml", "--runs", "25"], None);
    assert_eq!(
        (r.status, r.stdout.as_str()),
        (0, "25 runs, 0 violations\n"),
        "{}",
        r.stderr
    );
}

/// BUG: a request number past `u32::MAX` is refused with the message for a number below 1.
#[test]
fn a_request_number_too_large_is_not_said_to_be_below_1() {
    let y = scenario(
        SCREENER,
        "  - {agent: screener, unavailable: {calls: [5000000000]}}",
        &send("a"),
    );
    let e = load_err(&y);
    assert!(!e.contains("is 1 or more"), "{e}");
}
