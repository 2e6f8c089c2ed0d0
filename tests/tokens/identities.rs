//! Who a token makes a caller: an identity a token holds is reachable only with that token.

use std::path::Path;

use crate::common::binary::{a2a_sim_in, scratch};

/// A keyed scenario whose token caller `orch` holds `orchestrator` (its token's `sub`), and a
/// caller given as parameters with the id `id`.
fn scenario(id: &str) -> String {
    format!(
        r#"keys: keys/jwks.json
policy:
  token: {{issuer: "https://idp.acme.example", audience: a2a-sim.acme.example}}
agents:
  - {{name: a, tenant: acme, clearance: restricted, skills: [{{id: s, tags: [t]}}], handler: [working, completed]}}
callers:
  - {{name: orch, token: keys/orchestrator.jwt}}
  - id: {id}
    tenant: acme
    classification: confidential
steps: []
"#
    )
}

fn check(name: &str, text: &str) -> crate::common::binary::Run {
    let d = scratch(&format!("identities-{name}"));
    std::fs::create_dir_all(d.join("keys")).unwrap();
    let keys = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/keys");
    for f in ["jwks.json", "orchestrator.jwt"] {
        std::fs::copy(keys.join(f), d.join("keys").join(f)).unwrap();
    }
    std::fs::write(d.join("s.yaml"), text).unwrap();
    let r = a2a_sim_in(&d, &["check", "s.yaml"], None);
    let _ = std::fs::remove_dir_all(&d);
    r
}

#[test]
fn a_plain_caller_cannot_take_the_identity_a_token_holds() {
    let r = check("taken", &scenario("orchestrator"));
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert!(
        r.stderr.starts_with(
            "s.yaml:8:9: caller `orchestrator` is the identity the token of caller `orch` holds (its `sub`)"
        ),
        "{}",
        r.stderr
    );
    // Any other id is its own identity.
    let r = check("free", &scenario("auditor"));
    assert_eq!(r.status, 0, "{}", r.stderr);
}

/// A look-alike of a verified caller's name or tenant is said at the verified caller's own line:
/// its `name`, and for what its token holds, its `token`.
#[test]
fn a_look_alike_of_a_verified_caller_is_located_at_it() {
    let text = r#"keys: keys/jwks.json
policy:
  token: {issuer: "https://idp.acme.example", audience: a2a-sim.acme.example}
agents:
  - {name: a, tenant: Acme, clearance: restricted, skills: [{id: s, tags: [t]}], handler: [working, completed]}
callers:
  - {id: Orch, tenant: Acme, classification: confidential}
  - name: orch
    token: keys/orchestrator.jwt
steps: []
"#;
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let loaded = a2a_sim::scenario::Load::text("t.yaml", text, &base, "t")
        .load()
        .unwrap();
    let got: Vec<String> = loaded
        .warnings
        .iter()
        .map(|d| format!("{}:{} {}", d.line, d.column, d.message))
        .collect();
    assert_eq!(
        got,
        [
            "8:11 id `orch` looks like id `Orch` (confusable): they are different identities",
            "9:12 tenant `acme` looks like tenant `Acme` (confusable): they are different identities",
        ],
        "{got:#?}"
    );
}
