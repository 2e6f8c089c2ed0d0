//! Signed agent cards (A2A §8.4): a JWS with a detached payload, the payload being the RFC 8785
//! (JCS) canonical form of the card without its `signatures`. Compatible with the official Python
//! SDK's signer and verifier: before canonicalizing, empty strings, lists and objects and `null`
//! are dropped (recursively, as the SDK's cleaning does), and so are the two proto3 booleans
//! without presence that its ProtoJSON omits when false (`capabilities.extensions[].required`,
//! an OAuth flow's `pkceRequired`).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::crypto;
use serde_json::{Map, Value, json};

use super::algorithm::{Alg, Family};
use super::keys::{KeySet, PrivateKey};

/// What a card carries its signatures in.
pub const SIGNATURES: &str = "signatures";

/// The bytes a card's signatures cover: its canonical form without `signatures`.
pub fn canonical(card: &Value) -> Result<Vec<u8>, String> {
    let Some(obj) = card.as_object() else {
        return Err("an agent card is a JSON object".to_string());
    };
    let mut unsigned = obj.clone();
    unsigned.remove(SIGNATURES);
    drop_implicit_defaults(&mut unsigned);
    let cleaned = clean(Value::Object(unsigned), 0)?.unwrap_or(Value::Object(Map::new()));
    serde_jcs::to_vec(&cleaned).map_err(|e| format!("the card has no canonical form: {e}"))
}

/// The proto3 booleans without presence, where ProtoJSON leaves out `false`: an extension's
/// `required` and an OAuth flow's `pkceRequired` (elsewhere, in an extension's `params`, a `false`
/// is data and stays).
fn drop_implicit_defaults(card: &mut Map<String, Value>) {
    let is_false = |m: &Map<String, Value>, k: &str| m.get(k) == Some(&Value::Bool(false));
    if let Some(Value::Array(exts)) = card
        .get_mut("capabilities")
        .and_then(|c| c.get_mut("extensions"))
    {
        for ext in exts.iter_mut().filter_map(Value::as_object_mut) {
            if is_false(ext, "required") {
                ext.remove("required");
            }
        }
    }
    if let Some(Value::Object(schemes)) = card.get_mut("securitySchemes") {
        let flows = schemes
            .values_mut()
            .filter_map(|s| s.get_mut("oauth2SecurityScheme"))
            .filter_map(|s| s.get_mut("flows"))
            .filter_map(Value::as_object_mut)
            .flat_map(|f| f.values_mut())
            .filter_map(Value::as_object_mut);
        for flow in flows {
            if is_false(flow, "pkceRequired") {
                flow.remove("pkceRequired");
            }
        }
    }
}

/// Nesting deeper than this is refused rather than recursed into (the SDK's bound too).
const MAX_DEPTH: usize = 128;

/// The card as the SDK canonicalizes it: empty values gone, proto3 defaults without presence gone.
fn clean(v: Value, depth: usize) -> Result<Option<Value>, String> {
    if depth > MAX_DEPTH {
        return Err(format!("the card nests deeper than {MAX_DEPTH} levels"));
    }
    Ok(match v {
        Value::Null => None,
        Value::String(s) if s.is_empty() => None,
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.extend(clean(item, depth + 1)?);
            }
            (!out.is_empty()).then_some(Value::Array(out))
        }
        Value::Object(members) => {
            let mut out = Map::new();
            for (k, v) in members {
                if let Some(v) = clean(v, depth + 1)? {
                    out.insert(k, v);
                }
            }
            (!out.is_empty()).then_some(Value::Object(out))
        }
        other => Some(other),
    })
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Replaces the card's `signatures` with one made with `key` (its protected header: `alg`, `kid`,
/// `typ: JOSE`, and `jku` when given). EdDSA, RS* and ES* signatures are deterministic.
pub fn sign(card: &mut Value, key: &PrivateKey, jku: Option<&str>) -> Result<(), String> {
    let payload = canonical(card)?;
    let mut header = json!({"alg": key.alg.name, "kid": key.kid, "typ": "JOSE"});
    if let Some(jku) = jku {
        header["jku"] = json!(jku);
    }
    let protected = b64(header.to_string().as_bytes());
    let input = format!("{protected}.{}", b64(&payload));
    let signature = crypto::sign(input.as_bytes(), &key.encoding, key.alg.jwt)
        .map_err(|e| format!("cannot sign the card with key `{}`: {e}", key.kid))?;
    if let Some(obj) = card.as_object_mut() {
        obj.insert(
            SIGNATURES.into(),
            json!([{"protected": protected, "signature": signature}]),
        );
    }
    Ok(())
}

