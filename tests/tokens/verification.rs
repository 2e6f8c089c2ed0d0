//! Verifying a caller's token: every claim rule at its edges (`exp`, `nbf`, `iat` and the leeway),
//! the header rules (alg, kid, key family), a tampered or foreign signature, and malformed tokens
//! refused without a panic.

use a2a_sim::engine::scenario::VerifiedToken;
use a2a_sim::token::{Alg, KeySet, PrivateKey, TokenPolicy, sign, verify};
use serde_json::{Map, Value, json};

use super::{AUD, EPOCH, ISS, claims, json_file, keys_dir, segments, token};

fn jwks() -> KeySet {
    KeySet::from_jwks(&json_file("jwks.json")).unwrap()
}

fn policy(algs: &[&str], leeway_s: i64) -> TokenPolicy {
    TokenPolicy {
        issuer: Some(ISS.into()),
        audience: Some(AUD.into()),
        algorithms: algs.iter().map(|a| Alg::parse(a).unwrap()).collect(),
        leeway_ms: leeway_s * 1000,
    }
}

/// Verifies at `EPOCH + at_ms / 1000` with leeway `leeway_s`, EdDSA allowed.
fn check(token: &str, at_ms: i64, leeway_s: i64) -> Result<VerifiedToken, String> {
    verify(
        token,
        Some(&jwks()),
        &policy(&["EdDSA", "RS256"], leeway_s),
        EPOCH * 1000 + at_ms,
    )
}

fn refused(result: Result<VerifiedToken, String>) -> String {
    match result {
        Ok(_) => panic!("the token was accepted"),
        Err(why) => why,
    }
}

#[test]
fn a_good_token_gives_its_claims() {
    let t = token(|c| {
        c.insert(
            "act".into(),
            json!({"sub": "payments-agent", "act": {"sub": "portal"}}),
        );
    });
    let vt = check(&t, 0, 0).unwrap();
    assert_eq!(
        (vt.sub.as_str(), vt.kid.as_str(), vt.exp),
        ("orchestrator", "acme-idp-2026", EPOCH + 60)
    );
    assert_eq!(vt.scope, ["payments:release"]);
    // The most recent actor is outermost; the chain reads earliest first.
    assert_eq!(vt.act_chain, ["portal", "payments-agent"]);
}

#[test]
fn exp_is_exclusive_and_the_leeway_extends_it() {
    let t = token(|_| {});
    // (at ms after the epoch, leeway s, accepted)
    for (at, leeway, ok) in [
        (59_999, 0, true),
        (60_000, 0, false), // exactly at exp: expired (RFC 7519: valid strictly before)
        (64_999, 5, true),
        (65_000, 5, false),
    ] {
        let r = check(&t, at, leeway);
        assert_eq!(r.is_ok(), ok, "at {at} ms, leeway {leeway} s: {r:?}");
        if !ok {
            assert!(refused(r).starts_with("expired at 2026-01-01T00:01:00"));
        }
    }
}

#[test]
fn nbf_and_iat_with_the_leeway_on_both_sides() {
    let nbf = token(|c| {
        c.insert("nbf".into(), json!(EPOCH + 10));
    });
    let iat = token(|c| {
        c.insert("iat".into(), json!(EPOCH + 10));
    });
    for (at, leeway, ok) in [
        (9_999, 0, false),
        (10_000, 0, true),
        (5_000, 5, true),
        (4_999, 5, false),
    ] {
        let r = check(&nbf, at, leeway);
        assert_eq!(r.is_ok(), ok, "nbf at {at}, leeway {leeway}: {r:?}");
        if !ok {
            assert!(refused(r).starts_with("not valid before"));
        }
        let r = check(&iat, at, leeway);
        assert_eq!(r.is_ok(), ok, "iat at {at}, leeway {leeway}: {r:?}");
        if !ok {
            assert!(refused(r).starts_with("issued in the future"));
        }
    }
}

