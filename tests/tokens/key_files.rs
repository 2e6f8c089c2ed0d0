//! Key files, token callers and `policy.token` at load time: errors located in the key file,
//! the shapes checked, a bad token left to run time, no key file that panics, and a key pinned to
//! one alg.

use std::path::Path;

use a2a_sim::scenario::Load;
use serde_json::Value;

use super::dir;
use crate::common::load_as;

fn scenario(head: &str, callers: &str) -> String {
    format!(
        "{head}\nagents:\n  - {{name: a, tenant: acme, clearance: restricted, skills: [{{id: s, tags: [t]}}]}}\ncallers:\n{callers}\nsteps: []\n"
    )
}

const TOKEN_POLICY: &str = "policy:\n  token: {issuer: i, audience: a}";

fn load_err(d: &Path, yaml: &str) -> String {
    match load_as(&d.join("s.yaml").display().to_string(), d, yaml) {
        Ok(_) => panic!("loaded but should not have"),
        Err(e) => e,
    }
}

#[test]
fn key_file_errors_point_into_the_key_file() {
    let jwks = r#"{"keys": [
  {"kty": "OKP", "crv": "Ed25519", "kid": "k1", "x": "oJql9HpnWYAv-VX43C0qFKXJnSO-l_hkEn_5ODRVpPA"},
  {"kty": "RSB", "kid": "k2"},
  {"kty": "OKP", "crv": "Ed25519", "kid": "k3", "x": "oJql9HpnWYAv-VX43C0qFKXJnSO-l_hkEn_5ODRVpPA", "d": "IiIi"},
  {"kty": "OKP", "crv": "Ed25519", "kid": "k1", "x": "oJql9HpnWYAv-VX43C0qFKXJnSO-l_hkEn_5ODRVpPA"},
  {"kty": "OKP", "crv": "Ed25519", "x": "!!"}
]}
"#;
    let d = dir(
        "jwks",
        &[
            ("jwks.json", jwks),
            ("broken.json", "{\"keys\": [\n  {\"kty\": }\n]}\n"),
        ],
    );
    let file = d.join("jwks.json").display().to_string();
    let err = load_err(
        &d,
        &scenario(
            &format!("keys: jwks.json\n{TOKEN_POLICY}"),
            "  - {id: c, tenant: acme, classification: public}",
        ),
    );
    for want in [
        format!("{file}:3:11: unknown kty `RSB`"),
        format!("{file}:4:106: a private member `d`"),
        format!("{file}:5:43: duplicate kid `k1`"),
        format!("{file}:6:3: a verification key needs a non-empty `kid`"),
    ] {
        assert!(err.contains(&want), "{want}\nnot in\n{err}");
    }
    // A bad public member is reported at the member.
    let members = r#"{"keys": [
  {"kty": "EC", "kid": "e1", "crv": "P-999", "x": "AA", "y": "AA"},
  {"kty": "oct", "kid": "o1", "k": 7},
  {"kty": "OKP", "crv": "Ed25519", "kid": "k5", "x": "!!"},
  {"kty": "RSA", "kid": "r1", "e": "AQAB"},
  {"kty": "OKP", "crv": "X25519", "kid": "k6", "x": "AA"}
]}
"#;
    std::fs::write(d.join("members.json"), members).unwrap();
    let file = d.join("members.json").display().to_string();
    let err = load_err(
        &d,
        &scenario(
            &format!("keys: members.json\n{TOKEN_POLICY}"),
            "  - {id: c, tenant: acme, classification: public}",
        ),
    );
    for want in [
        format!("{file}:2:37: unknown EC curve `P-999`"),
        format!("{file}:3:36: `k` must be a string"),
        format!("{file}:4:54: `x` is not base64url"),
        format!("{file}:5:3: a `RSA` key needs `n`"),
        format!("{file}:6:25: an OKP key must have `crv: Ed25519`"),
    ] {
        assert!(err.contains(&want), "{want}\nnot in\n{err}");
    }
    let err = load_err(
        &d,
        &scenario(
            &format!("keys: broken.json\n{TOKEN_POLICY}"),
            "  - {id: c, tenant: acme, classification: public}",
        ),
    );
    assert!(
        err.contains(&format!("{}:2:", d.join("broken.json").display())),
        "{err}"
    );
    let err = load_err(
        &d,
        &scenario(
            &format!("keys: nowhere.json\n{TOKEN_POLICY}"),
            "  - {id: c, tenant: acme, classification: public}",
        ),
    );
    assert!(
        err.contains("s.yaml:1:7: cannot read the key file `nowhere.json`"),
        "{err}"
    );
}

