//! The views of a run: `run --format mermaid` and `run --format html`. Every bundled scenario's
//! diagram and page are pinned in `tests/protocol-goldens/SCENARIO/` (`mermaid.mmd`,
//! `timeline.html`); the rules each view keeps are tested on their own below.
//!
//! After checking a deliberate change: `A2A_SIM_BLESS=1 cargo test --test integration views`.

use std::path::{Path, PathBuf};

use a2a_sim::engine::scenario::Scenario;
use a2a_sim::report::{html, mermaid};
use a2a_sim::scenario::Load;
use a2a_sim::{corpus, engine};

use crate::common::goldens::{bless_or_compare, blessing};
use crate::common::load_as;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The diagram and the page of a run of `s`.
fn views(s: &Scenario) -> (String, String) {
    let w = engine::run(s);
    let mut page = Vec::new();
    html::write(&w, &mut page).unwrap();
    (mermaid::render(&w), String::from_utf8(page).unwrap())
}

fn run_str(text: &str) -> (String, String) {
    views(&load_as("v.yaml", Path::new("."), text).unwrap())
}

fn bundled(name: &str) -> (String, String) {
    views(
        &Load::file(&root().join("scenarios").join(name))
            .scenario()
            .unwrap(),
    )
}

#[test]
fn views_of_the_bundled_scenarios_match_their_goldens() {
    let bless = blessing();
    let mut differ = Vec::new();
    for scenario in corpus::expand(&[root().join("scenarios")]).unwrap() {
        let stem = scenario.file_stem().unwrap().to_string_lossy().into_owned();
        let dir: PathBuf = root().join("tests/protocol-goldens").join(&stem);
        let s = Load::file(&scenario).scenario().unwrap();
        let w = engine::run(&s);
        let mut page = Vec::new();
        html::write(&w, &mut page).unwrap();
        let outputs = [
            ("mermaid.mmd", mermaid::render(&w)),
            ("timeline.html", String::from_utf8(page).unwrap()),
        ];
        for (name, actual) in outputs {
            // Deterministic: a second run renders the same bytes.
            let again = engine::run(&s);
            let second = if name == "mermaid.mmd" {
                mermaid::render(&again)
            } else {
                let mut p = Vec::new();
                html::write(&again, &mut p).unwrap();
                String::from_utf8(p).unwrap()
            };
            assert_eq!(actual, second, "{stem}/{name} is not deterministic");
            differ.extend(bless_or_compare(&dir.join(name), &actual, bless));
        }
    }
    assert!(
        differ.is_empty(),
        "views differ from (or lack) their goldens:\n{}\nrebless with A2A_SIM_BLESS=1 after checking",
        differ.join("\n")
    );
}

/// The lines of a diagram after its header (title and participants).
fn body(diagram: &str) -> Vec<&str> {
    diagram
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.starts_with("title ") && !l.starts_with("participant "))
        .collect()
}

fn position(lines: &[&str], needle: &str) -> usize {
    lines
        .iter()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with `{needle}` in\n{}", lines.join("\n")))
}

#[test]
fn mermaid_declares_participants_in_order_of_first_appearance() {
    let (d, _) = bundled("payment-decision.yaml");
    let participants: Vec<&str> = d
        .lines()
        .filter_map(|l| l.trim().strip_prefix("participant "))
        .collect();
    assert_eq!(
        participants,
        [
            "orchestrator as orchestrator",
            "payments_agent as payments-agent",
            "sanctions_screener as sanctions-screener"
        ]
    );
    assert!(d.starts_with("sequenceDiagram\n    title payment decision"));
}

#[test]
fn mermaid_draws_sends_delegations_replies_and_status_changes_in_tick_order() {
    let (d, _) = bundled("payment-decision.yaml");
    let lines = body(&d);
    let send = position(
        &lines,
        "orchestrator->>payments_agent: [t1] send task-1: Pay PMT-771: EUR 48,000",
    );
    let nested = position(
        &lines,
        "payments_agent->>sanctions_screener: [t3] delegate task-2",
    );
    let paused = position(
        &lines,
        "sanctions_screener-->>payments_agent: [t5] task-2 input-required",
    );
    let reply = position(
        &lines,
        "orchestrator->>payments_agent: reply task-1: Acme Trading FZE, Dubai, AE",
    );
    let resumed = position(&lines, "[t7] task-1 working");
    let done = position(
        &lines,
        "[t12] task-1 completed: Payment released after review",
    );
    assert!(
        send < nested && nested < paused && paused < reply && reply < resumed && resumed < done
    );
    // Each line's ticks never go back.
    let ticks: Vec<u64> = lines
        .iter()
        .filter_map(|l| l.split("[t").nth(1)?.split(']').next()?.parse().ok())
        .collect();
    assert!(ticks.windows(2).all(|w| w[0] <= w[1]), "{ticks:?}");
}