#[test]
fn each_claim_rule_refuses_with_its_reason() {
    type Edit = fn(&mut Map<String, Value>);
    let rows: [(Edit, &str); 15] = [
        (|c| drop(c.remove("exp")), "claim missing: `exp`"),
        (
            |c| drop(c.insert("iss".into(), json!(7))),
            "claim `iss` is not a string",
        ),
        (
            |c| drop(c.insert("aud".into(), json!("other"))),
            "audience does not include `a2a-sim.acme.example`",
        ),
        (
            |c| drop(c.insert("sub".into(), json!(12))),
            "claim `sub` is not a non-empty string",
        ),
        (
            |c| drop(c.insert("nbf".into(), json!("later"))),
            "claim `nbf` is not a number",
        ),
        (
            |c| drop(c.insert("exp".into(), json!("soon"))),
            "claim `exp` is not a number",
        ),
        (|c| drop(c.remove("iss")), "claim missing: `iss`"),
        (
            |c| drop(c.insert("iss".into(), json!("https://evil.example"))),
            "issuer `https://evil.example` is not",
        ),
        (|c| drop(c.remove("aud")), "claim missing: `aud`"),
        (
            |c| drop(c.insert("aud".into(), json!(["other"]))),
            "audience does not include",
        ),
        (|c| drop(c.remove("sub")), "claim missing: `sub`"),
        (|c| drop(c.remove("tenant")), "claim missing: `tenant`"),
        (
            |c| drop(c.insert("classification".into(), json!(3))),
            "claim `classification` is not",
        ),
        (
            |c| drop(c.insert("scope".into(), json!(["a"]))),
            "claim `scope` is not",
        ),
        (
            |c| drop(c.insert("act".into(), json!({"act": {}}))),
            "claim `act` is not an actor",
        ),
    ];
    for (edit, want) in rows {
        let why = refused(check(&token(edit), 0, 0));
        assert!(why.starts_with(want), "{why:?} should start with {want:?}");
    }
    // An audience list that contains ours is fine.
    assert!(
        check(
            &token(|c| drop(c.insert("aud".into(), json!(["x", AUD])))),
            0,
            0
        )
        .is_ok()
    );
}

fn b64(v: &Value) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(serde_json::to_vec(v).unwrap())
}

#[test]
fn header_rules_alg_kid_and_key_family() {
    let good = segments(&token(|_| {}));
    let with_header = |h: Value| format!("{}.{}.{}", b64(&h), good[1], good[2]);
    let rows = [
        (json!({"alg": "none"}), "alg not allowed: `none`"),
        (
            json!({"alg": "HS256", "kid": "acme-idp-2026"}),
            "alg not allowed: `HS256`",
        ),
        (
            json!({"kid": "acme-idp-2026"}),
            "claim missing: the header has no string `alg`",
        ),
        (
            json!({"alg": "EdDSA"}),
            "claim missing: the header has no string `kid`",
        ),
        (
            json!({"alg": "EdDSA", "kid": "nobody"}),
            "unknown kid `nobody`",
        ),
        (
            json!({"alg": "RS256", "kid": "acme-idp-2026"}),
            "alg `RS256` does not fit key `acme-idp-2026`",
        ),
    ];
    for (header, want) in rows {
        let why = refused(check(&with_header(header), 0, 0));
        assert!(why.starts_with(want), "{why:?} should start with {want:?}");
    }
    // `crit`: an extension the header says must be understood, and is not, is named; a `crit`
    // that is not a non-empty list is refused as such.
    let crit = [
        (json!(["exp"]), "header `crit` lists `exp`, an extension"),
        (json!(["b64", "urn:x"]), "header `crit` lists `urn:x`"),
        (json!([]), "header `crit` is not a non-empty list"),
        (json!("exp"), "header `crit` is not a non-empty list"),
    ];
    for (list, want) in crit {
        let header = json!({"alg": "EdDSA", "kid": "acme-idp-2026", "b64": true, "crit": list});
        let why = refused(check(&with_header(header), 0, 0));
        assert!(why.starts_with(want), "{why:?} should start with {want:?}");
    }
    // `none` with an empty signature, as attackers send it, even if a policy lists everything.
    let none = std::fs::read_to_string(keys_dir().join("alg-none.jwt")).unwrap();
    let all: Vec<&str> = Alg::names().collect();
    assert!(
        refused(verify(&none, Some(&jwks()), &policy(&all, 0), EPOCH * 1000)).contains("`none`")
    );
}

