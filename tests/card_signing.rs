//! Signed agent cards (A2A §8.4): `policy.card_signing_key` signs every printed card with each
//! key family, deterministically; a bad key, a card file whose signatures do not verify and a
//! `tampered_card` without a key are located load errors; the keys come through imports; the
//! canonical form is the SDK's (empty values and `signatures` out, RFC 8785 order and numbers).
//! `card --verify` is tested in tests/cli/card_verify.rs.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::binary::{a2a_sim_in, scratch, write};
use a2a_sim::token::KeySet;
use a2a_sim::token::card::{self, Check};

const KEYS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/card-signing");

/// A scratch folder with the test keys, the bank's signed card and `yaml` as s.yaml.
pub(crate) fn folder(name: &str, yaml: &str) -> PathBuf {
    let d = scratch(name);
    for f in std::fs::read_dir(KEYS).unwrap() {
        let p = f.unwrap().path();
        std::fs::copy(&p, d.join(p.file_name().unwrap())).unwrap();
    }
    write(&d, "s.yaml", yaml);
    d
}

pub(crate) fn scenario(policy: &str, extra_agents: &str, faults: &str) -> String {
    format!(
        "policy:\n{policy}\nagents:\n  - {{name: a, description: An agent, tenant: acme, clearance: internal, skills: [{{id: s, name: S, description: Does s, tags: [t]}}], handler: [working: on it, completed: ok]}}\n{extra_agents}callers:\n  - {{id: c, tenant: acme, classification: internal}}\n{faults}steps: []\n"
    )
}

fn public_keys() -> KeySet {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(KEYS).join("public.jwks.json")).unwrap(),
    )
    .unwrap();
    KeySet::from_jwks(&doc).unwrap()
}

#[test]
fn every_key_family_signs_printed_cards_that_verify_and_sign_alike_twice() {
    for (key, alg) in [
        ("es256", "ES256"),
        ("es384", "ES384"),
        ("rs256", "RS256"),
        ("eddsa", "EdDSA"),
    ] {
        let d = folder(
            &format!("card-signing-{key}"),
            &scenario(
                &format!("  card_signing_key: {key}.private.jwk.json"),
                "",
                "",
            ),
        );
        for v in ["1.0", "0.3"] {
            let r = a2a_sim_in(&d, &["card", "s.yaml", "a", "--a2a-version", v], None);
            assert_eq!(r.status, 0, "{key} {v}: {}", r.stderr);
            let doc: Value = serde_json::from_str(&r.stdout).unwrap();
            let sigs = doc["signatures"].as_array().unwrap();
            assert_eq!(sigs.len(), 1);
            assert_eq!(
                sigs[0].as_object().unwrap().len(),
                2,
                "protected and signature"
            );
            let checks = card::verify(&doc, &public_keys()).unwrap();
            let kid = format!("card-test-{key}");
            assert_eq!(checks, [Check::Verified { kid, alg }], "{key} {v}");
            // The protected header: alg, kid and typ JOSE.
            let header = String::from_utf8(
                base64::Engine::decode(
                    &base64::engine::general_purpose::URL_SAFE_NO_PAD,
                    sigs[0]["protected"].as_str().unwrap(),
                )
                .unwrap(),
            )
            .unwrap();
            assert_eq!(
                serde_json::from_str::<Value>(&header).unwrap(),
                json!({"alg": alg, "kid": format!("card-test-{key}"), "typ": "JOSE"})
            );
            let again = a2a_sim_in(&d, &["card", "s.yaml", "a", "--a2a-version", v], None);
            assert_eq!(
                again.stdout, r.stdout,
                "{key}: a card signs alike every time"
            );
            // The private key is never printed.
            let private: Value = serde_json::from_str(
                &std::fs::read_to_string(d.join(format!("{key}.private.jwk.json"))).unwrap(),
            )
            .unwrap();
            let secret = private["d"].as_str().unwrap();
            assert!(!r.stdout.contains(secret) && !r.stderr.contains(secret));
        }
    }
}

fn load_error(d: &Path) -> String {
    let r = a2a_sim_in(d, &["check", "s.yaml"], None);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    r.stderr
}