#[test]
fn mermaid_notes_the_branch_a_when_took_before_the_change_it_led_to() {
    let (d, _) = bundled("payment-decision.yaml");
    let lines = body(&d);
    let note = position(
        &lines,
        "Note over payments_agent: [t9] task-1 when screen.data.recommendation == \"clear\" (step 3): else",
    );
    let held = position(
        &lines,
        "[t10] task-1 input-required: Held for manual review",
    );
    assert!(note < held);
    // The operator's reply comes after the hold it answers and before the decision taken on it.
    let reply = position(&lines, "reply task-1: Reviewed: a different entity");
    assert!(held < reply, "{d}");
    let release = position(
        &lines,
        "when reply.data.decision == \"release\" (step 7): then",
    );
    assert!(reply < release);
}

#[test]
fn mermaid_draws_a_fan_out_as_a_par_block_with_a_branch_per_member() {
    let (d, _) = bundled("research-fan-out.yaml");
    let lines = body(&d);
    let par = position(&lines, "par fan-out of research-lead (join all), member 1");
    let and2 = position(&lines, "and fan-out of research-lead (join all), member 2");
    let and3 = position(&lines, "and fan-out of research-lead (join all), member 3");
    let end = lines[par..].iter().position(|l| *l == "end").unwrap() + par;
    assert!(par < and2 && and2 < and3 && and3 < end);
    assert!(
        lines[par..and2]
            .iter()
            .any(|l| l.contains("task-2 completed"))
    );
    assert!(
        lines[and2..and3]
            .iter()
            .any(|l| l.contains("task-3 canceled"))
    );
    assert!(lines[and3..end].iter().any(|l| l.contains("task-4 failed")));
    // A retried delegate is not a fan-out: its attempts follow one another.
    assert!(d.contains("retrying_lead->>media_analyst: [t31] delegate task-10 (attempt 2)"));
}

#[test]
fn mermaid_draws_denials_as_failed_arrows_naming_the_codes_and_pushes_to_the_host() {
    let (d, _) = bundled("admission-denials.yaml");
    assert!(d.contains(
        "rogue_agent-xsanctions_screener: stream denied: cycle, depth, tenant, classification, scope"
    ));
    let (d, _) = bundled("push-notifications.yaml");
    assert!(d.contains("participant hooks_acme_example as hooks.acme.example"));
    assert!(d.contains("sanctions_screener-)hooks_acme_example: [t7] push task-2 working"));
}

#[test]
fn mermaid_nested_denials_are_failed_arrows_from_the_delegating_agent() {
    let text = r#"
agents:
  - name: lead
    tenant: t
    clearance: public
    skills: [{id: s, tags: [x]}]
    handler:
      - working: go
      - delegate: {to: other, text: "sub", on_error: continue}
      - completed: done
  - name: other
    tenant: u
    clearance: public
    skills: [{id: s, tags: [x]}]
    handler: [completed]
callers: [{id: desk, tenant: t, classification: public}]
steps:
  - send: {caller: desk, to: lead, text: hi}
"#;
    let (d, _) = run_str(text);
    let lines = body(&d);
    let denied = position(&lines, "lead-xother: delegate denied: tenant");
    let working = position(&lines, "[t2] task-1 working");
    let done = position(&lines, "task-1 completed");
    assert!(working < denied && denied < done, "{d}");
}

#[test]
fn mermaid_labels_are_truncated_and_escaped() {
    let long = "a".repeat(60);
    let text = format!(
        r#"
agents:
  - name: "x;y"
    tenant: t
    clearance: public
    skills: [{{id: s, tags: [x]}}]
    handler: [working, {{completed: "50% done; #1 <b>\n next"}}]
callers: [{{id: "end", tenant: t, classification: public}}]
steps:
  - send: {{caller: "end", to: "x;y", text: "{long}"}}
"#
    );
    let (d, _) = run_str(&text);
    // Ids are plain words (never a keyword); names appear escaped after `as`.
    assert!(d.contains("participant end_ as end\n"), "{d}");
    assert!(d.contains("participant x_y as x#59;y\n"), "{d}");
    assert!(
        d.contains(&format!("send task-1: {}…\n", "a".repeat(40))),
        "{d}"
    );
    assert!(
        d.contains("completed: 50#37; done#59; #35;1 #lt;b#gt; next\n"),
        "{d}"
    );
    for l in d.lines() {
        assert!(
            !l.contains(';')
                || l.contains("#59;")
                || l.contains("#35;")
                || l.contains("#37;")
                || l.contains("#lt;")
                || l.contains("#gt;"),
            "{l}"
        );
    }
}

