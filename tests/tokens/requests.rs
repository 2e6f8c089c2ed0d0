//! Tokens in a run: a refused request makes no task, no id and no tick and never shows the token;
//! verification at the scenario's clock and leeway; nested hops carry minted tokens with the actor
//! chain, and a tampered one (on a delegation, a scripted reply or a forwarded escalation reply)
//! is refused by the callee.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use a2a_sim::engine;
use a2a_sim::engine::record::StepResult;
use a2a_sim::engine::scenario::{Grant, Scenario, Tokens, VerifiedToken};
use serde_json::{Value, json};

use super::{AUD, EPOCH, ISS, segments, token};
use crate::common::{json as report_json, load_as};

use crate::common::{chain, error_codes, states};

fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

fn load(yaml: &str) -> Result<Scenario, String> {
    load_as("t.yaml", &scenarios_dir(), yaml)
}

fn scenario(caller_token: &str, steps: &str) -> String {
    format!(
        r#"
keys: keys/jwks.json
policy:
  token: {{issuer: "{ISS}", audience: {AUD}, platform_key: keys/platform.private.jwk.json}}
agents:
  - {{name: payments-agent, tenant: acme, clearance: restricted, requires_token: true,
     required_scopes: [payments:release], scopes: [lists:read], skills: [{{id: pay, tags: [payments]}}],
     handler: [working, {{delegate: {{to: list-provider, text: fetch}}}}, completed]}}
  - {{name: list-provider, tenant: acme, clearance: confidential, requires_token: true,
     required_scopes: [lists:read], skills: [{{id: lists, tags: [lists]}}], handler: [working, completed]}}
callers:
  - {{name: orchestrator, token: {caller_token}}}
steps:
{steps}
"#
    )
}

#[test]
fn a_refused_request_makes_no_task_no_id_no_tick_and_never_shows_the_token() {
    let t = token(|c| drop(c.insert("exp".into(), json!(EPOCH + 3))));
    let s = load(&scenario(
        &t,
        "  - wait: 3\n  - send: {caller: orchestrator, to: payments-agent, text: pay}",
    ))
    .unwrap();
    let w = engine::run(&s);
    assert!(w.tasks.is_empty());
    assert_eq!(w.clock(), 3, "the refusal took no tick");
    assert!(matches!(w.steps[1].result, StepResult::Nothing));
    assert_eq!(error_codes(&w), ["unauthenticated"]);
    assert!(
        w.errors[0]
            .detail
            .contains("expired at 2026-01-01T00:00:03Z"),
        "{}",
        w.errors[0].detail
    );
    let report = report_json(&w);
    for part in segments(&t) {
        assert!(
            !report.contains(&part),
            "the report shows a part of the token"
        );
    }
}

#[test]
fn verification_uses_the_clock_before_the_tick_the_request_causes() {
    // exp = tick 3. Sent at tick 2, the task is created at tick 3: verified at 2, accepted.
    let t = token(|c| drop(c.insert("exp".into(), json!(EPOCH + 3))));
    let s = load(&scenario(
        &t,
        "  - wait: 2\n  - send: {caller: orchestrator, to: payments-agent, text: pay}",
    ))
    .unwrap();
    let w = engine::run(&s);
    assert_eq!(w.tasks[0].history[0].tick, 3);
    assert!(w.errors.is_empty(), "{:?}", w.errors);
}

#[test]
fn the_scenarios_leeway_applies_at_the_scenario_clock_on_both_sides() {
    // exp = tick 3, nbf = tick 5 (one token each); leeway 2 s. A request at tick t is verified
    // at t: exp passes before tick 5 and nbf from tick 3, and no further.
    let with_leeway = |yaml: String| {
        yaml.replace(
            "platform_key: keys/platform.private.jwk.json}",
            "platform_key: keys/platform.private.jwk.json, leeway_s: 2}",
        )
    };
    let exp = token(|c| drop(c.insert("exp".into(), json!(EPOCH + 3))));
    let nbf = token(|c| {
        c.insert("nbf".into(), json!(EPOCH + 5));
        c.insert("exp".into(), json!(EPOCH + 60));
    });
    for (t, wait, ok) in [
        (&exp, 4, true),
        (&exp, 5, false),
        (&nbf, 2, false),
        (&nbf, 3, true),
    ] {
        let steps =
            format!("  - wait: {wait}\n  - discover: {{caller: orchestrator, tags: [payments]}}");
        let s = load(&with_leeway(scenario(t, &steps))).unwrap();
        let w = engine::run(&s);
        assert_eq!(w.errors.is_empty(), ok, "wait {wait}: {:?}", w.errors);
    }
    // Without the leeway, exp refuses at tick 3 exactly, and nbf passes from tick 5 exactly.
    for (t, wait, ok) in [
        (&exp, 2, true),
        (&exp, 3, false),
        (&nbf, 4, false),
        (&nbf, 5, true),
    ] {
        let steps =
            format!("  - wait: {wait}\n  - discover: {{caller: orchestrator, tags: [payments]}}");
        let s = load(&scenario(t, &steps)).unwrap();
        let w = engine::run(&s);
        assert_eq!(
            w.errors.is_empty(),
            ok,
            "no leeway, wait {wait}: {:?}",
            w.errors
        );
    }
}