#[test]
fn a_bad_signing_key_is_a_located_load_error() {
    let cases: [(&str, &str, &str); 6] = [
        (
            "missing.jwk.json",
            "",
            "s.yaml:2:21: cannot read the key file `missing.jwk.json`",
        ),
        (
            "public.jwk.json",
            r#"{"kty": "EC", "crv": "P-256", "kid": "k", "x": "lzPNM_W7sQZSHKOFiHyAPbtj_GKj19GtT-DGkTm2L9E", "y": "o_t16rQnWpu6Pv3HMcNzR9RX_UdISFCoQeduk8PFJck"}"#,
            "public.jwk.json:1:1: a private key needs `d`",
        ),
        (
            "secret.jwk.json",
            r#"{"kty": "oct", "kid": "k", "k": "c2VjcmV0LXNlY3JldC1zZWNyZXQ"}"#,
            "s.yaml:2:21: a card signing key is a private EC, RSA or Ed25519",
        ),
        (
            "p521.jwk.json",
            "{\"kty\": \"EC\",\n \"crv\": \"P-521\", \"kid\": \"k\", \"d\": \"AAAA\"}",
            "p521.jwk.json:2:9: unknown EC curve `P-521`",
        ),
        (
            "public.jwks.json",
            r#"{"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k", "x": "oJql9HpnWYAv-VX43C0qFKXJnSO-l_hkEn_5ODRVpPA"}]}"#,
            "public.jwks.json:1:1: a JWK needs `kty`; this is a JWKS (a `keys` list), where one private JWK is expected",
        ),
        (
            "nokid.jwk.json",
            r#"{"kty": "OKP", "crv": "Ed25519", "x": "oJql9HpnWYAv-VX43C0qFKXJnSO-l_hkEn_5ODRVpPA", "d": "IiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiI"}"#,
            "a signing key needs a non-empty `kid`",
        ),
    ];
    for (file, text, want) in cases {
        let d = folder(
            "card-signing-bad-key",
            &scenario(&format!("  card_signing_key: {file}"), "", ""),
        );
        if !text.is_empty() {
            write(&d, file, text);
        }
        let err = load_error(&d);
        assert!(err.contains(want), "{file}: want `{want}` in\n{err}");
    }
}

#[test]
fn a_card_file_whose_signatures_do_not_verify_is_a_located_load_error() {
    let bank = "  - {card: partner.card.json, tenant: acme, clearance: internal, handler: [working: on it, completed: ok]}\n";
    // Verified with card_keys: loads.
    let d = folder(
        "card-signing-file",
        &scenario("  card_keys: public.jwks.json", bank, ""),
    );
    let r = a2a_sim_in(&d, &["check", "s.yaml"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);

    // Changed after the bank signed it: located at the agent's `card`.
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("partner.card.json")).unwrap())
            .unwrap();
    doc["version"] = json!("9.9.9");
    write(&d, "partner.card.json", &doc.to_string());
    let err = load_error(&d);
    assert!(
        err.contains("s.yaml:5:12: card file `partner.card.json`: signature 1 (kid `card-test-eddsa`) does not verify"),
        "{err}"
    );

    // No key to check it with: says what to add.
    let d = folder(
        "card-signing-file-nokeys",
        &scenario("  max_depth: 4", bank, ""),
    );
    let err = load_error(&d);
    assert!(err.contains("add `policy.card_keys: FILE`"), "{err}");
    // A JWKS without the signer's kid: says so.
    write(
        &d,
        "other.jwks.json",
        r#"{"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "other", "x": "oJql9HpnWYAv-VX43C0qFKXJnSO-l_hkEn_5ODRVpPA"}]}"#,
    );
    write(
        &d,
        "s.yaml",
        &scenario("  card_keys: other.jwks.json", bank, ""),
    );
    let err = load_error(&d);
    assert!(
        err.contains("signed with kid `card-test-eddsa`, which no key of `policy.card_keys` has"),
        "{err}"
    );
}

