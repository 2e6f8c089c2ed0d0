//! `templates: true`: references in handler texts rendered in every place a text goes, braces kept
//! literal without the opt-in, unknown references as load errors, warnings where a result may be
//! absent, and the opt-in belonging to the file that defines the agent.

use std::path::Path;

use crate::common::binary::{a2a_sim, a2a_sim_in, scratch, write};

const TEMPLATES: &str = "scenarios/templates.yaml";

fn run_json(dir: &Path, file: &str) -> serde_json::Value {
    let r = a2a_sim_in(dir, &["run", "--format", "json", file], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

/// Every message text of every task, in order, and every artifact text.
fn texts(v: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    for t in v["tasks"].as_array().unwrap() {
        for m in t["messages"].as_array().unwrap() {
            out.push(m["text"].as_str().unwrap_or_default().to_string());
        }
        for a in t["artifacts"].as_array().unwrap() {
            out.push(a["text"].as_str().unwrap_or_default().to_string());
        }
    }
    out
}

#[test]
fn templates_render_every_reference_in_every_place() {
    let v = run_json(Path::new(env!("CARGO_MANIFEST_DIR")), TEMPLATES);
    let got = texts(&v);
    for want in [
        // a status message; input.data, a number as JSON
        "Screening PMT-771: 12500 EUR",
        // delegate text, then input.text in the child's status message
        "Screen the beneficiary Acme Trading FZE of PMT-771",
        // a scripted reply's text
        "Acme Trading FZE is a customer since 2019",
        // reply.text and reply.data
        "Noted: Acme Trading FZE is a customer since 2019 (since 2019)",
        // message: result text, a number, a list as compact JSON, a missing value as nothing
        "Screening said no match (score 0.12, lists [\"ofac\",\"eu\"])",
        // fan_out text, then input.text in each member's artifact
        "Book PMT-771: release",
        "FX for Book PMT-771: release",
        // artifact text with a fan-out's result: its completed members' texts, as `from` joins them
        "Released PMT-771; booked: FX for Book PMT-771: release\n\nLedger entry for Book PMT-771: release",
        // `{{{{` is a literal `{{`
        "PMT-771 released (template syntax: {{input.text}})",
    ] {
        assert!(got.iter().any(|t| t == want), "{want:?} not in {got:#?}");
    }
}

#[test]
fn without_the_opt_in_braces_stay_literal() {
    let text = std::fs::read_to_string(TEMPLATES).unwrap();
    let dir = scratch("ed-templates-off");
    write(&dir, "t.yaml", &text.replace("templates: true\n", ""));
    let got = texts(&run_json(&dir, "t.yaml"));
    assert!(
        got.iter().any(|t| t
            == "Screening {{input.data.payment}}: {{input.data.amount}} {{input.data.currency}}"),
        "{got:#?}"
    );
    assert!(
        got.iter().any(|t| t.contains("{{{{input.text}}")),
        "{got:#?}"
    );
}

#[test]
fn unknown_template_references_are_load_errors_at_the_text() {
    let text = std::fs::read_to_string(TEMPLATES).unwrap();
    let dir = scratch("ed-templates-bad");
    for (from, to, want) in [
        (
            "{{input.data.currency}}",
            "{{inptu.text}}",
            "t.yaml:22:18: unknown template reference `{{inptu.text}}`",
        ),
        (
            "{{input.data.currency}}",
            "{{input.txt}}",
            "t.yaml:22:18: unknown template reference `{{input.txt}}`",
        ),
        (
            "{{result.screen.text}}",
            "{{result.scren.text}}",
            "t.yaml:30:18: unknown result `scren` in template reference",
        ),
        // A delegation's own text cannot use its result: it is defined after the step.
        (
            "text: \"Screen the beneficiary {{input.data.beneficiary}}",
            "text: \"Screen {{result.screen.text}}",
            "t.yaml:25:17: unknown result `screen`",
        ),
        (
            "{{result.screen.data.score}}",
            "{{result.screen.data.a..b}}",
            "t.yaml:30:18: template reference `{{result.screen.data.a..b}}`: `a..b` has an empty segment",
        ),
        (
            "{{input.data.currency}}\"",
            "{{input.data.currency\"",
            "t.yaml:22:18: a template reference opened with `{{` is not closed",
        ),
    ] {
        assert!(text.contains(from), "{from}");
        write(&dir, "t.yaml", &text.replacen(from, to, 1));
        for cmd in ["check", "run"] {
            let r = a2a_sim_in(&dir, &[cmd, "t.yaml"], None);
            assert_eq!(r.status, 2, "{to}: {}", r.stderr);
            assert!(r.stderr.starts_with(want), "{to}: {}", r.stderr);
        }
    }
}

#[test]
fn check_warns_where_a_referenced_result_may_be_absent() {
    let dir = scratch("ed-templates-absent");
    let file = "\
templates: true
agents:
  - name: payments
    tenant: acme
    clearance: confidential
    skills: [{id: pay, tags: [payments]}]
    handler:
      - working
      - when: {input: {}, text: Pay}
        then:
          - delegate: {to: screener, text: Screen, as: screen}
          - message: \"screened: {{result.screen.text}}\"
        else:
          - message: \"not screened: {{result.screen.text}}\"
      - completed: \"Done: {{result.screen.text}}\"
  - name: screener
    tenant: acme
    clearance: confidential
    skills: [{id: screen, tags: [sanctions]}]
    handler: [working, completed]
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
steps:
  - send: {caller: orchestrator, to: payments, text: Hold, as: pay}
";
    write(&dir, "w.yaml", file);
    let r = a2a_sim_in(&dir, &["check", "w.yaml"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r.stderr);
    assert!(
        lines[0].starts_with("w.yaml:14:22: warning: handler step 5 renders `result.screen`"),
        "{}",
        r.stderr
    );
    assert!(
        lines[1].starts_with("w.yaml:15:9: warning: handler step 6"),
        "{}",
        r.stderr
    );
    // Rendered on the path where it is absent: empty.
    let got = texts(&run_json(&dir, "w.yaml"));
    assert!(got.iter().any(|t| t == "not screened: "), "{got:#?}");
    assert!(got.iter().any(|t| t == "Done: "), "{got:#?}");
    // Defined on every path before its use: no warning (the bundled example has none).
    let r = a2a_sim(&["check", "--deny", "warnings", TEMPLATES]);
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
}

#[test]
fn the_opt_in_belongs_to_the_file_that_defines_the_agent() {
    let dir = scratch("ed-templates-imports");
    let agent = |templates: &str| {
        format!(
            "{templates}agents:\n  - name: echo\n    tenant: acme\n    clearance: confidential\n    skills: [{{id: e, tags: [echo]}}]\n    handler: [working: \"got {{{{ input.text }}}} {{{{input.data./a~1b}}}} {{{{input.data.n}}}} {{{{input.data.t}}}}\", completed]\n"
        )
    };
    write(&dir, "plain.yaml", &agent(""));
    write(&dir, "templated.yaml", &agent("templates: true\n"));
    for (lib, root_opt_in, want) in [
        (
            "plain.yaml",
            "templates: true\n",
            "got {{ input.text }} {{input.data./a~1b}} {{input.data.n}} {{input.data.t}}",
        ),
        // Spaces inside the braces are ignored; a JSON Pointer path; null and true as JSON.
        ("templated.yaml", "", "got hi 7 null true"),
    ] {
        write(
            &dir,
            "s.yaml",
            &format!(
                "{root_opt_in}imports: [{lib}]\ncallers:\n  - {{id: c, tenant: acme, classification: internal}}\nsteps:\n  - send: {{caller: c, to: echo, text: hi, data: {{\"a/b\": 7, n: null, t: true}}}}\n"
            ),
        );
        let got = texts(&run_json(&dir, "s.yaml"));
        assert!(got.iter().any(|t| t == want), "{lib}: {got:#?}");
    }
}

#[test]
fn the_schema_describes_the_templates_opt_in() {
    let r = a2a_sim(&["schema"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let t = &v["properties"]["templates"];
    assert!(
        t["description"]
            .as_str()
            .unwrap()
            .contains("{{input.text}}"),
        "{t}"
    );
}
