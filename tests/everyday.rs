//! Everyday use (issue 15): imports and libraries, `--set`, CLI conventions, CI annotations, and
//! the rough edges a new user hit. One test (or more) per numbered item.

use std::path::Path;

use crate::common::binary::{a2a_sim, a2a_sim_in, scratch};

const AGENTS_LIB: &str = "\
policy: {max_depth: 4}
classification_levels: [public, internal, confidential, restricted]
agents:
  - name: screener
    tenant: acme
    clearance: confidential
    skills: [{id: screen, tags: [sanctions]}]
    handler: [working, completed]
";

const CALLERS_LIB: &str = "\
callers:
  - {id: orchestrator, tenant: acme, classification: internal}
";

const USES_LIBS: &str = "\
imports: [lib/agents.yaml, lib/callers.yaml]
steps:
  - send: {caller: orchestrator, to: screener, text: hi, as: a}
";

fn write(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn with_libs(name: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    write(&dir, "lib/agents.yaml", AGENTS_LIB);
    write(&dir, "lib/callers.yaml", CALLERS_LIB);
    write(&dir, "s.yaml", USES_LIBS);
    dir
}

// 1. imports and libraries

#[test]
fn item1_imports_bring_agents_callers_and_policy() {
    let dir = with_libs("ed-imports");
    let r = a2a_sim_in(&dir, &["run", "--format", "json", "s.yaml"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["tasks"][0]["agent"], "screener");
    assert_eq!(v["tasks"][0]["state"], "completed");
}

#[test]
fn item1_a_duplicate_across_files_names_both() {
    let dir = with_libs("ed-imports-dup");
    write(
        &dir,
        "s.yaml",
        &format!(
            "{USES_LIBS}agents:\n  - {{name: screener, tenant: acme, clearance: public, skills: [{{id: s, tags: [x]}}]}}\n"
        ),
    );
    let r = a2a_sim_in(&dir, &["check", "s.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.starts_with("s.yaml:5:")
            && r.stderr.contains("duplicate agent name `screener`")
            && r.stderr.contains("lib/agents.yaml"),
        "{}",
        r.stderr
    );
}

#[test]
fn item1_policy_keys_set_differently_are_an_error() {
    let dir = with_libs("ed-imports-policy");
    write(
        &dir,
        "s.yaml",
        &format!("policy: {{max_depth: 2}}\n{USES_LIBS}"),
    );
    let r = a2a_sim_in(&dir, &["check", "s.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("s.yaml:1:")
            && r.stderr.contains("policy.max_depth")
            && r.stderr.contains("lib/agents.yaml"),
        "{}",
        r.stderr
    );
    // Set alike: fine.
    write(
        &dir,
        "s.yaml",
        &format!("policy: {{max_depth: 4}}\n{USES_LIBS}"),
    );
    assert_eq!(a2a_sim_in(&dir, &["check", "s.yaml"], None).status, 0);
}

#[test]
fn item1_errors_in_an_imported_file_are_located_in_it_and_cycles_refused() {
    let dir = with_libs("ed-imports-err");
    write(
        &dir,
        "lib/callers.yaml",
        "callers:\n  - {id: orchestrator, tenant: acme, classification: secret}\n",
    );
    let r = a2a_sim_in(&dir, &["check", "s.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(r.stderr.starts_with("lib/callers.yaml:2:"), "{}", r.stderr);
    assert!(
        r.stderr.contains("unknown classification level `secret`"),
        "{}",
        r.stderr
    );

    write(
        &dir,
        "lib/callers.yaml",
        &format!("imports: [../s.yaml]\n{CALLERS_LIB}"),
    );
    let r = a2a_sim_in(&dir, &["check", "s.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("lib/callers.yaml:1:") && r.stderr.contains("import cycle"),
        "{}",
        r.stderr
    );
}

#[test]
fn item1_a_library_is_checked_skipped_by_test_and_refused_by_run() {
    let dir = with_libs("ed-library");
    assert_eq!(
        a2a_sim_in(&dir, &["check", "lib/agents.yaml"], None).status,
        0
    );
    let r = a2a_sim_in(&dir, &["run", "lib/agents.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("is a library"), "{}", r.stderr);
    let r = a2a_sim_in(&dir, &["test", "--bless", "."], None);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("s.yaml") && !r.stdout.contains("agents.yaml"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.ends_with("1 passed, 0 failed, 0 errors\n"),
        "{}",
        r.stdout
    );
    // A directory walk of `run` skips libraries too.
    let r = a2a_sim_in(&dir, &["run", "."], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
}

#[test]
fn item1_imported_items_come_first_in_import_order_and_paths_are_relative_to_their_file() {
    let dir = scratch("ed-imports-order");
    let agent = |name: &str| {
        format!(
            "  - {{name: {name}, tenant: acme, clearance: public, skills: [{{id: {name}, tags: [x]}}], handler: [working, completed]}}\n"
        )
    };
    // lib/one.yaml imports nested/zero.yaml (relative to lib/), whose agent's card is relative
    // to lib/nested/.
    let card = std::fs::read_to_string("scenarios/cards/kyc-registry.json").unwrap();
    write(&dir, "lib/nested/cards/kyc.json", &card);
    write(
        &dir,
        "lib/nested/zero.yaml",
        "agents:\n  - {card: cards/kyc.json, tenant: acme, clearance: public, handler: [working, completed]}\n",
    );
    write(
        &dir,
        "lib/one.yaml",
        &format!("imports: [nested/zero.yaml]\nagents:\n{}", agent("one")),
    );
    write(&dir, "lib/two.yaml", &format!("agents:\n{}", agent("two")));
    write(
        &dir,
        "s.yaml",
        &format!(
            "imports: [lib/one.yaml, lib/two.yaml]\nagents:\n{}{CALLERS_LIB}steps:\n  - send: {{caller: orchestrator, to: kyc-registry, text: hi}}\n",
            agent("root")
        ),
    );
    let r = a2a_sim_in(&dir, &["card", "--list", "s.yaml"], None);
    assert_eq!(
        (r.status, r.stdout.as_str()),
        (
            0,
            "kyc-registry\tlib/nested/cards/kyc.json\none\ntwo\nroot\n"
        ),
        "{}",
        r.stderr
    );
}

// 2. --set

#[test]
fn item2_set_overrides_a_scalar_and_is_shown_in_the_report() {
    let dir = with_libs("ed-set");
    let r = a2a_sim_in(
        &dir,
        &[
            "run",
            "--format",
            "json",
            "--set",
            "callers.orchestrator.classification=restricted",
            "s.yaml",
        ],
        None,
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys[1], "overrides");
    assert_eq!(
        v["overrides"][0],
        "callers.orchestrator.classification=restricted"
    );
    assert_eq!(v["denials"][0]["codes"][0], "classification");
    let table = a2a_sim_in(
        &dir,
        &["run", "--set", "policy.max_depth=1", "s.yaml"],
        None,
    );
    assert!(
        table.stdout.lines().nth(1) == Some("overrides: policy.max_depth=1"),
        "{}",
        table.stdout
    );
    // Steps by their number, the operation implied.
    let r = a2a_sim_in(
        &dir,
        &[
            "run",
            "--format",
            "json",
            "--set",
            "steps.1.text=hello",
            "s.yaml",
        ],
        None,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["tasks"][0]["history"][0]["message"], "hello",
        "{}",
        r.stdout
    );
}

#[test]
fn item2_set_problems_are_located_at_the_override() {
    let dir = with_libs("ed-set-bad");
    for (set, want) in [
        (
            "policy.max_depth=0",
            "--set policy.max_depth=0: max_depth must be at least 1",
        ),
        (
            "agents.nobody.tenant=x",
            "--set agents.nobody.tenant=x: no agent `nobody`",
        ),
        (
            "policy.max_dept=3",
            "--set policy.max_dept=3: unknown field `max_dept`",
        ),
    ] {
        let r = a2a_sim_in(&dir, &["check", "--set", set, "s.yaml"], None);
        assert_eq!(r.status, 2, "{set}");
        assert!(r.stderr.starts_with(want), "{set}: {}", r.stderr);
    }
    let r = a2a_sim_in(&dir, &["test", "--set", "policy.max_depth=3", "."], None);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("`test --set` is refused"), "{}", r.stderr);
}

#[test]
fn item2_explore_takes_set_with_the_same_semantics_and_located_errors() {
    let dir = with_libs("ed-set-explore");
    write(
        &dir,
        "s.yaml",
        &format!("{USES_LIBS}expect:\n  - {{task: a, always: true, state: completed}}\n"),
    );
    let args = ["explore", "s.yaml", "--runs", "3", "--faults", "slow"];
    let plain = a2a_sim_in(&dir, &args, None);
    assert_eq!(
        (plain.status, plain.stdout.as_str()),
        (0, "3 runs, 0 violations\n"),
        "{}",
        plain.stderr
    );
    // The override reaches every run: the caller now lacks the clearance, so the claim breaks.
    let mut set = args.to_vec();
    set.extend(["--set", "callers.orchestrator.classification=restricted"]);
    let r = a2a_sim_in(&dir, &set, None);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.ends_with("3 runs, 3 violations\n"), "{}", r.stdout);
    assert!(r.stdout.contains("outcome denied"), "{}", r.stdout);
    let mut bad = args.to_vec();
    bad.extend(["--set", "policy.max_depth=0"]);
    let r = a2a_sim_in(&dir, &bad, None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr
            .starts_with("--set policy.max_depth=0: max_depth must be at least 1"),
        "{}",
        r.stderr
    );
    let r = a2a_sim_in(&dir, &["explore", "s.yaml", "--set", "nokey"], None);
    assert_eq!(r.status, 2, "{}", r.stderr);
}

// 3. templates in handler texts

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
fn item3_templates_render_every_reference_in_every_place() {
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
fn item3_without_the_opt_in_braces_stay_literal() {
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
fn item3_unknown_references_are_load_errors_at_the_text() {
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
fn item3_check_warns_where_a_referenced_result_may_be_absent() {
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
fn item3_the_opt_in_belongs_to_the_file_that_defines_the_agent() {
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
fn item3_the_schema_has_the_opt_in() {
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

// 4. CLI conventions

#[test]
fn item4_completions_and_man() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let r = a2a_sim(&["completions", shell]);
        assert_eq!(r.status, 0, "{shell}");
        assert!(r.stdout.contains("a2a-sim"), "{shell}");
    }
    let man = a2a_sim(&["man"]);
    assert_eq!(man.status, 0);
    assert!(man.stdout.contains(".TH a2a-sim"), "{}", man.stdout);
}

#[test]
fn item4_dash_reads_standard_input() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/discovery.yaml"),
    )
    .unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let r = a2a_sim_in(root, &["run", "--format", "json", "-"], Some(&text));
    assert_eq!(r.status, 0, "{}", r.stderr);
    let from_file = a2a_sim(&["run", "--format", "json", "scenarios/discovery.yaml"]);
    assert_eq!(
        r.stdout,
        from_file
            .stdout
            .replace("\"scenario\": \"discovery\"", "\"scenario\": \"stdin\"")
    );
    let r = a2a_sim_in(
        root,
        &["check", "-"],
        Some("agents: []\ncallers: []\nsteps:\n  - get: {caller: nobody, task_id: t}\n"),
    );
    assert_eq!(r.status, 2);
    assert!(r.stderr.starts_with("<stdin>:4:"), "{}", r.stderr);
}

#[test]
fn item4_standard_input_resolves_relative_paths_from_the_current_directory() {
    let dir = with_libs("ed-stdin-rel");
    let r = a2a_sim_in(&dir, &["run", "--format", "json", "-"], Some(USES_LIBS));
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["scenario"], "stdin");
    assert_eq!(v["tasks"][0]["agent"], "screener");
    // An error inside an import read from standard input is located in the imported file.
    write(
        &dir,
        "lib/callers.yaml",
        "callers:\n  - {id: orchestrator, tenant: acme, classification: secret}\n",
    );
    let r = a2a_sim_in(&dir, &["check", "-"], Some(USES_LIBS));
    assert_eq!(r.status, 2);
    assert!(r.stderr.starts_with("lib/callers.yaml:2:"), "{}", r.stderr);
}

#[test]
fn item4_jobs_zero_is_a_usage_error_and_summaries_are_plural_aware() {
    for cmd in ["run", "check", "test"] {
        let r = a2a_sim(&[cmd, "--jobs", "0", "scenarios/discovery.yaml"]);
        assert_eq!(r.status, 2, "{cmd}");
        assert!(r.stderr.contains("--jobs"), "{cmd}: {}", r.stderr);
    }
    let dir = with_libs("ed-plural");
    let r = a2a_sim_in(&dir, &["run", "s.yaml"], None);
    assert!(
        r.stdout
            .contains("1 step, 1 task, 0 denials, 0 pushes, 0 errors"),
        "{}",
        r.stdout
    );
    write(
        &dir,
        "one.yaml",
        &format!("{USES_LIBS}  - get: {{caller: orchestrator, task_id: task-9}}\n"),
    );
    let r = a2a_sim_in(&dir, &["run", "one.yaml"], None);
    assert!(
        r.stdout
            .contains("2 steps, 1 task, 0 denials, 0 pushes, 1 error\n"),
        "{}",
        r.stdout
    );
}

// 5. --error-format github

#[test]
fn item5_github_annotations_for_check_and_test() {
    let dir = with_libs("ed-github");
    write(
        &dir,
        "bad.yaml",
        "agents: []\ncallers: []\nsteps:\n  - get: {caller: nobody, task_id: t}\n",
    );
    let r = a2a_sim_in(
        &dir,
        &["check", "--error-format", "github", "bad.yaml"],
        None,
    );
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.starts_with("::error file=bad.yaml,line=4,col="),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("::unknown caller `nobody`"),
        "{}",
        r.stderr
    );
    // A warning is `::warning` (a template's result that may be absent on some path).
    write(
        &dir,
        "warn.yaml",
        &format!(
            "templates: true\n{}{CALLERS_LIB}",
            AGENTS_LIB.replace(
                "handler: [working, completed]",
                "handler:\n      - when: {input: {}, text: x}\n        then: [delegate: {to: screener, text: t, as: r}]\n      - completed: \"{{{{result.r.text}}}}\""
            )
        ),
    );
    let r = a2a_sim_in(
        &dir,
        &["check", "--error-format", "github", "warn.yaml"],
        None,
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with("::warning file=warn.yaml,line=12,col="),
        "{}",
        r.stderr
    );

    assert_eq!(
        a2a_sim_in(&dir, &["test", "--bless", "s.yaml"], None).status,
        0
    );
    write(
        &dir,
        "s.yaml",
        &USES_LIBS.replace("text: hi", "text: changed"),
    );
    let r = a2a_sim_in(&dir, &["test", "--error-format", "github", "s.yaml"], None);
    assert_eq!(r.status, 1);
    let golden = std::fs::read_to_string(dir.join("s.golden.json")).unwrap();
    let line = golden.lines().position(|l| l.contains("\"hi\"")).unwrap() + 1;
    assert!(
        r.stdout
            .contains(&format!("::error file=s.golden.json,line={line},col=1::")),
        "{}",
        r.stdout
    );
}

// 6. test with no scenarios, partitions keeping none

#[test]
fn item6_no_scenarios_exits_2_and_an_empty_partition_0() {
    let dir = scratch("ed-none");
    let r = a2a_sim_in(&dir, &["test", "."], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("no scenarios found under ."),
        "{}",
        r.stderr
    );
    // With no PATH, `test` searches `scenarios` (the README says so).
    std::fs::create_dir_all(dir.join("scenarios")).unwrap();
    let r = a2a_sim_in(&dir, &["test"], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("no scenarios found under scenarios"),
        "{}",
        r.stderr
    );
    let dir = with_libs("ed-partition");
    a2a_sim_in(&dir, &["test", "--bless", "."], None);
    let kept: Vec<i32> = (1..=3)
        .map(|m| {
            a2a_sim_in(
                &dir,
                &["test", "--partition", &format!("slice:{m}/3"), "."],
                None,
            )
            .status
        })
        .collect();
    assert_eq!(kept, [0, 0, 0]);
    let r = a2a_sim_in(&dir, &["test", "--partition", "slice:2/3", "."], None);
    assert!(
        r.stdout
            .ends_with("0 passed, 0 failed, 0 errors, 1 skipped\n"),
        "{}",
        r.stdout
    );
}

// 7. JUnit message and errors counted

#[test]
fn item7_junit_message_is_the_first_differing_line_and_errors_are_counted() {
    let dir = with_libs("ed-junit");
    assert_eq!(
        a2a_sim_in(&dir, &["test", "--bless", "s.yaml"], None).status,
        0
    );
    write(
        &dir,
        "s.yaml",
        &USES_LIBS.replace("text: hi", "text: changed"),
    );
    write(&dir, "broken.yaml", "agents: [");
    let r = a2a_sim_in(&dir, &["test", "--junit", "j.xml", "."], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stdout.ends_with("0 passed, 1 failed, 1 error\n"),
        "{}",
        r.stdout
    );
    let xml = std::fs::read_to_string(dir.join("j.xml")).unwrap();
    assert!(xml.contains("<failure message=\"golden line "), "{xml}");
    assert!(
        xml.contains("expected `&quot;message&quot;: &quot;hi&quot;"),
        "{xml}"
    );
    // The body holds the whole diff: the actual line too.
    assert!(xml.contains("&quot;changed&quot;"), "{xml}");
    assert!(xml.contains("<error message="), "{xml}");
}

// 8. check --help matches the README

#[test]
fn item8_check_help_matches_the_readme() {
    let help = a2a_sim(&["check", "--help"]).stdout;
    assert!(
        help.contains(r#"{"severity", "file", "line", "column", "message"}"#),
        "{help}"
    );
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.starts_with("| `a2a-sim check "))
        .unwrap();
    for flag in help
        .split_whitespace()
        .filter(|w| w.starts_with("--") && *w != "--help")
    {
        assert!(row.contains(flag), "README's check row lacks {flag}: {row}");
    }
    for value in ["human", "json", "github"] {
        assert!(row.contains(value), "{value}");
    }
}

// 10. schema enums

#[test]
fn item10_the_schema_enumerates_states_and_codes() {
    let schema: serde_json::Value = serde_json::from_str(&a2a_sim(&["schema"]).stdout).unwrap();
    let expect = &schema["definitions"]["ExpectFile"]["properties"];
    let states = &expect["state"]["anyOf"][0]["enum"];
    assert!(
        states.as_array().unwrap().contains(&"completed".into()),
        "{states}"
    );
    assert!(!states.as_array().unwrap().contains(&"complete".into()));
    assert!(
        expect["codes"]["items"]["enum"]
            .as_array()
            .unwrap()
            .contains(&"tenant".into())
    );
    assert!(
        expect["errors"]["anyOf"][1]["items"]["enum"]
            .as_array()
            .unwrap()
            .contains(&"streaming_not_supported".into())
    );
    let cond =
        &schema["definitions"]["CondFile"]["properties"]["state"]["anyOf"][1]["items"]["enum"];
    assert!(
        cond.as_array().unwrap().contains(&"failed".into()),
        "{cond}"
    );
}

// 11. convert arrays and --agent

#[test]
fn item11_convert_takes_what_run_prints_and_names_a_foreign_agent() {
    let tasks = a2a_sim(&["run", "--format", "a2a", "scenarios/traced-delegation.yaml"]).stdout;
    let r = a2a_sim_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["convert", "--from", "a2a", "--to", "acp"],
        Some(&tasks),
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let runs: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let n = serde_json::from_str::<serde_json::Value>(&tasks)
        .unwrap()
        .as_array()
        .unwrap()
        .len();
    assert_eq!(runs.as_array().unwrap().len(), n);
    let foreign = r#"{"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}"#;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let r = a2a_sim_in(
        root,
        &["convert", "--from", "a2a", "--to", "acp"],
        Some(foreign),
    );
    assert_eq!(r.status, 2);
    let r = a2a_sim_in(
        root,
        &[
            "convert", "--from", "a2a", "--to", "acp", "--agent", "screener",
        ],
        Some(foreign),
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("\"agent_name\": \"screener\""),
        "{}",
        r.stdout
    );
}

// 12. ACP error and await_request

#[test]
fn item12_acp_carries_error_and_await_request_and_they_round_trip() {
    let dir = scratch("ed-acp");
    write(&dir, "s.yaml", "\
agents:
  - {name: failer, tenant: t, clearance: public, skills: [{id: f, tags: [x]}], handler: [working, {failed: list unavailable}]}
  - {name: asker, tenant: t, clearance: public, skills: [{id: a, tags: [y]}], handler: [working, {input_required: Which list?}, completed]}
callers:
  - {id: c, tenant: t, classification: public}
steps:
  - send: {caller: c, to: failer, text: go}
  - send: {caller: c, to: asker, text: go}
");
    let r = a2a_sim_in(&dir, &["run", "--format", "acp", "s.yaml"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let runs: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        runs[0]["error"],
        serde_json::json!({"code": "server_error", "message": "list unavailable"})
    );
    assert_eq!(runs[0]["await_request"], serde_json::Value::Null);
    assert_eq!(
        runs[1]["await_request"]["message"]["parts"][0]["content"],
        "Which list?"
    );
    assert_eq!(runs[1]["error"], serde_json::Value::Null);
    for (run, want) in [(&runs[0], "list unavailable"), (&runs[1], "Which list?")] {
        let back = a2a_sim_in(
            &dir,
            &["convert", "--from", "acp", "--to", "internal"],
            Some(&run.to_string()),
        );
        let v: serde_json::Value = serde_json::from_str(&back.stdout).unwrap();
        assert_eq!(v["status_message"], want, "{}", back.stdout);
        let a2a = a2a_sim_in(
            &dir,
            &["convert", "--from", "acp", "--to", "a2a"],
            Some(&run.to_string()),
        );
        let again = a2a_sim_in(
            &dir,
            &["convert", "--from", "a2a", "--to", "acp"],
            Some(&a2a.stdout),
        );
        let again: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
        assert_eq!(again["error"], run["error"]);
        assert_eq!(again["await_request"], run["await_request"]);
    }
}

// 13. a2a-stream --jsonrpc

#[test]
fn item13_jsonrpc_envelopes_with_request_ids() {
    let bare = a2a_sim(&[
        "run",
        "--format",
        "a2a-stream",
        "scenarios/nested-delegation.yaml",
    ]);
    for v in ["1.0", "0.3"] {
        let r = a2a_sim(&[
            "run",
            "--format",
            "a2a-stream",
            "--jsonrpc",
            "--a2a-version",
            v,
            "scenarios/nested-delegation.yaml",
        ]);
        assert_eq!(r.status, 0, "{}", r.stderr);
        let bare_v = a2a_sim(&[
            "run",
            "--format",
            "a2a-stream",
            "--a2a-version",
            v,
            "scenarios/nested-delegation.yaml",
        ]);
        let mut ids = std::collections::BTreeSet::new();
        for (line, bare_line) in r.stdout.lines().zip(bare_v.stdout.lines()) {
            let e: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(e["jsonrpc"], "2.0");
            assert_eq!(
                e["result"],
                serde_json::from_str::<serde_json::Value>(bare_line).unwrap()
            );
            ids.insert(e["id"].as_str().unwrap().to_string());
        }
        assert!(ids.contains("req-1") && ids.contains("req-2"), "{ids:?}");
    }
    assert!(!bare.stdout.contains("jsonrpc"));
    let r = a2a_sim(&[
        "run",
        "--format",
        "json",
        "--jsonrpc",
        "scenarios/nested-delegation.yaml",
    ]);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("--jsonrpc"), "{}", r.stderr);
}

// 14. streaming_not_supported

#[test]
fn item14_a_stream_to_a_non_streaming_agent_is_refused() {
    let v = crate::common::report_value("\
agents:
  - {name: plain, tenant: t, clearance: public, capabilities: {streaming: false}, skills: [{id: p, tags: [x]}], handler: [working, completed]}
callers:
  - {id: c, tenant: t, classification: public}
  - {id: other, tenant: elsewhere, classification: public}
steps:
  - stream: {caller: c, to: plain, text: go}
  - send: {caller: c, to: plain, text: go}
  - stream: {caller: other, to: plain, text: go}
");
    assert_eq!(v["steps"][0]["result"], serde_json::json!({}));
    assert_eq!(v["errors"][0]["code"], "streaming_not_supported");
    assert_eq!(v["errors"][0]["step"], 1);
    assert_eq!(
        v["tasks"].as_array().unwrap().len(),
        1,
        "send is unaffected, no ids drawn"
    );
    assert_eq!(v["tasks"][0]["id"], "task-1");
    // Before admission: the other tenant gets the capability refusal, not a denial.
    assert_eq!(v["errors"][1]["code"], "streaming_not_supported");
    assert_eq!(v["denials"], serde_json::json!([]));
}

// 15. README

#[test]
fn item15_the_readme_explains_what_a_new_user_asked() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    assert!(!readme.contains("deep dive"));
    assert!(readme.contains("](#checking-files-and-editor-support)"));
    assert!(readme.contains("### Checking files and editor support"));
    assert!(readme.contains("syntax showcase"));
    assert!(
        readme.contains("### The task lifecycle")
            && readme.contains("| input-required | working, canceled, failed |")
    );
    assert!(
        readme.contains("best single skill's")
            && readme.contains("not** filtered by scopes or depth")
    );
    assert!(readme.contains("which includes the caller"));
    for key in [
        "`imports`",
        "--set KEY=VALUE",
        "completions",
        "a2a-sim man",
        "--jsonrpc",
        "--agent NAME",
        "streaming_not_supported",
        "--error-format github",
        "status_message",
        "no scenarios found under",
        "PATH defaults to `scenarios`",
        "templates: true",
        "`a2a-sim explore FILE... [--runs N] [--seed S] [--faults KINDS] [--set KEY=VALUE]...",
    ] {
        assert!(readme.contains(key), "README lacks {key}");
    }
}

// 18. mutations of the bundled scenarios

/// A small fixed-seed generator (xorshift64*), so every CI run tries the same mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The values under a `token` key, by line: what must never be printed.
fn token_values(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split(" #").next().unwrap_or(line);
        if code.trim_start().starts_with('#') {
            continue;
        }
        if let Some(at) = code.find("token: ") {
            let v: String = code[at + 7..]
                .trim_start_matches(['"', '\''])
                .chars()
                .take_while(|c| !matches!(c, ',' | '}' | '"' | '\'' | ' '))
                .collect();
            if v.len() >= 4 && v != "null" {
                out.push((line.to_string(), v));
            }
        }
    }
    out
}

fn mutate(text: &[u8], rng: &mut Rng) -> Vec<u8> {
    let s = String::from_utf8_lossy(text).into_owned();
    let mut lines: Vec<String> = s.lines().map(str::to_string).collect();
    let n = lines.len();
    let i = rng.below(n);
    let j = rng.below(n);
    match rng.below(12) {
        0 => {
            lines.remove(i);
        }
        1 => lines.swap(i, j),
        2 => lines[i] = format!("  {}", lines[i]),
        3 => lines[i] = lines[i].trim_start().to_string(),
        4 => lines[i] = format!("\t{}", lines[i]),
        5 => {
            // An anchor on a value, an alias to it elsewhere.
            if let Some(at) = lines[i].find(": ") {
                lines[i].insert_str(at + 2, "&m ");
                if let Some(at) = lines[j].find(": ") {
                    let key = lines[j][..at + 2].to_string();
                    lines[j] = format!("{key}*m");
                }
            }
        }
        6 => {
            if let Some(at) = lines[i].find(": ") {
                let big = "x".repeat(100_000 + rng.below(1000));
                lines[i] = format!("{}{big}", &lines[i][..at + 2]);
            }
        }
        7 => {
            let odd = [
                "~",
                ".nan",
                "0x1F",
                "!!binary aGk=",
                "\"\\u0000\"",
                "-.inf",
                "1e999",
                "[",
                "{",
                "*nope",
                "'",
                "99999999999999999999999",
            ];
            if let Some(at) = lines[i].find(": ") {
                lines[i] = format!("{}{}", &lines[i][..at + 2], odd[rng.below(odd.len())]);
            }
        }
        8 => return [b"\xEF\xBB\xBF".as_slice(), text].concat(),
        9 => return s.replace('\n', "\r\n").into_bytes(),
        10 => {
            let mut b = text.to_vec();
            let at = rng.below(b.len());
            b.insert(at, if rng.below(2) == 0 { 0 } else { 0x01 });
            return b;
        }
        _ => {
            let mut b = text.to_vec();
            let at = rng.below(b.len());
            b.insert(at, [0xFF, 0xC3, 0x80][rng.below(3)]);
            return b;
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out.into_bytes()
}

#[test]
fn item18_mutated_bundled_scenarios_fail_cleanly_and_never_print_a_token() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = scratch("ed-mutations");
    // The files bundled scenarios name by relative path: card files, keys and tokens.
    for sub in ["cards", "keys"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for e in std::fs::read_dir(root.join("scenarios").join(sub)).unwrap() {
            let e = e.unwrap();
            if e.path().is_file() {
                std::fs::copy(e.path(), dir.join(sub).join(e.file_name())).unwrap();
            }
        }
    }
    let mut files: Vec<_> = std::fs::read_dir(root.join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut rng = Rng(0x5EED_A2A5_1315);
    let started = std::time::Instant::now();
    let budget = std::time::Duration::from_secs(40);
    let mut problems = Vec::new();
    let mut tried = 0;
    'outer: for round in 0..40 {
        for f in &files {
            if started.elapsed() > budget {
                break 'outer;
            }
            let original = std::fs::read(f).unwrap();
            let mutated = mutate(&original, &mut rng);
            // A BOM or CRLF line ends change nothing a reader sees: the file must load as before.
            let harmless =
                mutated.starts_with(b"\xEF\xBB\xBF") || mutated.windows(2).any(|w| w == b"\r\n");
            let kept: Vec<String> = {
                let m = String::from_utf8_lossy(&mutated);
                let m_lines: Vec<&str> = m.lines().collect();
                token_values(&String::from_utf8_lossy(&original))
                    .into_iter()
                    .filter(|(line, _)| {
                        m_lines
                            .iter()
                            .any(|l| l.trim_start().trim_end_matches('\r') == line.trim_start())
                    })
                    .map(|(_, v)| v)
                    .collect()
            };
            std::fs::write(dir.join("m.yaml"), &mutated).unwrap();
            tried += 1;
            for args in [
                vec!["check", "m.yaml"],
                vec!["run", "--format", "json", "m.yaml"],
            ] {
                let r = a2a_sim_in(&dir, &args, None);
                let what = format!("round {round}, {} mutated, {args:?}", f.display());
                if harmless && r.status != 0 {
                    problems.push(format!(
                        "{what}: a BOM or CRLF broke the file: {}",
                        r.stderr
                    ));
                }
                if r.stderr.contains(" at position ") {
                    problems.push(format!(
                        "{what}: a byte offset instead of a position: {}",
                        r.stderr
                    ));
                }
                if ![0, 1, 2].contains(&r.status) || r.stderr.contains("panicked") {
                    problems.push(format!("{what}: status {} {}", r.status, r.stderr));
                }
                // A finding's continuation lines (its path, its hint) are indented under it.
                for line in r.stderr.lines().filter(|l| !l.starts_with(' ')) {
                    let rest = line.strip_prefix("m.yaml:").unwrap_or("");
                    let mut parts = rest.splitn(3, ':');
                    let ok = parts
                        .next()
                        .is_some_and(|l| l.parse::<usize>().is_ok_and(|l| l >= 1))
                        && parts
                            .next()
                            .is_some_and(|c| c.parse::<usize>().is_ok_and(|c| c >= 1));
                    if !ok {
                        problems.push(format!(
                            "{what}: no FILE:LINE:COL: {}",
                            &line[..line.len().min(300)]
                        ));
                    }
                }
                for t in &kept {
                    if r.stdout.contains(t.as_str()) || r.stderr.contains(t.as_str()) {
                        problems.push(format!(
                            "{what}: token {t} printed: {}",
                            &r.stderr[..r.stderr.len().min(300)]
                        ));
                    }
                }
            }
            if problems.len() > 20 {
                break 'outer;
            }
        }
    }
    assert!(tried >= files.len(), "too few mutations tried: {tried}");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

// 16. no token in an error message

#[test]
fn item16_no_token_in_any_error_message() {
    let dir = scratch("ed-tokens");
    let head = "agents:\n  - {name: s, tenant: t, clearance: public, capabilities: {push_notifications: true}, skills: [{id: s, tags: [x]}], handler: [working, completed]}\ncallers:\n  - {id: c, tenant: t, classification: public}\nsteps:\n";
    let cases = [
        (
            "anchor",
            "  - send: {caller: c, to: s, text: hi, as: a, push: {url: \"https://h.example/x\", token: &t SECRET-ONE}}\n  - discover: {caller: c, tags: [x], limit: *t}\n",
            "SECRET-ONE",
        ),
        (
            "quote",
            "  - send: {caller: c, to: s, text: \"hi, as: a}\n  - set_push_config: {caller: c, task: a, url: https://h.example/x, token: \"SECRET-TWO\"}\n  - get: {caller: c, task: a}\n",
            "SECRET-TWO",
        ),
        (
            "push-string",
            "  - send: {caller: c, to: s, text: hi, push: \"https://h.example/x?k=QUERYSECRET#f SECRET-THREE\"}\n",
            "SECRET-THREE",
        ),
        (
            "step-string",
            "  - send: {caller: c, to: s, text: hi, as: a}\n  - set_push_config: \"caller: c, task: a, url: https://h.example/x, token: SECRET-FOUR\"\n",
            "SECRET-FOUR",
        ),
    ];
    for (name, steps, secret) in cases {
        let file = format!("{name}.yaml");
        write(&dir, &file, &format!("{head}{steps}"));
        for args in [
            vec!["check", file.as_str()],
            vec!["check", "--error-format", "json", file.as_str()],
            vec!["run", file.as_str()],
            vec!["card", file.as_str(), "s"],
            vec!["test", "--junit", "j.xml", file.as_str()],
        ] {
            let r = a2a_sim_in(&dir, &args, None);
            assert_eq!(r.status, 2, "{name} {args:?}: {}", r.stderr);
            let junit = std::fs::read_to_string(dir.join("j.xml")).unwrap_or_default();
            for out in [&r.stdout, &r.stderr, &junit] {
                assert!(
                    !out.contains(secret),
                    "{name} {args:?} printed the token: {out}"
                );
                assert!(
                    !out.contains("QUERYSECRET"),
                    "{name} {args:?} printed a URL query: {out}"
                );
            }
        }
    }
    // Through --set, too.
    let dir = with_libs("ed-tokens-set");
    let r = a2a_sim_in(
        &dir,
        &[
            "run",
            "--format",
            "json",
            "--set",
            "steps.1.push.token=SET-SECRET",
            "s.yaml",
        ],
        None,
    );
    assert!(
        !r.stdout.contains("SET-SECRET") && !r.stderr.contains("SET-SECRET"),
        "{}{}",
        r.stdout,
        r.stderr
    );
}

// 9. positions and names in messages

#[test]
fn item9_wrong_types_point_at_the_value_and_messages_use_report_names() {
    let head = "agents:\n  - name: sanctions-screener\n    tenant: t\n    clearance: public\n    skills: [{id: s, tags: [x]}]\n    handler:\n      - working\n      - artifact: {name: a, data: 5}\ncallers:\n  - {id: c, tenant: t, classification: public}\nsteps:\n";
    let e = crate::common::load_err(&format!(
        "{head}  - send: {{caller: c, to: sanctions-screener, text: hi}}\n"
    ));
    assert_eq!(
        e,
        "test.yaml:8:35: agent sanctions-screener, handler step 2 (artifact): `data` must be a mapping"
    );
    let ok_agent = head.replace("data: 5", "data: {k: 1}");
    let e = crate::common::load_err(&format!(
        "{ok_agent}  - get: {{caller: c, task_id: t}}\n  - get: {{caller: c, task_id: t}}\n  - send: {{caller: c, to: sanctions-screener, text: hi, data: 5}}\n"
    ));
    assert_eq!(
        e,
        "test.yaml:14:63: step 3 (send): `data` must be a mapping"
    );
    let e = crate::common::load_err("agents: []\ncallers:\n  - id: c\n\ttenant: t\nsteps: []\n");
    assert!(
        e.starts_with("test.yaml:4:1: a tab character in indentation"),
        "{e}"
    );
}

// 17. every error has a position

#[test]
fn item17_a_control_character_is_located_where_it_is() {
    let e = crate::common::load_err(
        "agents: []\ncallers: []\nsteps:\n  - get: {caller: \"c\u{1}\", task_id: t}\n",
    );
    assert!(
        e.starts_with("test.yaml:4:21: a control character (U+0001)"),
        "{e}"
    );
    let e = crate::common::load_err("agents: []\ncallers: []\nsteps: []\n\u{0}");
    assert!(e.starts_with("test.yaml:4:1: "), "{e}");
}
