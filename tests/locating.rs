//! `check` locates its findings from one index of the file, so it keeps its throughput however
//! many findings a file has.

use std::path::Path;

use a2a_sim::scenario::Load;

/// Every warning of a large file used to be located by parsing the whole file again (38 warnings
/// in 9 MB took 11 s). Now the file's lines are indexed once and each warning's item is parsed
/// alone: the YAML parsed to locate them stays about the size of the file.
#[test]
fn many_warnings_in_a_long_file_cost_one_pass_to_locate() {
    let mut text = String::from("agents:\n");
    for i in 0..300 {
        // Every agent's handler ends in `working`: one warning each.
        text.push_str(&format!(
            "  - name: agent-{i}\n    tenant: acme\n    clearance: public\n    skills: [{{id: s, tags: [t{i}]}}]\n    handler: [working, {{message: \"m\"}}]\n"
        ));
    }
    text.push_str("callers:\n  - {id: c, tenant: acme, classification: public}\nsteps:\n");
    for i in 0..3_000 {
        text.push_str(&format!(
            "  - send: {{caller: c, to: agent-{}, text: \"request {i}\", as: t{i}}}\n",
            i % 300
        ));
    }
    let before = a2a_sim::scenario::yaml::probed_bytes();
    let loaded = Load::text("t.yaml", &text, Path::new("."), "t")
        .load()
        .unwrap_or_else(|e| panic!("{e}"));
    let parsed = a2a_sim::scenario::yaml::probed_bytes() - before;
    assert_eq!(loaded.warnings.len(), 300);
    for (i, w) in loaded.warnings.iter().enumerate() {
        assert_eq!((w.line, w.column), (6 + 5 * i, 24), "{w}");
        assert!(w.message.contains(&format!("`agent-{i}`")), "{w}");
    }
    assert!(
        parsed < 2 * text.len(),
        "{parsed} bytes of YAML parsed to locate 300 warnings in {} bytes",
        text.len()
    );
}
