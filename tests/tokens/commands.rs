//! The `token mint` and `token inspect` commands (deterministic for every key type, EC keys
//! checked), and no output of a run, test, explain or coverage that shows a part of a token.

use std::path::Path;

use serde_json::Value;

use super::dir;

use crate::common::binary::{a2a_sim, a2a_sim_in};

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
