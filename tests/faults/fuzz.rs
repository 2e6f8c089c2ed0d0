//! No panic on any input: arbitrary fault entries either load with located errors or run, and a
//! run under any drawn schedule keeps the engine's invariants.

use a2a_sim::scenario::Load;
use a2a_sim::testing::check::check;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

const BASE: &str = r#"
policy: {push_allowed_hosts: [hooks.acme.example], push_delivery: {attempts: ATTEMPTS, backoff: BACKOFF}}
agents:
  - name: payments
    tenant: acme
    clearance: confidential
    capabilities: {push_notifications: true}
    skills: [{id: pay, tags: [payments]}]
    handler:
      - working: Screening first
      - fan_out: {to: [screener, kyc], text: Check, as: checks, timeout: 9}
      - delegate: {to: screener, text: Screen, as: screen, retry: {attempts: 3, backoff: 1}, on_pause: escalate}
      - completed: Paid
  - name: screener
    tenant: acme
    clearance: confidential
    skills: [{id: screen, tags: [sanctions]}]
    handler: [working: Screening, input_required: Which list?, wait: 2, completed: Done]
  - name: kyc
    tenant: acme
    clearance: confidential
    skills: [{id: kyc, tags: [kyc]}]
    handler: [working, completed]
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
steps:
  - send: {caller: orchestrator, to: payments, text: Pay, as: pay, push: {url: "https://hooks.acme.example/p?x", token: s3cr3t-tok}}
  - reply: {caller: orchestrator, task: pay, text: SDN}
  - wait: 3
  - reply: {caller: orchestrator, task: pay, text: EU}
  - cancel: {caller: orchestrator, task: pay}
faults:
"#;

fn fault() -> impl Strategy<Value = String> {
    let tick = prop_oneof![0i64..40, Just(-1i64), Just(i64::MAX)];
    let agent = prop_oneof![
        Just("payments"),
        Just("screener"),
        Just("kyc"),
        Just("nobody")
    ];
    (0..6usize, agent, tick.clone(), tick.clone(), tick).prop_map(|(k, a, x, y, z)| match k {
        0 => format!("  - {{agent: {a}, unavailable: {{from: {x}, to: {y}}}}}"),
        1 => format!("  - {{agent: {a}, slow: {{extra: {z}, from: {x}}}}}"),
        2 => format!("  - {{agent: {a}, crash: {{at: {x}, restart: {y}}}}}"),
        3 => format!("  - {{agent: {a}, crash: {{at: {x}}}}}"),
        4 => format!("  - {{push_host: hooks.acme.example, down: {{from: {x}, to: {y}}}}}"),
        _ => "  - {push_host: hooks.acme.example, duplicate: true}".to_string(),
    })
}

proptest! {
    // A fixed seed keeps CI reproducible; PROPTEST_CASES widens the search by hand.
    #![proptest_config(Config {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(300),
        rng_seed: RngSeed::Fixed(0x0a2a_fa17),
        failure_persistence: None,
        ..Config::default()
    })]
    #[test]
    fn any_faults_load_or_are_refused_and_runs_keep_the_invariants(
        faults in proptest::collection::vec(fault(), 0..8),
        attempts in prop_oneof![1i64..6, Just(0i64), Just(64i64)],
        backoff in prop_oneof![0i64..4, Just(i64::MAX)],
    ) {
        let text = BASE
            .replace("ATTEMPTS", &attempts.to_string())
            .replace("BACKOFF", &backoff.to_string())
            + &faults.join("\n") + "\n";
        match Load::text("fuzz.yaml", &text, std::path::Path::new("."), "fuzz").scenario() {
            Err(e) => prop_assert!(e.to_string().contains("fuzz.yaml:"), "{e}"),
            Ok(s) => prop_assert_eq!(check(&s, &s.faults), None),
        }
    }
}

/// Found by this fuzz: a `slow` window of `i64::MAX` extra ticks drove the clock to `u64::MAX`,
/// and the next event's tick overflowed (a panic in debug builds, a wrap to zero in release).
#[test]
fn a_slow_window_to_the_end_of_time_keeps_the_invariants() {
    let text = BASE.replace("ATTEMPTS", "64").replace("BACKOFF", "0")
        + "  - {agent: payments, slow: {extra: 9223372036854775807, from: 0}}\n";
    let s = Load::text("fuzz.yaml", &text, std::path::Path::new("."), "fuzz")
        .scenario()
        .expect("loads");
    assert_eq!(check(&s, &s.faults), None);
}