#[test]
fn policy_and_caller_shapes_are_checked_at_load() {
    let d = dir("policy", &[]);
    let param = "  - {id: c, tenant: acme, classification: public}";
    let token = "  - {name: c, token: keys/orchestrator.jwt}";
    let rows = [
        (
            scenario("keys: keys/jwks.json", param),
            "`keys` needs `policy.token",
        ),
        (scenario(TOKEN_POLICY, param), "`policy.token` needs `keys`"),
        (scenario("", token), "a caller with a token needs `keys`"),
        (
            scenario(
                "keys: keys/jwks.json\npolicy:\n  token: {issuer: i, audience: a, algorithms: [EdDSA, none]}",
                param,
            ),
            "`none` is never allowed",
        ),
        (
            scenario(
                "keys: keys/jwks.json\npolicy:\n  token: {issuer: i, audience: a, algorithms: [ES257]}",
                param,
            ),
            "unknown algorithm `ES257`",
        ),
        (
            scenario(
                &format!("keys: keys/jwks.json\n{TOKEN_POLICY}"),
                "  - {name: c, token: keys/orchestrator.jwt, tenant: acme}",
            ),
            "`tenant` comes from the verified token",
        ),
        (
            scenario(
                &format!("keys: keys/jwks.json\n{TOKEN_POLICY}"),
                "  - {name: c, token: keys/missing.jwt}",
            ),
            // The value under `token` is redacted in every error, whether it is a path or a JWT.
            "cannot read the token file `[redacted]`",
        ),
        (
            scenario(
                &format!("keys: keys/jwks.json\n{TOKEN_POLICY}"),
                "  - {tenant: acme, classification: public}",
            ),
            "a caller needs `id`",
        ),
        (
            scenario(
                "keys: keys/jwks.json\npolicy:\n  token: {issuer: i, audience: a, platform_key: keys/jwks.json}",
                param,
            ),
            "a JWK needs `kty`",
        ),
    ];
    for (yaml, want) in rows {
        let err = load_err(&d, &yaml);
        assert!(err.contains(want), "{want}\nnot in\n{err}");
    }
}

#[test]
fn a_bad_token_is_a_runtime_refusal_not_a_load_error() {
    let d = dir("bad", &[("junk.jwt", "not a token at all\n")]);
    let yaml = scenario(
        &format!("keys: keys/jwks.json\n{TOKEN_POLICY}"),
        "  - {name: c, token: junk.jwt}\n  - {name: inline, token: eyJhbGciOiJub25lIn0.e30.}",
    )
    .replace("steps: []", "steps:\n  - send: {caller: c, to: a, text: hi}\n  - send: {caller: inline, to: a, text: hi}");
    let s = Load::text("s.yaml", &yaml, &d, "s").scenario().unwrap();
    let w = a2a_sim::engine::run(&s);
    let details: Vec<&str> = w.errors.iter().map(|e| &*e.detail).collect();
    assert_eq!(
        details,
        [
            "caller `c`: token refused: malformed token: not three base64url segments with a JSON header and claims",
            "caller `inline`: token refused: alg not allowed: `none` (allowed: EdDSA, ES256, RS256)",
        ]
    );
}

#[test]
fn no_key_file_makes_a_panic() {
    use serde_json::json;
    let junk = [
        json!(null),
        json!([]),
        json!({"keys": {}}),
        json!({"keys": [1, "x", null, []]}),
        json!({"keys": [{"kty": 5}, {"kty": "OKP"}, {"kty": "OKP", "crv": "X448", "kid": "a"}]}),
        json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "a", "x": "!!!"}]}),
        json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "a", "x": "AAAA"}]}),
        json!({"keys": [{"kty": "RSA", "kid": "a", "n": "", "e": ""}, {"kty": "RSA", "kid": "b", "n": "***"}]}),
        json!({"keys": [{"kty": "EC", "kid": "a", "crv": "P-256", "x": "AA", "y": "AA"}]}),
        json!({"keys": [{"kty": "EC", "kid": "a", "crv": "P-999"}, {"kty": "oct", "kid": "b"}, {"kty": "oct", "kid": "c", "k": 7}]}),
        json!({"keys": [{"kty": "RSA", "kid": "a", "alg": "EdDSA", "n": "AQAB", "e": "AQAB"}, {"kty": "oct", "kid": "z", "alg": "none", "k": "AA"}]}),
    ];
    for doc in &junk {
        let _ = a2a_sim::token::KeySet::from_jwks(doc);
        let _ = a2a_sim::token::PrivateKey::from_jwk(doc, true);
        for key in doc
            .get("keys")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let _ = a2a_sim::token::PrivateKey::from_jwk(key, false);
        }
    }
    for key in [
        json!({"kty": "OKP", "crv": "Ed25519", "d": "AAAA", "x": "AAAA"}),
        json!({"kty": "RSA", "n": "AQAB", "e": "AQAB", "d": "AQAB", "p": "AQAB", "q": "AQAB"}),
        json!({"kty": "RSA", "n": "", "e": "", "d": "", "p": "", "q": ""}),
        json!({"kty": "oct", "k": ""}),
    ] {
        assert!(
            a2a_sim::token::PrivateKey::from_jwk(&key, false).is_err(),
            "{key}"
        );
    }
}

#[test]
fn a_key_pinned_to_one_alg_verifies_only_that_one() {
    use a2a_sim::token::{Alg, TokenPolicy, verify};
    let rsa: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/keys/rsa.private.jwk.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut ps = rsa.clone();
    ps["alg"] = "PS256".into();
    let key = a2a_sim::token::PrivateKey::from_jwk(&ps, false).unwrap();
    let claims = serde_json::json!({"sub": "x", "exp": 1_767_229_200, "tenant": "acme", "classification": "public"});
    let t = a2a_sim::token::sign(&key, claims.as_object().unwrap()).unwrap();
    let keys = a2a_sim::token::KeySet::from_jwks(
        &serde_json::from_str(
            &std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/keys/jwks.json"),
            )
            .unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    let policy = TokenPolicy {
        issuer: None,
        audience: None,
        algorithms: vec![Alg::parse("PS256").unwrap(), Alg::parse("RS256").unwrap()],
        leeway_ms: 0,
    };
    let why = verify(&t, Some(&keys), &policy, 1_767_225_600_000).unwrap_err();
    assert!(
        why.starts_with("alg `PS256` is not the alg `RS256` that key `acme-rsa-2026` is pinned to"),
        "{why}"
    );
}