/// What one of a card's signatures comes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    Verified {
        kid: String,
        alg: &'static str,
    },
    /// A key with this kid exists, and the signature does not verify with it.
    Invalid {
        kid: String,
        why: String,
    },
    /// No key has this kid.
    UnknownKey {
        kid: String,
    },
    /// Not a JWS signature entry at all.
    Malformed {
        why: String,
    },
}

/// A card's signatures checked against `keys` (matched by `kid`). `Err`: the card is not an
/// object, or carries no `signatures` list to check.
pub fn verify(card: &Value, keys: &KeySet) -> Result<Vec<Check>, String> {
    let list = match card.get(SIGNATURES) {
        None => return Err("the card carries no `signatures`".to_string()),
        Some(Value::Array(list)) if list.is_empty() => {
            return Err("the card's `signatures` is empty".to_string());
        }
        Some(Value::Array(list)) => list,
        Some(_) => return Err("`signatures` must be a list".to_string()),
    };
    let payload = b64(&canonical(card)?);
    Ok(list.iter().map(|s| check(s, &payload, keys)).collect())
}

fn malformed(why: impl Into<String>) -> Check {
    Check::Malformed { why: why.into() }
}

fn check(entry: &Value, payload: &str, keys: &KeySet) -> Check {
    let text = |member: &str| entry.get(member).and_then(Value::as_str);
    let (Some(protected), Some(signature)) = (text("protected"), text("signature")) else {
        return malformed("a signature needs `protected` and `signature`, both strings");
    };
    let header: Value = match URL_SAFE_NO_PAD
        .decode(protected.trim_end_matches('='))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
    {
        Some(h @ Value::Object(_)) => h,
        _ => return malformed("`protected` is not a base64url JSON object"),
    };
    if entry.get("header").is_some_and(|h| !h.is_object()) {
        return malformed("`header` must be an object");
    }
    let kid = header
        .get("kid")
        .or_else(|| entry.get("header").and_then(|h| h.get("kid")))
        .and_then(Value::as_str);
    let Some(kid) = kid.filter(|k| !k.is_empty()) else {
        return malformed("the header names no `kid`, so no key can be chosen");
    };
    let kid = kid.to_string();
    let Some(name) = header.get("alg").and_then(Value::as_str) else {
        return malformed("the protected header names no `alg`");
    };
    let alg = match Alg::parse(name) {
        Some(a) if a.family != Family::Hmac => a,
        Some(_) => {
            return malformed(format!(
                "alg `{name}` is a shared secret's: a card is signed with a private key"
            ));
        }
        None => return malformed(format!("unknown alg `{name}`")),
    };
    let Some(key) = keys.find(&kid) else {
        return Check::UnknownKey { kid };
    };
    let invalid = |why: String| Check::Invalid {
        kid: kid.clone(),
        why,
    };
    if key.family != alg.family || key.alg.as_deref().is_some_and(|a| a != alg.name) {
        return invalid(format!("alg `{}` is not this key's", alg.name));
    }
    let input = format!("{protected}.{payload}");
    match crypto::verify(signature, input.as_bytes(), &key.decoding, alg.jwt) {
        Ok(true) => Check::Verified { kid, alg: alg.name },
        Ok(false) => invalid(
            "the signature does not match the card (changed after signing, or signed with another key)"
                .to_string(),
        ),
        Err(e) => invalid(format!("the signature cannot be checked: {e}")),
    }
}

/// Whether a checked card is to be trusted: at least one signature verifies and none is
/// malformed.
pub fn trusted(checks: &[Check]) -> bool {
    checks.iter().any(|c| matches!(c, Check::Verified { .. }))
        && !checks.iter().any(|c| matches!(c, Check::Malformed { .. }))
}

/// The signer a scenario with `policy.card_signing_key` serves and prints its cards with.
#[derive(Debug)]
pub struct CardSigner {
    pub key: PrivateKey,
}

impl engine::scenario::CardSigning for CardSigner {
    fn sign(&self, card: &mut Value) -> Result<(), String> {
        sign(card, &self.key, None)
    }
}
