//! Every verification check, in order, with its verdict: `verify` stops at the first failure,
//! `token inspect` shows them all. A detail never contains the token or its signature.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Validation, decode};
use serde_json::{Map, Value};

use super::TokenPolicy;
use super::algorithm::Alg;
use super::keys::KeySet;
use engine::format_utc;
use engine::scenario::VerifiedToken;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail(String),
    /// Not checked (no keys given, or an earlier check failed that it depends on).
    Skipped(String),
}

#[derive(Debug, Clone)]
pub struct Check {
    pub name: &'static str,
    pub verdict: Verdict,
}

/// A token taken apart: what `token inspect` prints.
#[derive(Debug, Clone, Default)]
pub struct Inspection {
    pub header: Value,
    pub claims: Value,
    pub checks: Vec<Check>,
}

impl Inspection {
    fn push(&mut self, name: &'static str, verdict: Verdict) {
        self.checks.push(Check { name, verdict });
    }

    fn first_failure(&self) -> Option<&str> {
        self.checks.iter().find_map(|c| match &c.verdict {
            Verdict::Fail(why) => Some(why.as_str()),
            _ => None,
        })
    }
}

fn part(segment: &str) -> Option<Map<String, Value>> {
    let bytes = URL_SAFE_NO_PAD.decode(segment).ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// Seconds (a JSON number) as milliseconds, or None for a non-number.
fn millis(v: &Value) -> Option<i64> {
    let s = v.as_f64().filter(|s| s.is_finite())?;
    Some((s * 1000.0).clamp(i64::MIN as f64, i64::MAX as f64) as i64)
}

fn at(ms: i64) -> String {
    format_utc(ms)
}

/// Runs every check at `now_ms` (the scenario clock). Without `keys` the signature is skipped.
pub fn inspect(
    token: &str,
    keys: Option<&KeySet>,
    policy: &TokenPolicy,
    now_ms: i64,
) -> Inspection {
    let mut out = Inspection::default();
    let segments: Vec<&str> = token.trim().split('.').collect();
    let parsed = match segments.as_slice() {
        [h, p, _] => part(h).zip(part(p)),
        _ => None,
    };
    let Some((header, claims)) = parsed else {
        out.push(
            "format",
            Verdict::Fail(
                "malformed token: not three base64url segments with a JSON header and claims"
                    .to_string(),
            ),
        );
        return out;
    };
    out.header = Value::Object(header.clone());
    out.claims = Value::Object(claims.clone());
    if let Err(why) = crit_check(&header) {
        out.push("format", Verdict::Fail(why));
        return out;
    }
    out.push("format", Verdict::Pass);

    let alg = alg_check(&header, policy);
    out.push(
        "alg",
        alg.clone().err().map_or(Verdict::Pass, Verdict::Fail),
    );
    signature_checks(&mut out, token.trim(), &header, alg.ok(), keys);
    claim_checks(&mut out, &claims, policy, now_ms);
    out
}

/// RFC 7515 §4.1.11: the extensions a header's `crit` lists must be understood, or the token is
/// refused. The one understood is RFC 7797's `b64` when true (the usual encoding), as the
/// verifying crate reads it.
fn crit_check(header: &Map<String, Value>) -> Result<(), String> {
    let Some(crit) = header.get("crit") else {
        return Ok(());
    };
    let names: Option<Vec<&str>> = crit
        .as_array()
        .filter(|l| !l.is_empty())
        .and_then(|l| l.iter().map(Value::as_str).collect());
    let Some(names) = names else {
        return Err(
            "header `crit` is not a non-empty list of extension names (RFC 7515 §4.1.11)"
                .to_string(),
        );
    };
    let understood = |n: &&str| *n == "b64" && header.get("b64") == Some(&Value::Bool(true));
    match names.iter().find(|n| !understood(n)) {
        Some(n) => Err(format!(
            "header `crit` lists `{}`, an extension this verifier does not understand: a token with one is refused (RFC 7515 §4.1.11)",
            short(n)
        )),
        None if names.len() > 1 => Err("header `crit` lists `b64` more than once".to_string()),
        None => Ok(()),
    }
}

fn alg_check(header: &Map<String, Value>, policy: &TokenPolicy) -> Result<Alg, String> {
    let allowed = || {
        policy
            .algorithms
            .iter()
            .map(|a| a.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some(name) = header.get("alg").and_then(Value::as_str) else {
        return Err("claim missing: the header has no string `alg`".to_string());
    };
    match Alg::parse(name) {
        Some(a) if policy.algorithms.contains(&a) => Ok(a),
        _ => Err(format!(
            "alg not allowed: `{}` (allowed: {})",
            name.chars().take(20).collect::<String>(),
            allowed()
        )),
    }
}

fn signature_checks(
    out: &mut Inspection,
    token: &str,
    header: &Map<String, Value>,
    alg: Option<Alg>,
    keys: Option<&KeySet>,
) {
    let Some(keys) = keys else {
        for name in ["kid", "key type", "signature"] {
            out.push(name, Verdict::Skipped("no keys given".to_string()));
        }
        return;
    };
    let key = match header.get("kid").and_then(Value::as_str) {
        None => Err("claim missing: the header has no string `kid`".to_string()),
        Some(kid) => keys
            .find(kid)
            .ok_or_else(|| format!("unknown kid `{}`: no key in the JWKS has it", short(kid))),
    };
    out.push(
        "kid",
        key.as_ref()
            .err()
            .cloned()
            .map_or(Verdict::Pass, Verdict::Fail),
    );
    let (Ok(key), Some(alg)) = (key, alg) else {
        for name in ["key type", "signature"] {
            out.push(
                name,
                Verdict::Skipped("needs a known kid and an allowed alg".to_string()),
            );
        }
        return;
    };
    // An HMAC alg verified with a public key lets anyone who read the JWKS sign: never.
    let family = if key.family != alg.family {
        Err(format!(
            "alg `{}` does not fit key `{}` (kty {}): a key verifies only its own family's algorithms",
            alg.name,
            key.kid,
            key.family.kty()
        ))
    } else if key.alg.as_deref().is_some_and(|pinned| pinned != alg.name) {
        Err(format!(
            "alg `{}` is not the alg `{}` that key `{}` is pinned to",
            alg.name,
            key.alg.as_deref().unwrap_or_default(),
            key.kid
        ))
    } else {
        Ok(())
    };
    out.push(
        "key type",
        family.clone().err().map_or(Verdict::Pass, Verdict::Fail),
    );
    if family.is_err() {
        out.push(
            "signature",
            Verdict::Skipped("needs a key of the alg's family".to_string()),
        );
        return;
    }
    let mut validation = Validation::new(alg.jwt);
    // The claims are checked below against the scenario clock, not the wall clock.
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    let verdict = match decode::<Value>(token, &key.decoding, &validation) {
        Ok(_) => Verdict::Pass,
        Err(e) => Verdict::Fail(match e.kind() {
            ErrorKind::InvalidSignature => "signature invalid".to_string(),
            ErrorKind::InvalidAlgorithm => {
                format!("alg `{}` does not fit key `{}`", alg.name, key.kid)
            }
            _ => "signature invalid: the signature cannot be checked (malformed)".to_string(),
        }),
    };
    out.push("signature", verdict);
}

/// A claim value cut short for a message: a claim may be long, and is never a secret, but a
/// message stays one line.
fn short(s: &str) -> String {
    let mut t: String = s.chars().take(40).collect();
    if t.len() < s.len() {
        t.push('…');
    }
    t
}

fn claim_checks(out: &mut Inspection, claims: &Map<String, Value>, p: &TokenPolicy, now_ms: i64) {
    let leeway = p.leeway_ms;
    let now = at(now_ms);
    let ls = leeway / 1000;
    let time = |name: &str| claims.get(name).map(|v| millis(v).ok_or(()));
    let exp = match time("exp") {
        None => Verdict::Fail("claim missing: `exp`".to_string()),
        Some(Err(())) => Verdict::Fail("claim `exp` is not a number".to_string()),
        // Valid strictly before exp (RFC 7519 §4.1.4), plus the leeway.
        Some(Ok(exp)) if now_ms >= exp.saturating_add(leeway) => {
            Verdict::Fail(format!("expired at {} (now {now}, leeway {ls} s)", at(exp)))
        }
        Some(Ok(_)) => Verdict::Pass,
    };
    out.push("exp", exp);
    let nbf = match time("nbf") {
        None => Verdict::Pass,
        Some(Err(())) => Verdict::Fail("claim `nbf` is not a number".to_string()),
        Some(Ok(nbf)) if now_ms < nbf.saturating_sub(leeway) => Verdict::Fail(format!(
            "not valid before {} (now {now}, leeway {ls} s)",
            at(nbf)
        )),
        Some(Ok(_)) => Verdict::Pass,
    };
    out.push("nbf", nbf);
    let iat = match time("iat") {
        None => Verdict::Pass,
        Some(Err(())) => Verdict::Fail("claim `iat` is not a number".to_string()),
        Some(Ok(iat)) if iat > now_ms.saturating_add(leeway) => Verdict::Fail(format!(
            "issued in the future at {} (now {now}, leeway {ls} s)",
            at(iat)
        )),
        Some(Ok(_)) => Verdict::Pass,
    };
    out.push("iat", iat);
    let iss = match (claims.get("iss"), &p.issuer) {
        (_, None) => Verdict::Skipped("no issuer expected".to_string()),
        (None, _) => Verdict::Fail("claim missing: `iss`".to_string()),
        (Some(Value::String(s)), Some(want)) if s == want => Verdict::Pass,
        (Some(Value::String(s)), Some(want)) => {
            Verdict::Fail(format!("issuer `{}` is not `{want}`", short(s)))
        }
        (Some(_), _) => Verdict::Fail("claim `iss` is not a string".to_string()),
    };
    out.push("iss", iss);
    let aud = match (claims.get("aud"), &p.audience) {
        (_, None) => Verdict::Skipped("no audience expected".to_string()),
        (None, _) => Verdict::Fail("claim missing: `aud`".to_string()),
        (Some(v), Some(want)) => {
            let list: Option<Vec<&str>> = match v {
                Value::String(s) => Some(vec![s.as_str()]),
                Value::Array(items) => items.iter().map(Value::as_str).collect(),
                _ => None,
            };
            match list {
                None => {
                    Verdict::Fail("claim `aud` is not a string or a list of strings".to_string())
                }
                Some(l) if l.contains(&want.as_str()) => Verdict::Pass,
                Some(_) => Verdict::Fail(format!("audience does not include `{want}`")),
            }
        }
    };
    out.push("aud", aud);
    for name in ["sub", "tenant", "classification"] {
        let verdict = match claims.get(name) {
            None => Verdict::Fail(format!("claim missing: `{name}`")),
            Some(Value::String(s)) if !s.is_empty() => Verdict::Pass,
            Some(_) => Verdict::Fail(format!("claim `{name}` is not a non-empty string")),
        };
        out.push(name, verdict);
    }
    let scope = match claims.get("scope") {
        None | Some(Value::String(_)) => Verdict::Pass,
        Some(_) => Verdict::Fail("claim `scope` is not a space-separated string".to_string()),
    };
    out.push("scope", scope);
    let act = match act_chain(claims) {
        Ok(_) => Verdict::Pass,
        Err(why) => Verdict::Fail(why),
    };
    out.push("act", act);
}

/// Nesting deeper than this is refused: a chain is never that long, and recursion stays bounded.
const MAX_ACT_DEPTH: usize = 64;

/// The `act` claim flattened, earliest actor first (the most recent actor is outermost).
fn act_chain(claims: &Map<String, Value>) -> Result<Vec<String>, String> {
    let mut chain = Vec::new();
    let mut cur = claims.get("act");
    while let Some(v) = cur {
        let Some(sub) = v
            .get("sub")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        else {
            return Err(
                "claim `act` is not an actor `{sub, act?}` with a string `sub`".to_string(),
            );
        };
        if chain.len() == MAX_ACT_DEPTH {
            return Err(format!(
                "claim `act` nests deeper than {MAX_ACT_DEPTH} actors"
            ));
        }
        chain.push(sub.to_string());
        cur = v.get("act");
    }
    chain.reverse();
    Ok(chain)
}

/// Verifies a token: the verified claims, or the first failed check's detail.
pub fn verify(
    token: &str,
    keys: Option<&KeySet>,
    policy: &TokenPolicy,
    now_ms: i64,
) -> Result<VerifiedToken, String> {
    let inspection = inspect(token, keys, policy, now_ms);
    if let Some(why) = inspection.first_failure() {
        return Err(why.to_string());
    }
    if keys.is_none() {
        return Err("signature not checked: no keys".to_string());
    }
    let claims = inspection.claims.as_object().cloned().unwrap_or_default();
    let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_string);
    Ok(VerifiedToken {
        iss: text("iss").unwrap_or_default(),
        sub: text("sub").unwrap_or_default(),
        kid: inspection
            .header
            .get("kid")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        exp: claims
            .get("exp")
            .and_then(millis)
            .unwrap_or(0)
            .div_euclid(1000),
        tenant: text("tenant"),
        classification: text("classification"),
        scope: text("scope")
            .unwrap_or_default()
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        act_chain: act_chain(&claims)?,
    })
}

/// The claims of a token read without checking anything (for the loader's name table and
/// `check`'s finder): never a basis for trust.
pub fn unverified_claims(token: &str) -> Option<Map<String, Value>> {
    let segments: Vec<&str> = token.trim().split('.').collect();
    match segments.as_slice() {
        [_, p, _] => part(p),
        _ => None,
    }
}