#[test]
fn html_is_self_contained_and_never_fetches_anything() {
    for name in [
        "payment-decision.yaml",
        "push-notifications.yaml",
        "research-fan-out.yaml",
    ] {
        let (_, page) = bundled(name);
        assert!(
            page.starts_with(
                "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"
            )
        );
        assert!(page.ends_with("</body>\n</html>\n"));
        for forbidden in [
            "<script", "src=", "<link", "<iframe", "<img", "url(http", "@import",
        ] {
            assert!(!page.contains(forbidden), "{name}: {forbidden}");
        }
        // Every link stays in the page.
        for href in page.split("href=\"").skip(1) {
            assert!(
                href.starts_with('#'),
                "{name}: {}",
                &href[..href.len().min(40)]
            );
        }
    }
}

#[test]
fn html_draws_a_lane_per_agent_in_order_of_first_appearance() {
    let (_, page) = bundled("payment-decision.yaml");
    let lanes: Vec<&str> = page
        .split("<text class=\"lane\"")
        .skip(1)
        .map(|s| s.split('>').nth(1).unwrap().split('<').next().unwrap())
        .collect();
    assert_eq!(lanes, ["payments-agent", "sanctions-screener"]);
    // An agent that only refused a delegation still gets a lane, for its denial.
    let (_, page) = bundled("admission-denials.yaml");
    assert!(page.contains(">globex-ledger</text>"));
}