#[test]
fn hmac_is_never_verified_with_a_public_key() {
    let confused = std::fs::read_to_string(keys_dir().join("hs256-confusion.jwt")).unwrap();
    let why = refused(verify(
        &confused,
        Some(&jwks()),
        &policy(&["HS256", "RS256"], 0),
        EPOCH * 1000,
    ));
    assert!(
        why.contains("does not fit key `acme-rsa-2026` (kty RSA)"),
        "{why}"
    );
    // And HMAC does verify with an `oct` key of its own.
    let secret = json!({"kty": "oct", "kid": "shared", "alg": "HS256", "k": "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0"});
    let keys = KeySet::from_jwks(&json!({"keys": [secret]})).unwrap();
    let t = sign(
        &PrivateKey::from_jwk(&secret, false).unwrap(),
        &claims(|_| {}),
    )
    .unwrap();
    assert!(verify(&t, Some(&keys), &policy(&["HS256"], 0), EPOCH * 1000).is_ok());
    // An EdDSA token naming the `oct` key is refused by family, not tried as a secret.
    let ed = segments(&token(|_| {}));
    let forged = format!(
        "{}.{}.{}",
        b64(&json!({"alg": "EdDSA", "kid": "shared"})),
        ed[1],
        ed[2]
    );
    let why = refused(verify(
        &forged,
        Some(&keys),
        &policy(&["EdDSA", "HS256"], 0),
        EPOCH * 1000,
    ));
    assert!(why.contains("(kty oct)"), "{why}");
}

#[test]
fn a_tampered_or_foreign_signature_is_refused() {
    let s = segments(&token(|_| {}));
    let edited = b64(&Value::Object(claims(|c| {
        drop(c.insert("scope".into(), json!("admin")))
    })));
    let tampered = format!("{}.{edited}.{}", s[0], s[2]);
    assert_eq!(refused(check(&tampered, 0, 0)), "signature invalid");
    let rogue = std::fs::read_to_string(keys_dir().join("unknown-key.jwt")).unwrap();
    assert!(refused(check(&rogue, 0, 0)).starts_with("unknown kid `rogue-2026`"));
}

#[test]
fn malformed_tokens_are_refused_never_a_panic() {
    let long = "e".repeat(100_000);
    for t in [
        "",
        ".",
        "..",
        "a.b",
        "a.b.c.d",
        "eyJ.eyJ.",
        "%%%.***.!!!",
        long.as_str(),
        "eyJhbGciOiJFZERTQSJ9.bm90IGpzb24.AA",
    ] {
        let why = refused(check(t, 0, 0));
        assert!(why.starts_with("malformed token"), "{t:?}: {why}");
    }
    // Deeper than the chain limit, and deeper than the JSON parser's own limit.
    for (depth, want) in [(100, "nests deeper than"), (300, "malformed token")] {
        let deep = (0..depth).fold(
            json!({"sub": "x"}),
            |inner, _| json!({"sub": "a", "act": inner}),
        );
        let why = refused(check(&token(|c| drop(c.insert("act".into(), deep))), 0, 0));
        assert!(why.contains(want), "{depth}: {why}");
    }
}

#[test]
fn minted_tokens_are_deterministic() {
    assert_eq!(token(|_| {}), token(|_| {}));
}
