//! `card --verify CARD --keys JWKS`: one line a signature (verified, does not verify, not
//! checked, malformed) and a verdict; exit 0 when one verifies and none is malformed, 1 when not
//! (or unsigned), 2 for a card or key set that cannot be read.

use std::path::Path;

use serde_json::{Value, json};

use crate::card_signing::{folder, scenario};
use crate::common::binary::{Run, a2a_sim_in, write};

fn verify_in(d: &Path, card_doc: &Value) -> Run {
    write(
        d,
        "card.json",
        &serde_json::to_string_pretty(card_doc).unwrap(),
    );
    a2a_sim_in(
        d,
        &[
            "card",
            "--verify",
            "card.json",
            "--keys",
            "public.jwks.json",
        ],
        None,
    )
}

#[test]
fn card_verify_says_which_signatures_verify_and_exits_by_the_verdict() {
    let d = folder(
        "card-signing-verify",
        &scenario("  card_signing_key: es256.private.jwk.json", "", ""),
    );
    let printed = a2a_sim_in(&d, &["card", "s.yaml", "a"], None);
    let good: Value = serde_json::from_str(&printed.stdout).unwrap();

    let r = verify_in(&d, &good);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("signature 1: verified (kid `card-test-es256`, ES256)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("card.json: verified (1 of 1 signatures verified)")
    );

    // Changed after signing: exit 1, and the line says why.
    let mut tampered = good.clone();
    tampered["description"] = json!("Another agent");
    let r = verify_in(&d, &tampered);
    assert_eq!(r.status, 1, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("signature 1: does not verify (kid `card-test-es256`)")
    );

    // A reordered, re-indented card still verifies: the canonical form is what is signed.
    let mut reordered = serde_json::Map::new();
    for (k, v) in good.as_object().unwrap().iter().rev() {
        reordered.insert(k.clone(), v.clone());
    }
    write(&d, "card.json", &serde_json::to_string(&reordered).unwrap());
    let r = a2a_sim_in(
        &d,
        &[
            "card",
            "--verify",
            "card.json",
            "--keys",
            "public.jwks.json",
        ],
        None,
    );
    assert_eq!(r.status, 0, "{}", r.stdout);

    // A signature by a key the set lacks is reported; one good signature is enough.
    let unknown_header = base64::Engine::encode(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
        br#"{"alg":"ES256","kid":"rotated-out","typ":"JOSE"}"#,
    );
    let mut two = good.clone();
    two["signatures"]
        .as_array_mut()
        .unwrap()
        .push(json!({"protected": unknown_header, "signature": "AAAA"}));
    let r = verify_in(&d, &two);
    assert_eq!(r.status, 0, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("signature 2: not checked: no key of public.jwks.json has kid `rotated-out`"),
        "{}",
        r.stdout
    );

    // A malformed entry fails the card even beside a good one.
    let mut malformed = good.clone();
    malformed["signatures"]
        .as_array_mut()
        .unwrap()
        .push(json!({"protected": "not base64!", "signature": "AAAA"}));
    let r = verify_in(&d, &malformed);
    assert_eq!(r.status, 1, "{}", r.stdout);
    assert!(r.stdout.contains("signature 2: malformed"), "{}", r.stdout);

    // `alg: none` and a shared secret's alg are malformed, never checked.
    for alg in ["none", "HS256"] {
        let h = base64::Engine::encode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            format!(r#"{{"alg":"{alg}","kid":"card-test-es256"}}"#),
        );
        let mut c = good.clone();
        c["signatures"] = json!([{"protected": h, "signature": ""}]);
        let r = verify_in(&d, &c);
        assert_eq!(r.status, 1, "{alg}: {}", r.stdout);
        assert!(r.stdout.contains("malformed"), "{alg}: {}", r.stdout);
    }

    // No signatures at all: nothing verifies.
    let mut unsigned = good.clone();
    unsigned.as_object_mut().unwrap().remove("signatures");
    let r = verify_in(&d, &unsigned);
    assert_eq!(r.status, 1);
    assert!(r.stdout.contains("carries no `signatures`"), "{}", r.stdout);

    // Bad input: exit 2.
    write(&d, "not-json.json", "{\"name\": ");
    let r = a2a_sim_in(
        &d,
        &[
            "card",
            "--verify",
            "not-json.json",
            "--keys",
            "public.jwks.json",
        ],
        None,
    );
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("not-json.json:1:"), "{}", r.stderr);
    let r = a2a_sim_in(
        &d,
        &[
            "card",
            "--verify",
            "card.json",
            "--keys",
            "es256.private.jwk.json",
        ],
        None,
    );
    assert_eq!(r.status, 2, "a private JWK is not a JWKS");
    let r = a2a_sim_in(&d, &["card", "--verify", "card.json"], None);
    assert_eq!(r.status, 2, "--verify needs --keys: {}", r.stderr);
}