#[test]
fn html_bars_are_coloured_by_state_over_ticks_and_carry_the_history() {
    let (_, page) = bundled("payment-decision.yaml");
    let bar = page.split("<a href=\"#task-2\">").nth(1).unwrap();
    let bar = &bar[..bar.find("</a>").unwrap()];
    assert!(bar.starts_with(
        "<title>task-2 on sanctions-screener (completed), caller payments-agent, parent task-1\nt3 submitted: Screen the beneficiary of this payment\nt4 working: Screening the beneficiary"
    ), "{bar}");
    // One segment per status entry, in the state's colour, from its tick to the next one's.
    let fills: Vec<&str> = bar.split("fill=\"").skip(1).map(|s| &s[..7]).collect();
    assert_eq!(
        fills,
        ["#94a3b8", "#3b82f6", "#f59e0b", "#3b82f6", "#16a34a"]
    );
    let widths: Vec<f64> = bar
        .split("width=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap().parse().unwrap())
        .collect();
    // ticks 3, 4, 5, 8, 9 (+1 for the terminal state): widths 1, 1, 3, 1, 1 ticks.
    let tick = widths[0];
    assert_eq!(widths, [tick, tick, 3.0 * tick, tick, tick]);
    // The task's tables are where the bar links to.
    assert!(page.contains("<section id=\"task-2\"><h3>task-2 on sanctions-screener"));
}

#[test]
fn html_marks_links_decisions_pushes_and_denials() {
    let (_, page) = bundled("payment-decision.yaml");
    // Two children, two links; five decisions, five diamonds with the branch taken.
    assert_eq!(page.matches("marker-end=\"url(#arrow)\"").count(), 2);
    assert_eq!(page.matches("l5,5l-5,5l-5,-5z").count(), 5);
    assert!(page.contains("<title>t9 task-1 when screen.data.recommendation == &quot;clear&quot; (handler step 3) → else</title>"));
    let (_, page) = bundled("push-notifications.yaml");
    assert_eq!(page.matches(" push of task-").count(), 8);
    assert!(
        page.contains("push of task-2 (working) to https://hooks.acme.example:8443/a2a</title>"),
        "{}",
        &page[page.find("push of").unwrap()..][..120]
    );
    let (_, page) = bundled("admission-denials.yaml");
    let crosses = page.matches(">✕<title>t").count();
    assert_eq!(crosses, 8);
    assert!(page.contains(
        "rogue-agent → sanctions-screener denied: cycle, depth, tenant, classification, scope"
    ));
}

#[test]
fn html_escapes_every_text_it_shows() {
    let text = r#"
agents:
  - name: "a<b>"
    tenant: t
    clearance: public
    skills: [{id: s, tags: [x]}]
    handler: [working, {completed: "<script>alert('x')</script> & \"q\""}]
callers: [{id: "c&d", tenant: t, classification: public}]
steps:
  - send: {caller: "c&d", to: "a<b>", text: "<img src=x onerror=alert(1)>"}
"#;
    let (_, page) = run_str(text);
    assert!(!page.contains("<script"));
    assert!(!page.contains("<img"));
    assert!(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"));
    assert!(page.contains(">a&lt;b&gt;</text>"));
    assert!(page.contains("caller c&amp;d"));
}

#[test]
fn html_an_open_task_runs_to_the_end_and_rows_never_overlap() {
    // Three sends to one agent: the first stays open (input-required), so the others each take
    // a row of their own... the second one ends before the third starts, so they share one.
    let text = r#"
agents:
  - name: a
    tenant: t
    clearance: public
    skills: [{id: s, tags: [x]}]
    handler: [working, input_required]
  - name: b
    tenant: t
    clearance: public
    skills: [{id: s, tags: [x]}]
    handler: [working, completed]
callers: [{id: c, tenant: t, classification: public}]
steps:
  - send: {caller: c, to: a, text: one}
  - send: {caller: c, to: b, text: two}
  - send: {caller: c, to: b, text: three}
  - send: {caller: c, to: a, text: four}
"#;
    let (_, page) = run_str(text);
    let y_of = |task: &str| -> String {
        let bar = page.split(&format!("<a href=\"#{task}\">")).nth(1).unwrap();
        bar.split("y=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .to_string()
    };
    // task-1 (open) and task-4 on a: two rows; task-2 and task-3 on b: one row.
    assert_ne!(y_of("task-1"), y_of("task-4"));
    assert_eq!(y_of("task-2"), y_of("task-3"));
}

#[test]
fn refused_attempts_are_drawn_where_they_happened_and_marks_never_share_a_spot() {
    // screener-outage: the payments agent's delegation is refused three times by the outage
    // before its fourth attempt gets through.
    let (diagram, page) = bundled("screener-outage.yaml");
    for (tick, attempt) in [(2, 1), (3, 2), (5, 3)] {
        let line = format!("[t{tick}] delegate refused (attempt {attempt}): unavailable");
        assert!(diagram.contains(&line), "{line} not in\n{diagram}");
        let title = format!(
            "t{tick} payments-agent (task-1) → sanctions-screener refused (attempt {attempt}): unavailable"
        );
        assert!(page.contains(&title), "{title}");
    }
    assert!(page.contains("⊘ refused</span>"));
    // admission-denials: every mark of a lane's strip at its own x, at least a mark apart.
    let (_, page) = bundled("admission-denials.yaml");
    let mut spots: Vec<(String, f64)> = Vec::new();
    for piece in page.split("<text class=\"mark refusal\" x=\"").skip(1) {
        let x: f64 = piece[..piece.find('"').unwrap()].parse().unwrap();
        let y = &piece[piece.find("y=\"").unwrap() + 3..];
        let y = y[..y.find('"').unwrap()].to_string();
        spots.push((y, x));
    }
    assert_eq!(spots.len(), 8);
    for (i, a) in spots.iter().enumerate() {
        for b in &spots[i + 1..] {
            assert!(
                a.0 != b.0 || (a.1 - b.1).abs() >= 12.0,
                "{a:?} and {b:?} overlap"
            );
        }
    }
}

#[test]
fn a_reply_that_reaches_a_child_is_drawn_from_the_task_above_it_at_its_tick() {
    // payment-decision: the orchestrator's reply to the escalated payment is forwarded down to
    // the screener, which resumes at t20; travel-booking: the planner's scripted reply to the
    // hotel agent's question.
    let (diagram, _) = bundled("payment-decision.yaml");
    assert!(
        diagram.contains(
            "payments_agent->>sanctions_screener: [t20] reply task-4: Nordwind Logistik GmbH, Hamburg, DE"
        ),
        "{diagram}"
    );
    let (diagram, _) = bundled("travel-booking.yaml");
    assert!(
        diagram.contains("trip_planner->>hotel_agent: [t11] reply task-3: The double room, please"),
        "{diagram}"
    );
}
