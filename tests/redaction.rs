//! A secret is redacted by what it is (the value under a token key, in every YAML spelling, and
//! what an alias carries of it), never by equal text elsewhere: an agent's, caller's or tenant's
//! name is never redacted, and no JWT is printed in an error.

use std::path::Path;

use a2a_sim::scenario::Load;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

use crate::common::binary::{a2a_sim_in, scratch};

/// A JWT's shape (header, claims, signature), as a token caller's `token` holds one.
const JWT: &str = "eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJzdWIiOiJvcmNoZXN0cmF0b3IifQ.c2lnbmF0dXJl";

fn with_token(token_yaml: &str) -> String {
    format!(
        "keys: keys/jwks.json
policy:
  token: {{issuer: i, audience: a}}
agents:
  - {{name: a, tenant: acme, clearance: public, skills: [{{id: s, tags: [t]}}], handler: [working, completed]}}
callers:
  - name: c
    token: {token_yaml}
steps:
  - send: {{caller: c, to: a, text: hi}}
"
    )
}

/// A JWT whose YAML spelling is not its value was taken for a file name and printed whole (or
/// cut to 60 characters: its header) by `check`, `run`, `test` and the JUnit report.
#[test]
fn a_token_in_any_spelling_is_never_printed() {
    let dir = scratch("redact-spellings");
    std::fs::create_dir_all(dir.join("keys")).unwrap();
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/keys/jwks.json");
    std::fs::copy(bundled, dir.join("keys/jwks.json")).unwrap();
    let (head, tail) = JWT.split_at(40);
    let spellings = [
        ("escape", format!("\"{head}\\x20{tail}\"")),
        ("long", format!("\"{JWT}\\x20{JWT}\"")),
        ("folded", format!(">-\n      {head}\n      {tail}")),
        ("single", format!("'{head} {tail}'")),
    ];
    for (name, spelling) in spellings {
        let file = format!("{name}.yaml");
        std::fs::write(dir.join(&file), with_token(&spelling)).unwrap();
        for args in [
            vec!["check", file.as_str()],
            vec!["check", "--error-format", "json", file.as_str()],
            vec!["run", file.as_str()],
            vec!["test", "--junit", "j.xml", file.as_str()],
        ] {
            let r = a2a_sim_in(&dir, &args, None);
            assert_eq!(r.status, 2, "{name} {args:?}: {}", r.stderr);
            let said = format!("{}{}", r.stdout, r.stderr);
            assert!(
                said.contains("cannot read the token file `[redacted]`"),
                "{name} {args:?}: {said}"
            );
            let junit = std::fs::read_to_string(dir.join("j.xml")).unwrap_or_default();
            for out in [&r.stdout, &r.stderr, &junit] {
                for part in ["eyJ", &tail[10..30]] {
                    assert!(!out.contains(part), "{name} {args:?} printed {part}: {out}");
                }
            }
        }
    }
}