#[test]
fn a_claim_the_scenario_cannot_map_is_a_runtime_refusal() {
    let t = token(|c| drop(c.insert("classification".into(), json!("ultra"))));
    let r = load(&scenario(
        &t,
        "  - send: {caller: orchestrator, to: payments-agent, text: pay}",
    ));
    match r {
        Ok(s) => {
            let w = engine::run(&s);
            assert!(w.tasks.is_empty());
            assert_eq!(error_codes(&w), ["unauthenticated"]);
            assert!(
                w.errors[0].detail.contains("`ultra`"),
                "{}",
                w.errors[0].detail
            );
        }
        Err(e) => panic!("a bad claim is a runtime refusal, not a load error: {e}"),
    }
}

#[test]
fn nested_hops_carry_verified_actor_chains() {
    let t = token(|c| drop(c.insert("act".into(), json!({"sub": "portal"}))));
    let s = load(&scenario(
        &t,
        "  - send: {caller: orchestrator, to: payments-agent, text: pay}",
    ))
    .unwrap();
    let w = engine::run(&s);
    assert_eq!(chain(&w, 0), ["portal", "orchestrator"]);
    assert_eq!(chain(&w, 1), ["portal", "orchestrator", "payments-agent"]);
    let nested = &w.caller_tokens[&1];
    assert_eq!(
        (nested.sub.as_str(), nested.kid.as_str()),
        ("payments-agent", "a2a-sim-platform")
    );
    assert_eq!(nested.act_chain, ["portal", "orchestrator"]);
    assert_eq!(
        nested.exp,
        EPOCH + 2 + 300,
        "minted at tick 2, lifetime 300 s"
    );
    let v: Value = serde_json::from_str(&report_json(&w)).unwrap();
    assert_eq!(
        v["tasks"][1]["caller_token"],
        json!({"iss": ISS, "sub": "payments-agent",
        "kid": "a2a-sim-platform", "act_chain": ["portal", "orchestrator"], "exp": EPOCH + 302})
    );
    assert_eq!(
        report_json(&w),
        report_json(&engine::run(&s)),
        "byte-identical across runs"
    );
}

/// The platform's tokens with their claims edited on the wire, signature kept.
#[derive(Debug)]
struct Tamper(Box<dyn Tokens>);

impl Tokens for Tamper {
    fn verify(&self, token: &str, now_ms: i64) -> Result<VerifiedToken, String> {
        self.0.verify(token, now_ms)
    }
    fn mint(&self, grant: &Grant, now_ms: i64) -> Result<String, String> {
        let t = self.0.mint(grant, now_ms)?;
        forged(&*self.0, t, grant, now_ms)
    }
}

#[test]
fn a_tampered_nested_token_is_refused_by_the_callee() {
    let mut s = load(&scenario(
        &token(|_| {}),
        "  - send: {caller: orchestrator, to: payments-agent, text: pay}",
    ))
    .unwrap();
    s.tokens = Some(Box::new(Tamper(s.tokens.take().unwrap())));
    let w = engine::run(&s);
    assert_eq!(w.tasks.len(), 1, "no child task");
    assert_eq!(error_codes(&w), ["unauthenticated"]);
    assert!(
        w.errors[0].detail.ends_with("signature invalid"),
        "{}",
        w.errors[0].detail
    );
    assert_eq!(w.tasks[0].state.as_str(), "failed");
    assert_eq!(
        last_message(&w, 0),
        "delegation to `list-provider` refused: unauthenticated (signature invalid)",
        "the parent's record says why, never the token"
    );
}

#[test]
fn every_request_is_verified_not_only_sends() {
    // A good token at tick 0, expired by the time of the later steps.
    let t = token(|c| drop(c.insert("exp".into(), json!(EPOCH + 3))));
    let steps = "  - discover: {caller: orchestrator, tags: [payments]}
  - send: {caller: orchestrator, to: payments-agent, text: pay, as: pay}
  - get: {caller: orchestrator, task: pay}
  - discover: {caller: orchestrator, tags: [payments]}";
    let s = load(&scenario(&t, steps)).unwrap();
    let w = engine::run(&s);
    assert!(matches!(w.steps[0].result, StepResult::Ranking(_)));
    assert!(matches!(w.steps[1].result, StepResult::Task { .. }));
    assert!(matches!(w.steps[2].result, StepResult::Nothing));
    assert!(matches!(w.steps[3].result, StepResult::Nothing));
    assert_eq!(error_codes(&w), ["unauthenticated", "unauthenticated"]);
}

/// A token with the chain edited out of its claims, the signature of `token` kept.
fn forged(
    tokens: &dyn Tokens,
    token: String,
    grant: &Grant,
    now_ms: i64,
) -> Result<String, String> {
    let s = segments(&token);
    let forged = Grant {
        act_chain: vec![],
        ..grant.clone()
    };
    let f = segments(&tokens.mint(&forged, now_ms)?);
    Ok(format!("{}.{}.{}", s[0], f[1], s[2]))
}

