//! Cards' security: the bearer-JWT scheme an agent that requires a verified token advertises, and
//! `securitySchemes` / `security` (0.3) ⇄ `securitySchemes` / `securityRequirements` (1.0) for
//! cards from files.

use serde_json::{Map, Value, json};

use crate::protocol::A2aVersion;

/// The scheme's name in `securitySchemes`.
pub const BEARER: &str = "bearer";
const DESCRIPTION: &str = "A JWT (RFC 7519) signed by a key of the platform's JWKS; nested calls carry RFC 8693 actor chains";

/// `securitySchemes` and the requirement key with its value, for an agent that requires a token:
/// the requirement's scopes are the agent's required scopes.
pub fn bearer(scopes: &[String], v: A2aVersion) -> [(&'static str, Value); 2] {
    match v {
        A2aVersion::V0_3 => [
            (
                "securitySchemes",
                json!({BEARER: {"type": "http", "scheme": "bearer", "bearerFormat": "JWT", "description": DESCRIPTION}}),
            ),
            ("security", json!([{BEARER: scopes}])),
        ],
        A2aVersion::V1_0 => [
            (
                "securitySchemes",
                json!({BEARER: {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT", "description": DESCRIPTION}}}),
            ),
            (
                "securityRequirements",
                json!([{"schemes": {BEARER: {"list": scopes}}}]),
            ),
        ],
    }
}

/// 0.3 `type` ⇄ 1.0 oneof member, and the members that are renamed (0.3 name, 1.0 name).
/// Members renamed between the versions: (0.3 name, 1.0 name).
type Renames = &'static [(&'static str, &'static str)];

const SCHEMES: [(&str, &str, Renames); 5] = [
    ("http", "httpAuthSecurityScheme", &[]),
    ("apiKey", "apiKeySecurityScheme", &[("in", "location")]),
    (
        "oauth2",
        "oauth2SecurityScheme",
        &[("oauth2MetadataUrl", "oauth2MetadataUrl")],
    ),
    ("openIdConnect", "openIdConnectSecurityScheme", &[]),
    ("mutualTLS", "mtlsSecurityScheme", &[]),
];

fn renamed(renames: &[(&str, &str)], key: &str, to_v1: bool) -> String {
    renames
        .iter()
        .find(|(a, b)| if to_v1 { *a == key } else { *b == key })
        .map_or(key, |(a, b)| if to_v1 { b } else { a })
        .to_string()
}

fn scheme_to_v1(name: &str, s: &Value) -> Result<Value, String> {
    let obj = s
        .as_object()
        .ok_or(format!("securitySchemes.{name} is not an object"))?;
    let ty = obj.get("type").and_then(Value::as_str).unwrap_or_default();
    let Some((_, member, renames)) = SCHEMES.iter().find(|(t, _, _)| *t == ty) else {
        return Err(format!("securitySchemes.{name} has an unknown type `{ty}`"));
    };
    let mut inner = Map::new();
    for (k, v) in obj.iter().filter(|(k, _)| *k != "type") {
        if *member == "oauth2SecurityScheme"
            && k == "flows"
            && v.as_object().is_some_and(|f| f.len() > 1)
        {
            return Err(format!(
                "securitySchemes.{name} has several OAuth flows; A2A 1.0 holds one"
            ));
        }
        inner.insert(renamed(renames, k, true), v.clone());
    }
    Ok(json!({*member: inner}))
}

fn scheme_to_v03(name: &str, s: &Value) -> Result<Value, String> {
    let obj = s
        .as_object()
        .filter(|o| o.len() == 1)
        .ok_or(format!("securitySchemes.{name} is not one scheme member"))?;
    let (member, inner) = obj.iter().next().ok_or("empty scheme")?;
    let Some((ty, _, renames)) = SCHEMES.iter().find(|(_, m, _)| m == member) else {
        return Err(format!(
            "securitySchemes.{name} has an unknown member `{member}`"
        ));
    };
    let mut out = Map::new();
    out.insert("type".into(), json!(ty));
    for (k, v) in inner.as_object().into_iter().flatten() {
        out.insert(renamed(renames, k, false), v.clone());
    }
    Ok(Value::Object(out))
}

fn schemes(
    obj: &Map<String, Value>,
    f: fn(&str, &Value) -> Result<Value, String>,
) -> Result<Option<Value>, String> {
    let Some(s) = obj.get("securitySchemes") else {
        return Ok(None);
    };
    let mut out = Map::new();
    for (name, scheme) in s.as_object().ok_or("securitySchemes is not an object")? {
        out.insert(name.clone(), f(name, scheme)?);
    }
    Ok(Some(Value::Object(out)))
}

/// 0.3 `security` (a list of `{scheme: [scopes]}`) as 1.0 `securityRequirements` (a list of
/// `{schemes: {scheme: {list: [scopes]}}}`); `at` names the field in errors.
fn requirements_to_v1(reqs: &Value, at: &str) -> Result<Value, String> {
    let mut list = Vec::new();
    for r in reqs.as_array().ok_or(format!("{at} is not a list"))? {
        let mut schemes = Map::new();
        for (name, scopes) in r
            .as_object()
            .ok_or(format!("a requirement in {at} is not an object"))?
        {
            schemes.insert(name.clone(), json!({"list": scopes}));
        }
        list.push(json!({"schemes": schemes}));
    }
    Ok(Value::Array(list))
}

/// 1.0 `securityRequirements` as 0.3 `security`.
fn requirements_to_v03(reqs: &Value, at: &str) -> Result<Value, String> {
    let mut list = Vec::new();
    for r in reqs.as_array().ok_or(format!("{at} is not a list"))? {
        let mut req = Map::new();
        let schemes = r.get("schemes").and_then(Value::as_object);
        for (name, scopes) in schemes.into_iter().flatten() {
            req.insert(
                name.clone(),
                scopes.get("list").cloned().unwrap_or(json!([])),
            );
        }
        list.push(Value::Object(req));
    }
    Ok(Value::Array(list))
}

/// A requirement key of a card or a skill and its name and conversion in the other version:
/// 0.3 `security` ⇄ 1.0 `securityRequirements`. `None`: not a requirement key of `from`'s
/// version.
#[allow(clippy::type_complexity)]
pub fn requirement_key(
    key: &str,
    to: A2aVersion,
) -> Option<(&'static str, fn(&Value, &str) -> Result<Value, String>)> {
    match (key, to) {
        ("security", A2aVersion::V1_0) => Some(("securityRequirements", requirements_to_v1)),
        ("securityRequirements", A2aVersion::V0_3) => Some(("security", requirements_to_v03)),
        _ => None,
    }
}

/// The card's security in the other version, inserted into `out`.
pub fn convert(
    obj: &Map<String, Value>,
    to: A2aVersion,
    out: &mut Map<String, Value>,
) -> Result<(), String> {
    let f = match to {
        A2aVersion::V1_0 => scheme_to_v1,
        A2aVersion::V0_3 => scheme_to_v03,
    };
    if let Some(s) = schemes(obj, f)? {
        out.insert("securitySchemes".into(), s);
    }
    let from = match to {
        A2aVersion::V1_0 => "security",
        A2aVersion::V0_3 => "securityRequirements",
    };
    if let (Some(reqs), Some((name, convert))) = (obj.get(from), requirement_key(from, to)) {
        out.insert(name.into(), convert(reqs, from)?);
    }
    Ok(())
}
