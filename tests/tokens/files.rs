//! Key files, token callers and `policy.token` at load; cards; the `token` commands.

use std::path::{Path, PathBuf};

use a2a_sim::scenario::loader;
use serde_json::Value;

use crate::common::binary::{a2a_sim, a2a_sim_in};

/// A scratch directory holding `files`, plus the bundled keys as keys/.
fn dir(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let d = std::env::temp_dir().join(format!("a2a-sim-tokens-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("keys")).unwrap();
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/keys");
    for e in std::fs::read_dir(&bundled).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), d.join("keys").join(e.file_name())).unwrap();
    }
    for (file, text) in files {
        std::fs::write(d.join(file), text).unwrap();
    }
    d
}

fn scenario(head: &str, callers: &str) -> String {
    format!(
        "{head}\nagents:\n  - {{name: a, tenant: acme, clearance: restricted, skills: [{{id: s, tags: [t]}}]}}\ncallers:\n{callers}\nsteps: []\n"
    )
}

const TOKEN_POLICY: &str = "policy:\n  token: {issuer: i, audience: a}";

fn load_err(d: &Path, yaml: &str) -> String {
    match loader::load_str(&d.join("s.yaml").display().to_string(), yaml, d, "s".into()) {
        Ok(_) => panic!("loaded but should not have"),
        Err(e) => e.to_string(),
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
    let s = loader::load_str("s.yaml", &yaml, &d, "s".into()).unwrap();
    let w = a2a_sim::engine::world::run(&s);
    let details: Vec<&str> = w.errors.iter().map(|e| &*e.detail).collect();
    assert_eq!(
        details,
        [
            "caller `c`: token refused: malformed token: not three base64url segments with a JSON header and claims",
            "caller `inline`: token refused: alg not allowed: `none` (allowed: EdDSA, ES256, RS256)",
        ]
    );
}

fn card(agent: &str, version: &str) -> Value {
    let r = a2a_sim(&[
        "card",
        "scenarios/verified-callers.yaml",
        agent,
        "--a2a-version",
        version,
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

#[test]
fn an_agent_that_requires_a_token_advertises_a_bearer_jwt() {
    let v03 = card("sanctions-screener", "0.3");
    assert_eq!(v03.as_object().unwrap().len(), 12);
    assert_eq!(v03["securitySchemes"]["bearer"]["type"], "http");
    assert_eq!(v03["securitySchemes"]["bearer"]["bearerFormat"], "JWT");
    assert_eq!(
        v03["security"],
        serde_json::json!([{"bearer": ["sanctions:screen"]}])
    );
    let v10 = card("sanctions-screener", "1.0");
    assert_eq!(
        v10["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"],
        "Bearer"
    );
    assert_eq!(
        v10["securityRequirements"],
        serde_json::json!([{"schemes": {"bearer": {"list": ["sanctions:screen"]}}}])
    );
    let r = a2a_sim(&[
        "card",
        "scenarios/traced-delegation.yaml",
        "sanctions-screener",
        "--a2a-version",
        "0.3",
    ]);
    let plain: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        plain.as_object().unwrap().len(),
        10,
        "no token required: today's ten keys"
    );
}

#[test]
fn card_files_convert_their_security_both_ways() {
    let v03 = r#"{"protocolVersion": "0.3.0", "name": "kyc", "description": "KYC", "url": "https://kyc.example/a2a",
 "preferredTransport": "JSONRPC", "version": "1.0.0", "capabilities": {}, "defaultInputModes": ["text/plain"],
 "defaultOutputModes": ["text/plain"], "skills": [{"id": "k", "name": "k", "description": "k", "tags": ["kyc"],
 "security": [{"jwt": ["kyc:write"]}, {"jwt": [], "key": []}]}],
 "securitySchemes": {"jwt": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
                     "key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
 "security": [{"jwt": ["kyc:read"]}, {"key": []}]}"#;
    let d = dir("cards", &[("c03.json", v03)]);
    let yaml = "agents:\n  - {card: CARD, tenant: acme, clearance: public}\ncallers: [{id: c, tenant: acme, classification: public}]\nsteps: []\n";
    std::fs::write(d.join("s.yaml"), yaml.replace("CARD", "c03.json")).unwrap();
    let r = a2a_sim_in(&d, &["card", "s.yaml", "kyc", "--a2a-version", "1.0"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v10: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v10["securitySchemes"]["key"],
        serde_json::json!({"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}})
    );
    assert_eq!(
        v10["securityRequirements"][0],
        serde_json::json!({"schemes": {"jwt": {"list": ["kyc:read"]}}})
    );
    assert_eq!(
        v10["skills"][0]["securityRequirements"],
        serde_json::json!([{"schemes": {"jwt": {"list": ["kyc:write"]}}},
                           {"schemes": {"jwt": {"list": []}, "key": {"list": []}}}]),
        "a skill's own requirement converts too"
    );
    assert!(v10["skills"][0].get("security").is_none());
    std::fs::write(d.join("c10.json"), &r.stdout).unwrap();
    std::fs::write(d.join("s.yaml"), yaml.replace("CARD", "c10.json")).unwrap();
    let back = a2a_sim_in(&d, &["card", "s.yaml", "kyc", "--a2a-version", "0.3"], None);
    let back: Value = serde_json::from_str(&back.stdout).unwrap();
    let orig: Value = serde_json::from_str(v03).unwrap();
    assert_eq!(back["securitySchemes"], orig["securitySchemes"]);
    assert_eq!(back["security"], orig["security"]);
    assert_eq!(
        back["skills"], orig["skills"],
        "the skill's `security` comes back as it was"
    );
}

#[test]
fn token_mint_reproduces_the_bundled_token_and_inspect_shows_each_check() {
    let args = [
        "token",
        "mint",
        "--key",
        "scenarios/keys/issuer.private.jwk.json",
        "--iss",
        "https://idp.acme.example",
        "--aud",
        "a2a-sim.acme.example",
        "--iat",
        "2026-01-01T00:00:00Z",
        "--nbf",
        "2026-01-01T00:00:00Z",
        "--tenant",
        "acme",
        "--classification",
        "confidential",
        "--sub",
        "orchestrator",
        "--scope",
        "payments:release sanctions:screen",
        "--exp",
        "2026-01-01T01:00:00Z",
    ];
    let minted = a2a_sim(&args);
    assert_eq!(minted.status, 0, "{}", minted.stderr);
    let bundled = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/keys/orchestrator.jwt"),
    )
    .unwrap();
    assert_eq!(minted.stdout, bundled);
    let keys = [
        "--keys",
        "scenarios/keys/jwks.json",
        "--iss",
        "https://idp.acme.example",
        "--aud",
        "a2a-sim.acme.example",
    ];
    let ok = a2a_sim(
        &[
            &["token", "inspect", "scenarios/keys/orchestrator.jwt"][..],
            &keys,
        ]
        .concat(),
    );
    assert_eq!(ok.status, 0, "{}", ok.stdout);
    let late = a2a_sim(
        &[
            &[
                "token",
                "inspect",
                "scenarios/keys/expired.jwt",
                "--at",
                "2026-01-01T00:00:03Z",
            ][..],
            &keys,
        ]
        .concat(),
    );
    assert_eq!(late.status, 1);
    let doc: Value = serde_json::from_str(&late.stdout).unwrap();
    let exp = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "exp")
        .unwrap();
    assert_eq!(exp["verdict"], "fail");
    assert!(
        !late
            .stdout
            .contains(bundled.split('.').nth(2).unwrap().trim()),
        "inspect never prints the signature"
    );
    let bad = a2a_sim(&[
        "token",
        "mint",
        "--key",
        "scenarios/keys/jwks.json",
        "--sub",
        "x",
    ]);
    assert_eq!(bad.status, 2, "a JWKS is no private key: {}", bad.stderr);
}

#[test]
fn token_mint_is_deterministic_for_rs256_and_hs256_too() {
    let d = dir(
        "mint",
        &[(
            "oct.json",
            r#"{"kty": "oct", "kid": "s", "k": "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0"}"#,
        )],
    );
    for key in ["keys/rsa.private.jwk.json", "oct.json"] {
        let args = [
            "token",
            "mint",
            "--key",
            key,
            "--sub",
            "x",
            "--exp",
            "2026-01-01T01:00:00Z",
        ];
        let (a, b) = (a2a_sim_in(&d, &args, None), a2a_sim_in(&d, &args, None));
        assert_eq!(a.status, 0, "{key}: {}", a.stderr);
        assert_eq!(a.stdout, b.stdout, "{key}");
    }
    let rs = a2a_sim_in(
        &d,
        &[
            "token",
            "mint",
            "--key",
            "keys/rsa.private.jwk.json",
            "--sub",
            "x",
            "--exp",
            "2026-01-01T01:00:00Z",
        ],
        None,
    );
    let check = a2a_sim_in(
        &d,
        &[
            "token",
            "inspect",
            rs.stdout.trim(),
            "--keys",
            "keys/jwks.json",
        ],
        None,
    );
    let doc: Value = serde_json::from_str(&check.stdout).unwrap();
    assert_eq!(doc["header"]["alg"], "RS256");
    let sig = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "signature")
        .unwrap();
    assert_eq!(sig["verdict"], "pass");
}

/// Test-only EC keys (fixed scalars), as private JWKs and the JWKS of their public halves.
const P256: &str = r#"{"kty": "EC", "kid": "p-256", "crv": "P-256", "x": "Rxw-dYxJBChbun5TEY7Q9SSt6wdX0lvS-Oew1236cUw", "y": "3VIPesqKi5F6zDf1HejwybvjrYWDgucC3CWhLQn3qFg", "d": "EjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJCrze8"}"#;
const P384: &str = r#"{"kty": "EC", "kid": "p-384", "crv": "P-384", "x": "oUqtlWc9UVE6OFMJFR7le2b4722AoDrlSyaHZ7KMs39y8nKqX7XRHXOVFX2YW18z", "y": "Ip1BNNGmPSoa-hhKLQnlKy1xUn5m-xQnwT5rHLGXjUdKe3tzXXks2qCZYzLbloq0", "d": "EjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83v"}"#;

fn public_jwks(keys: &[&str]) -> String {
    let keys: Vec<Value> = keys
        .iter()
        .map(|k| {
            let mut v: Value = serde_json::from_str(k).unwrap();
            v.as_object_mut().unwrap().remove("d");
            v
        })
        .collect();
    serde_json::json!({ "keys": keys }).to_string()
}

#[test]
fn token_mint_signs_deterministically_with_es256_and_es384() {
    let jwks = public_jwks(&[P256, P384]);
    let d = dir(
        "mint-ec",
        &[
            ("p256.json", P256),
            ("p384.json", P384),
            ("jwks.json", &jwks),
        ],
    );
    for (key, alg) in [("p256.json", "ES256"), ("p384.json", "ES384")] {
        let args = [
            "token",
            "mint",
            "--key",
            key,
            "--sub",
            "x",
            "--exp",
            "2026-01-01T01:00:00Z",
        ];
        let (a, b) = (a2a_sim_in(&d, &args, None), a2a_sim_in(&d, &args, None));
        assert_eq!(a.status, 0, "{key}: {}", a.stderr);
        assert_eq!(
            a.stdout, b.stdout,
            "{key}: RFC 6979 signatures are deterministic"
        );
        let check = a2a_sim_in(
            &d,
            &[
                "token",
                "inspect",
                a.stdout.trim(),
                "--keys",
                "jwks.json",
                "--alg",
                alg,
            ],
            None,
        );
        let doc: Value = serde_json::from_str(&check.stdout).unwrap();
        assert_eq!(doc["header"]["alg"], alg);
        for c in doc["checks"].as_array().unwrap() {
            if c["check"] == "signature" || c["check"] == "alg" {
                assert_eq!(c["verdict"], "pass", "{key}: {c}");
            }
        }
    }
}

#[test]
fn an_ec_signing_key_whose_point_is_not_its_d_is_refused() {
    let wrong = P256.replace("\"x\": \"Rxw", "\"x\": \"Sxw");
    let d = dir(
        "mint-ec-bad",
        &[
            ("wrong.json", &wrong),
            ("curve.json", &P256.replace("P-256", "P-521")),
        ],
    );
    let args = ["token", "mint", "--key", "wrong.json", "--sub", "x"];
    let bad = a2a_sim_in(&d, &args, None);
    assert_eq!(bad.status, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("`x` is not the public point"),
        "{}",
        bad.stderr
    );
    let bad = a2a_sim_in(
        &d,
        &["token", "mint", "--key", "curve.json", "--sub", "x"],
        None,
    );
    assert_eq!(bad.status, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("unknown EC curve `P-521`"),
        "{}",
        bad.stderr
    );
    assert!(
        !bad.stderr.contains("EjRWeJCrze8"),
        "never the private scalar"
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
    use a2a_sim::token::{Alg, TokenPolicy, check::verify};
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
    let t = a2a_sim::token::mint::sign(&key, claims.as_object().unwrap()).unwrap();
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

#[test]
fn no_output_of_the_bundled_scenario_shows_a_part_of_its_tokens() {
    let keys = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/keys");
    let mut parts = Vec::new();
    for entry in std::fs::read_dir(&keys).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jwt") {
            let token = std::fs::read_to_string(&path).unwrap();
            // The claims and the signature; a header is shared by every token of one key.
            parts.extend(
                token
                    .trim()
                    .split('.')
                    .skip(1)
                    .filter(|p| p.len() > 8)
                    .map(String::from),
            );
        }
    }
    assert!(parts.len() >= 8, "the bundled tokens: {parts:?}");
    let scenario = "scenarios/verified-callers.yaml";
    let mut outputs = vec![a2a_sim(&["test", scenario])];
    for format in [
        "table",
        "json",
        "a2a",
        "a2a-stream",
        "acp",
        "mermaid",
        "html",
    ] {
        outputs.push(a2a_sim(&["run", scenario, "--format", format]));
    }
    for step in ["1", "2", "3", "4", "5", "6", "7", "8"] {
        outputs.push(a2a_sim(&["explain", scenario, "--step", step]));
    }
    outputs.push(a2a_sim(&["coverage", scenario]));
    for out in outputs {
        assert_eq!(out.status, 0, "{}", out.stderr);
        for part in &parts {
            assert!(
                !out.stdout.contains(part.as_str()) && !out.stderr.contains(part.as_str()),
                "an output shows a part of a token"
            );
        }
    }
}