/// The platform's tokens on the wire: the first `good` mints pass, each later one is forged.
/// `mints` counts them, so a test sees which requests carried one.
#[derive(Debug)]
struct Wire {
    inner: Box<dyn Tokens>,
    good: usize,
    mints: Arc<AtomicUsize>,
}

impl Tokens for Wire {
    fn verify(&self, token: &str, now_ms: i64) -> Result<VerifiedToken, String> {
        self.inner.verify(token, now_ms)
    }
    fn mint(&self, grant: &Grant, now_ms: i64) -> Result<String, String> {
        let t = self.inner.mint(grant, now_ms)?;
        if self.mints.fetch_add(1, Ordering::SeqCst) < self.good {
            return Ok(t);
        }
        forged(&*self.inner, t, grant, now_ms)
    }
}

/// Puts a [`Wire`] between the platform and the callees; the count of mints it sees.
fn wire(s: &mut Scenario, good: usize) -> Arc<AtomicUsize> {
    let mints = Arc::new(AtomicUsize::new(0));
    let inner = s.tokens.take().unwrap();
    s.tokens = Some(Box::new(Wire {
        inner,
        good,
        mints: mints.clone(),
    }));
    mints
}

/// payments-agent delegates to list-provider, which asks a question (input-required) once.
fn pausing(delegate: &str, steps: &str) -> Scenario {
    let yaml = scenario(&token(|_| {}), steps).replace(
        "{delegate: {to: list-provider, text: fetch}}",
        &format!("{{delegate: {{to: list-provider, text: fetch, {delegate}}}}}"),
    );
    let yaml = yaml.replace(
        "handler: [working, completed]}",
        "handler: [working, {input_required: which list?}, working, completed]}",
    );
    load(&yaml).unwrap()
}

fn last_message(w: &a2a_sim::engine::World, task: usize) -> Value {
    let v: Value = serde_json::from_str(&report_json(w)).unwrap();
    v["tasks"][task]["history"]
        .as_array()
        .and_then(|h| h.last())
        .map_or(Value::Null, |e| e["message"].clone())
}

const PAY: &str = "  - send: {caller: orchestrator, to: payments-agent, text: pay, as: pay}";

const PAY_AND_ANSWER: &str =
    "  - send: {caller: orchestrator, to: payments-agent, text: pay, as: pay}
  - reply: {caller: orchestrator, task: pay, text: the sanctions list}";

#[test]
fn a_scripted_reply_down_to_the_child_carries_a_minted_token() {
    let mut s = pausing("replies: [{text: the sanctions list}]", PAY);
    let mints = wire(&mut s, 2);
    let w = engine::run(&s);
    assert!(w.errors.is_empty(), "{:?}", w.errors);
    assert_eq!(states(&w), ["completed", "completed"]);
    assert_eq!(
        mints.load(Ordering::SeqCst),
        2,
        "the child's creation and the reply"
    );
}

#[test]
fn a_scripted_reply_with_a_tampered_token_is_refused_by_the_child() {
    // The creation's token is good; the reply's is forged.
    let mut s = pausing("replies: [{text: the sanctions list}]", PAY);
    wire(&mut s, 1);
    let w = engine::run(&s);
    assert_eq!(error_codes(&w), ["unauthenticated"]);
    assert_eq!(
        &*w.errors[0].detail,
        "`list-provider` refused the token of `payments-agent`'s reply: signature invalid"
    );
    assert_eq!(
        states(&w),
        ["failed", "canceled"],
        "the reply never reached the child"
    );
    assert_eq!(
        last_message(&w, 0),
        "delegation to `list-provider` refused: unauthenticated (signature invalid)"
    );
}

#[test]
fn a_forwarded_escalation_reply_carries_a_minted_token() {
    let mut s = pausing("on_pause: escalate", PAY_AND_ANSWER);
    let mints = wire(&mut s, 2);
    let w = engine::run(&s);
    assert!(w.errors.is_empty(), "{:?}", w.errors);
    assert_eq!(states(&w), ["completed", "completed"]);
    assert_eq!(
        mints.load(Ordering::SeqCst),
        2,
        "the child's creation and the forward"
    );
}

#[test]
fn a_forwarded_escalation_reply_with_a_tampered_token_is_refused_by_the_child() {
    let mut s = pausing("on_pause: escalate", PAY_AND_ANSWER);
    wire(&mut s, 1);
    let w = engine::run(&s);
    assert_eq!(error_codes(&w), ["unauthenticated"]);
    assert_eq!(
        &*w.errors[0].detail,
        "`list-provider` refused the token of `payments-agent`'s reply: signature invalid"
    );
    assert_eq!(states(&w), ["failed", "canceled"]);
    assert_eq!(
        last_message(&w, 0),
        "delegation to `list-provider` refused: unauthenticated (signature invalid)"
    );
}
