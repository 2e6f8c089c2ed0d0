//! Load errors of `calls` (located, also in an imported file) and the schema.

use super::*;

/// `test.yaml:LINE:COL: ` of the first `at` on the (first) line of `text` that holds `line`.
fn point(text: &str, line: &str, at: &str) -> String {
    let (i, l) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(line))
        .unwrap_or_else(|| panic!("no line holds {line}"));
    let col = l[l.find(line).unwrap()..].find(at).unwrap() + l.find(line).unwrap() + 1;
    format!("test.yaml:{}:{col}: ", i + 1)
}

#[test]
fn calls_load_errors_are_located_at_their_key() {
    const WINDOW_AND_CALLS: &str =
        "`calls` picks requests instead of a tick window: drop `from` and `to`, or `calls`";
    const ONE_OR_MORE: &str =
        "a request number is 1 or more (the first request to the agent is 1), not";
    let rows = [
        // `calls` with `from`/`to`, in every kind that takes a window: at `calls`' value.
        ("{agent: screener, unavailable: {from: 1, calls: [2]}}", "[2]", WINDOW_AND_CALLS.to_string()),
        ("{agent: screener, slow: {extra: 1, to: 4, calls: [2]}}", "[2]", WINDOW_AND_CALLS.to_string()),
        ("{agent: screener, http_error: {status: 502, from: 0, calls: [1]}}", "[1]", WINDOW_AND_CALLS.to_string()),
        ("{agent: screener, reset: {to: 9, calls: [1]}}", "[1]", WINDOW_AND_CALLS.to_string()),
        ("{agent: screener, drop_stream: {after: 2, calls: [1], from: 3}}", "[1]", WINDOW_AND_CALLS.to_string()),
        // An empty list; a request number below 1, at the item.
        ("{agent: screener, unavailable: {calls: []}}", "[]", "`calls` needs at least one request number, e.g. `[2]`".to_string()),
        ("{agent: screener, unavailable: {calls: [0]}}", "0]", format!("{ONE_OR_MORE} 0")),
        ("{agent: screener, reset: {calls: [3, 0]}}", "0]", format!("{ONE_OR_MORE} 0")),
        ("{agent: screener, slow: {extra: 1, calls: [2, -3, 4]}}", "-3", format!("{ONE_OR_MORE} -3")),
        // The new kinds' own values.
        ("{agent: screener, http_error: {status: 200}}", "200", "`status` is an HTTP error status, 400 to 599, not 200".to_string()),
        ("{agent: screener, http_error: {status: 600, calls: [1]}}", "600", "`status` is an HTTP error status, 400 to 599, not 600".to_string()),
        ("{agent: screener, drop_stream: {after: -1}}", "-1", "`after` is a number of events, 0 or more, not -1".to_string()),
        // A push host counts no requests.
        ("{push_host: hooks.acme.example, down: {calls: [1]}}", "[1]", "`calls` counts requests to an agent; a push host's faults take a tick window".to_string()),
        // A crash takes no `calls`: an unknown key, at the key.
        ("{agent: screener, crash: {at: 1, calls: [1]}}", "calls", "unknown field `calls`, expected `at` or `restart`".to_string()),
        // Two kinds, old and new: at the entry.
        ("{agent: screener, reset: {}, drop_stream: {after: 1}}", "{agent", "an agent fault has exactly one of `unavailable`, `slow`, `crash`, `http_error`, `reset`, `drop_stream`".to_string()),
        ("{agent: screener, http_error: {status: 502}, unavailable: {calls: [1]}}", "{agent", "an agent fault has exactly one of".to_string()),
    ];
    for (fault, at, message) in rows {
        let y = scenario(SCREENER, &format!("  - {fault}"), &send("a"));
        let e = load_err(&y);
        let want = point(&y, fault, at);
        assert!(
            e.lines()
                .any(|l| l.starts_with(&want) && l.contains(&message)),
            "{fault}: want {want}{message}\ngot: {e}"
        );
    }
    // Block style: the item on its own line.
    let y = scenario(
        SCREENER,
        "  - agent: screener\n    reset:\n      calls:\n        - 2\n        - 0",
        &send("a"),
    );
    let e = load_err(&y);
    let want = point(&y, "        - 0", "0");
    assert!(e.starts_with(&format!("{want}{ONE_OR_MORE} 0")), "{e}");
}

#[test]
fn a_calls_error_in_an_imported_file_is_located_there_and_exits_2() {
    let dir = crate::common::library::with_libs("faults-calls-imported");
    write(
        &dir,
        "lib/faults.yaml",
        "faults:\n  - {agent: screener, unavailable: {calls: [1]}}\n  - agent: screener\n    reset:\n      calls:\n        - 2\n        - 0\n",
    );
    write(
        &dir,
        "s.yaml",
        "imports: [lib/agents.yaml, lib/callers.yaml, lib/faults.yaml]\nsteps:\n  - send: {caller: orchestrator, to: screener, text: hi, as: a}\n",
    );
    for cmd in ["check", "run"] {
        let r = a2a_sim_in(&dir, &[cmd, "s.yaml"], None);
        assert_eq!(r.status, 2, "{cmd}");
        assert!(
            r.stderr.starts_with(
                "lib/faults.yaml:7:11: a request number is 1 or more (the first request to the agent is 1), not 0"
            ),
            "{cmd}: {}",
            r.stderr
        );
    }
    // Fixed, the imported faults hold: the first request refused.
    write(
        &dir,
        "lib/faults.yaml",
        "faults:\n  - {agent: screener, unavailable: {calls: [1]}}\n",
    );
    let r = a2a_sim_in(&dir, &["run", "--format", "json", "s.yaml"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(refused_steps(&v), [1]);
}

#[test]
fn the_schema_takes_calls_and_the_wire_faults() {
    let schema = a2a_sim::scenario::scenario_schema();
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    let doc = |faults: &str| {
        let text = scenario(SCREENER, faults, &send("a"));
        a2a_sim::scenario::yaml::parse_value(&text).unwrap()
    };
    let good = doc(
        "  - {agent: screener, unavailable: {calls: [2]}}\n  - {agent: screener, slow: {extra: 3, calls: [1, 2]}}\n  - {agent: screener, http_error: {status: 502, calls: [1]}}\n  - {agent: screener, reset: {from: 1, to: 4}}\n  - {agent: screener, drop_stream: {after: 0, calls: [3]}}",
    );
    let errors: Vec<String> = validator
        .iter_errors(&good)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    for bad in [
        "  - {agent: screener, crash: {at: 1, calls: [1]}}",
        "  - {agent: screener, http_error: {calls: [1]}}",
        "  - {agent: screener, drop_stream: {calls: [1]}}",
        "  - {agent: screener, unavailable: {calls: 2}}",
    ] {
        assert!(!validator.is_valid(&doc(bad)), "{bad}");
    }
}

// `explore` draws window faults only; a call-picked fault reaches its printing and shrinking from
// the public functions, and from a file's own faults.