#[test]
fn a_signed_card_file_is_re_signed_when_printed_and_loses_its_signatures_when_converted() {
    let bank = "  - {card: partner.card.json, tenant: acme, clearance: internal, handler: [working: on it, completed: ok]}\n";
    let d = folder(
        "card-signing-reissue",
        &scenario("  card_keys: public.jwks.json", bank, ""),
    );
    // Without a signing key: printed in its own version, the file's signature stays (and verifies).
    let r = a2a_sim_in(&d, &["card", "s.yaml", "partner-bank"], None);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(card::trusted(&card::verify(&doc, &public_keys()).unwrap()));
    // Converted to 0.3: the signatures go, with a warning.
    let r = a2a_sim_in(
        &d,
        &["card", "s.yaml", "partner-bank", "--a2a-version", "0.3"],
        None,
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(doc.get("signatures").is_none());
    assert!(
        r.stderr.contains("`signatures` are dropped"),
        "{}",
        r.stderr
    );
    // With a signing key: the scenario's signature replaces the bank's.
    write(
        &d,
        "s.yaml",
        &scenario(
            "  card_keys: public.jwks.json\n  card_signing_key: rs256.private.jwk.json",
            bank,
            "",
        ),
    );
    let r = a2a_sim_in(&d, &["card", "s.yaml", "partner-bank"], None);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let checks = card::verify(&doc, &public_keys()).unwrap();
    assert_eq!(
        checks,
        [Check::Verified {
            kid: "card-test-rs256".into(),
            alg: "RS256"
        }]
    );
}

#[test]
fn tampered_card_is_an_agent_fault_that_needs_a_signing_key() {
    let fault = "faults:\n  - {agent: a, tampered_card: {}}\n";
    let d = folder("card-signing-fault", &scenario("  max_depth: 4", "", fault));
    let err = load_error(&d);
    assert!(
        err.contains("s.yaml:8:31: `tampered_card` breaks the signature of a signed card: it needs `policy.card_signing_key`"),
        "{err}"
    );
    write(
        &d,
        "s.yaml",
        &scenario("  card_signing_key: es256.private.jwk.json", "", fault),
    );
    let r = a2a_sim_in(&d, &["check", "s.yaml"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    // A key named but not loadable is its own error; the fault is not said to lack one.
    write(
        &d,
        "s.yaml",
        &scenario("  card_signing_key: missing.jwk.json", "", fault),
    );
    let err = load_error(&d);
    assert!(
        err.contains("cannot read the key file `missing.jwk.json`"),
        "{err}"
    );
    assert!(!err.contains("it needs `policy.card_signing_key`"), "{err}");
    write(
        &d,
        "s.yaml",
        &scenario("  card_signing_key: es256.private.jwk.json", "", fault),
    );
    // A run is unchanged by it (no card is served in process), and `card` prints the honest card.
    let r = a2a_sim_in(&d, &["card", "s.yaml", "a"], None);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(card::trusted(&card::verify(&doc, &public_keys()).unwrap()));
    // Settings it does not have, and a push host, are refused.
    for (faults, want) in [
        (
            "faults:\n  - {agent: a, tampered_card: {from: 1}}\n",
            "unknown field `from`",
        ),
        (
            "faults:\n  - {agent: a, tampered_card: {}, reset: {}}\n",
            "exactly one of `unavailable`, `slow`, `crash`, `http_error`, `reset`, `drop_stream`, `tampered_card`",
        ),
    ] {
        write(
            &d,
            "s.yaml",
            &scenario("  card_signing_key: es256.private.jwk.json", "", faults),
        );
        let err = load_error(&d);
        assert!(err.contains(want), "{want}\n{err}");
    }
    // The schema names the new keys.
    let r = a2a_sim_in(&d, &["schema"], None);
    for key in ["tampered_card", "card_signing_key", "card_keys"] {
        assert!(r.stdout.contains(&format!("\"{key}\"")), "{key}");
    }
}

#[test]
fn the_canonical_form_is_the_sdks() {
    let doc = json!({
        "name": "n",
        "signatures": [{"protected": "x", "signature": "y"}],
        "description": "",
        "iconUrl": null,
        "skills": [{"id": "s", "tags": [], "examples": [""]}],
        "capabilities": {
            "streaming": false,
            "extensions": [{"uri": "u", "required": false, "params": {"required": false, "n": 1.0, "big": 1e21, "small": 1e-7}}]
        },
        "securitySchemes": {"o": {"oauth2SecurityScheme": {"flows": {"authorizationCode": {"pkceRequired": false, "tokenUrl": "t"}}}}},
        "€": 1, "\u{10000}": 2, "\u{ffff}": 3,
    });
    let canonical = String::from_utf8(card::canonical(&doc).unwrap()).unwrap();
    assert_eq!(
        canonical,
        r#"{"capabilities":{"extensions":[{"params":{"big":1e+21,"n":1,"required":false,"small":1e-7},"uri":"u"}],"streaming":false},"name":"n","securitySchemes":{"o":{"oauth2SecurityScheme":{"flows":{"authorizationCode":{"tokenUrl":"t"}}}}},"skills":[{"id":"s"}],"€":1,"𐀀":2,"￿":3}"#
    );
    // Nesting past the SDK's bound has no canonical form, and no panic.
    let mut deep = json!(1);
    for _ in 0..200 {
        deep = json!({ "a": deep });
    }
    assert!(card::canonical(&json!({"name": "n", "x": deep})).is_err());
}

#[test]
fn the_card_keys_come_through_imports_relative_to_the_file_that_names_them() {
    let bank = "  - {card: partner.card.json, tenant: acme, clearance: internal, handler: [working: on it, completed: ok]}\n";
    let lib = scenario(
        "  card_signing_key: eddsa.private.jwk.json\n  card_keys: public.jwks.json",
        bank,
        "faults:\n  - {agent: a, tampered_card: {}}\n",
    )
    .replace("steps: []\n", "");
    let d = scratch("card-signing-imports");
    std::fs::create_dir_all(d.join("sub")).unwrap();
    for f in std::fs::read_dir(KEYS).unwrap() {
        let p = f.unwrap().path();
        std::fs::copy(&p, d.join("sub").join(p.file_name().unwrap())).unwrap();
    }
    write(&d, "sub/lib.yaml", &lib);
    write(&d, "top.yaml", "imports: [sub/lib.yaml]\nsteps: []\n");
    let r = a2a_sim_in(&d, &["card", "top.yaml", "partner-bank"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let checks = card::verify(&doc, &public_keys()).unwrap();
    assert_eq!(
        checks,
        [Check::Verified {
            kid: "card-test-eddsa".into(),
            alg: "EdDSA"
        }]
    );
    // Set differently in the importing file: a conflict naming both.
    write(
        &d,
        "top.yaml",
        "imports: [sub/lib.yaml]\npolicy:\n  card_signing_key: sub/es256.private.jwk.json\nsteps: []\n",
    );
    let r = a2a_sim_in(&d, &["check", "top.yaml"], None);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr
            .contains("`policy.card_signing_key` is already set differently in"),
        "{}",
        r.stderr
    );
}
