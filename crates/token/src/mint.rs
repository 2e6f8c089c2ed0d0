//! Minting: the platform's nested-hop tokens (RFC 8693 token-exchange shape) and `token mint`.
//! Signatures are deterministic but for RSA-PSS (ECDSA takes RFC 6979 nonces), so the same
//! claims give the same token.

use jsonwebtoken::{Header, encode};
use serde_json::{Map, Value, json};

use super::keys::PrivateKey;
use engine::scenario::Grant;

/// `act` for a chain (earliest first): the most recent actor outermost (RFC 8693 §4.1).
pub fn act_claim(chain: &[&str]) -> Option<Value> {
    chain.iter().fold(None, |inner: Option<Value>, sub| {
        let mut actor = Map::new();
        actor.insert("sub".into(), json!(sub));
        if let Some(inner) = inner {
            actor.insert("act".into(), inner);
        }
        Some(Value::Object(actor))
    })
}

/// The claims of a nested hop's token: `sub` delegates, `act` is the chain so far.
pub fn exchange_claims(
    grant: &Grant,
    iss: &str,
    aud: Option<&str>,
    iat: i64,
    exp: i64,
) -> Map<String, Value> {
    let mut c = Map::new();
    c.insert("iss".into(), json!(iss));
    c.insert("sub".into(), json!(grant.sub));
    if let Some(aud) = aud {
        c.insert("aud".into(), json!(aud));
    }
    c.insert("iat".into(), json!(iat));
    c.insert("exp".into(), json!(exp));
    c.insert("tenant".into(), json!(grant.tenant));
    c.insert("classification".into(), json!(grant.classification));
    c.insert("scope".into(), json!(grant.scope.join(" ")));
    if let Some(act) = act_claim(&grant.act_chain) {
        c.insert("act".into(), act);
    }
    c
}

/// Signs claims with a private key; the header names its kid (when it has one).
pub fn sign(key: &PrivateKey, claims: &Map<String, Value>) -> Result<String, String> {
    let mut header = Header::new(key.alg.jwt);
    if !key.kid.is_empty() {
        header.kid = Some(key.kid.clone());
    }
    encode(&header, claims, &key.encoding)
        .map_err(|e| format!("cannot sign with key `{}`: {e}", key.kid))
}