/// A push token equal to a name or a state hid that name or state wherever it was quoted (and
/// so told the token by where `[redacted]` stood).
#[test]
fn a_token_equal_to_a_name_hides_no_name() {
    for token in ["stub-agent", "working", "acme", "c"] {
        let text = format!(
            "agents:
  - {{name: stub-agent, tenant: acme, clearance: public, capabilities: {{push_notifications: true}}, skills: [{{id: s, tags: [t]}}], handler: [working]}}
callers:
  - {{id: c, tenant: acme, classification: public}}
steps:
  - send: {{caller: c, to: stub-agent, text: hi, as: t, push: {{url: \"https://h.example/x\", token: {token}}}}}
  - set_push_config:
      caller: c
      task: t
      url: https://h.example/y
      token: {token}
"
        );
        let loaded = Load::text("t.yaml", &text, Path::new("."), "t")
            .load()
            .unwrap_or_else(|e| panic!("{token}: {e}"));
        let warnings: Vec<String> = loaded.warnings.iter().map(|w| w.to_string()).collect();
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("the handler of `stub-agent` can end in `working`")),
            "{token}: {warnings:#?}"
        );
        assert!(
            warnings.iter().all(|w| !w.contains("[redacted]")),
            "{token}: {warnings:#?}"
        );
    }
}

/// An alias carries a token's value to a key that does not say so; the value it names there is
/// still the token.
#[test]
fn a_value_an_alias_takes_from_a_token_stays_hidden() {
    let text = "agents:
  - {name: a, tenant: acme, clearance: public, capabilities: {push_notifications: true}, skills: [{id: s, tags: [t]}], handler: [working, completed]}
callers:
  - {id: c, tenant: acme, classification: public}
steps:
  - send: {caller: c, to: a, text: hi, as: t, push: {url: \"https://h.example/x\", token: &t \"tok\\x2Dsecret\"}}
  - send: {caller: c, to: *t, text: hi}
";
    let err = Load::text("t.yaml", text, Path::new("."), "t")
        .scenario()
        .unwrap_err();
    let err = err.to_string();
    assert!(err.contains("unknown agent `[redacted]`"), "{err}");
    assert!(!err.contains("tok-secret"), "{err}");
}

/// Agent names as generated files have them, and as people write them.
fn agent_name() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..100).prop_map(|i| format!("agent-{i:02}")),
        "[a-z][a-z0-9-]{0,8}".prop_filter("a YAML word", |n| !matches!(
            n.as_str(),
            "null" | "true" | "false"
        )),
    ]
}

/// A scenario whose every agent has a handler bug (one warning naming it), with push configs
/// written in both styles whose tokens are drawn from the names, the states and empty values.
fn buggy_scenario() -> impl Strategy<Value = (Vec<String>, String)> {
    let names = prop::collection::btree_set(agent_name(), 1..8);
    (names, prop::collection::vec((0usize..8, 0usize..8, any::<bool>()), 0..12)).prop_map(
        |(names, pushes)| {
            let names: Vec<String> = names.into_iter().collect();
            let mut text = String::from("agents:\n");
            for n in &names {
                text.push_str(&format!(
                    "  - name: {n}\n    tenant: tenant-{n}\n    clearance: public\n    capabilities: {{push_notifications: true}}\n    skills: [{{id: s, tags: [t]}}]\n    handler: [working]\n"
                ));
            }
            text.push_str("callers:\n");
            for n in &names {
                text.push_str(&format!(
                    "  - {{id: {n}, tenant: tenant-{n}, classification: public}}\n"
                ));
            }
            text.push_str("steps:\n");
            let tokens: Vec<String> = names
                .iter()
                .cloned()
                .chain(["working", "tok", "''", "\"\"", "tenant-x"].map(String::from))
                .collect();
            for (i, n) in names.iter().enumerate() {
                text.push_str(&format!(
                    "  - send: {{caller: {n}, to: {n}, text: hi, as: t{i}}}\n"
                ));
            }
            for (k, (who, tok, block)) in pushes.into_iter().enumerate() {
                let i = who % names.len();
                let (n, token) = (&names[i], &tokens[tok % tokens.len()]);
                if block {
                    text.push_str(&format!(
                        "  - set_push_config:\n      caller: {n}\n      task: t{i}\n      agent: {n}\n      url: https://h.example/{k}\n      token: {token}\n"
                    ));
                } else {
                    text.push_str(&format!(
                        "  - send: {{caller: {n}, to: {n}, text: hi, push: {{url: \"https://h.example/{k}\", token: {token}}}}}\n"
                    ));
                }
            }
            (names, text)
        },
    )
}

proptest! {
    #![proptest_config(Config {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(128),
        rng_seed: RngSeed::Fixed(0x0a2a_5ec7),
        failure_persistence: None,
        ..Config::default()
    })]

    #[test]
    fn warnings_on_generated_files_name_every_agent_in_clear((names, text) in buggy_scenario()) {
        let loaded = match Load::text("g.yaml", &text, Path::new("."), "g").load() {
            Ok(l) => l,
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n{text}"))),
        };
        let warnings: Vec<String> = loaded.warnings.iter().map(|w| w.to_string()).collect();
        for n in &names {
            let want = format!("the handler of `{n}` can end in `working`");
            prop_assert!(warnings.iter().any(|w| w.contains(&want)), "{want}\n{warnings:#?}\n{text}");
        }
        prop_assert!(warnings.iter().all(|w| !w.contains("[redacted]")), "{warnings:#?}\n{text}");
    }
}

/// The generator's own files, every handler without its terminal step and every push token
/// replaced by an agent's name: each agent's warning names it in clear.
#[test]
fn warnings_on_a2a_sim_gen_files_name_every_agent_in_clear() {
    for seed in 1..=4 {
        let seed = seed.to_string();
        let text =
            a2a_sim_gen::yaml_for(&["--seed", &seed, "--agents", "24", "--steps", "400"]).unwrap();
        let (head, steps) = text.split_once("\nsteps:\n").unwrap();
        let mut names = Vec::new();
        let mut bugged = String::new();
        for line in head.lines() {
            if let Some(name) = line.strip_prefix("  - name: ") {
                names.push(name.trim_matches('"').to_string());
            }
            let terminal = ["completed", "failed", "rejected"]
                .iter()
                .any(|s| line.trim_start().starts_with(&format!("- {s}")));
            if terminal && line.starts_with("      - ") {
                // The handler loses its terminal step.
            } else {
                bugged.push_str(line);
                bugged.push('\n');
            }
        }
        let mut k = 0;
        let steps: String = steps
            .split("token: \"")
            .enumerate()
            .map(|(i, part)| {
                if i == 0 {
                    return part.to_string();
                }
                k += 1;
                let rest = part.split_once('"').map_or("", |(_, r)| r);
                format!("token: \"{}\"{rest}", names[k % names.len()])
            })
            .collect();
        assert!(k > 10, "seed {seed}: {k} tokens");
        let text = format!("{bugged}steps:\n{steps}");
        let loaded = Load::text("g.yaml", &text, Path::new("."), "g")
            .load()
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let warnings: Vec<String> = loaded.warnings.iter().map(|w| w.to_string()).collect();
        assert!(
            warnings.iter().all(|w| !w.contains("[redacted]")),
            "seed {seed}: {warnings:#?}"
        );
        let named = names
            .iter()
            .filter(|n| {
                warnings
                    .iter()
                    .any(|w| w.contains(&format!("the handler of `{n}`")))
            })
            .count();
        assert!(
            named >= names.len() / 2,
            "seed {seed}: {named} of {}",
            names.len()
        );
    }
}
