//! The rules A2A 1.0.1 sets for every HTTP binding: the `A2A-Version` a request asks for (no
//! header, or an empty one, is 0.3), the optional `/{tenant}/` segment of the HTTP+JSON paths,
//! and the proto field names a ProtoJSON parser takes beside the JSON ones (`task_id` for
//! `taskId`).

use serde_json::{Map, Value};

use super::failure::{Failure, FailureKind};
use output::protocol::A2aVersion;

/// The version a request's `A2A-Version` value asks for. Missing or empty is 0.3 (A2A 1.0
/// §3.2.6); any 1.x is 1.0 (a server answers in the newest minor it has of the major asked
/// for, as the official SDK server does); anything else is refused.
pub(super) fn negotiate(value: Option<&[u8]>) -> Result<A2aVersion, Failure> {
    let text = match value {
        None => "",
        Some(v) => std::str::from_utf8(v).unwrap_or("?").trim(),
    };
    if text.is_empty() {
        return Ok(A2aVersion::V0_3);
    }
    let mut parts = text.split('.');
    let number = |p: Option<&str>| p.and_then(|p| p.parse::<u32>().ok());
    let (major, minor) = (number(parts.next()), parts.next().map(|p| p.parse::<u32>()));
    let rest_ok = parts.all(|p| p.parse::<u32>().is_ok());
    match (major, minor, rest_ok) {
        (Some(1), None | Some(Ok(_)), true) => Ok(A2aVersion::V1_0),
        (Some(0), Some(Ok(3)), true) => Ok(A2aVersion::V0_3),
        _ => Err(Failure::new(
            FailureKind::VersionNotSupported,
            format!(
                "A2A-Version `{}` is not served here: this server speaks 1.0 and 0.3",
                text.escape_debug()
            ),
        )),
    }
}

/// The `A2A-Version` a request names: its header, else its query parameter of that name (A2A
/// 1.0 lets a client send it either way).
pub(super) fn asked_version<B>(req: &hyper::Request<B>) -> Option<Vec<u8>> {
    if let Some(h) = req.headers().get("a2a-version") {
        return Some(h.as_bytes().to_vec());
    }
    super::request::query_pairs(req.uri().query()?).find_map(|(k, v)| {
        is_version_param(k).then(|| super::request::url_decode(v, true).into_bytes())
    })
}

/// Whether a query parameter is `A2A-Version` (not a filter of the request).
pub(super) fn is_version_param(key: &str) -> bool {
    key.eq_ignore_ascii_case("a2a-version")
}

/// `/{tenant}/REST` of an HTTP+JSON path under an agent: the tenant and the path without it,
/// when the path has a first segment that is none of the binding's own and a route follows it.
pub(super) fn split_tenant(rest: &str) -> Option<(String, &str)> {
    let tail = rest.strip_prefix('/')?;
    let (first, _) = tail.split_once('/')?;
    let own = [
        "tasks",
        "message:send",
        "message:stream",
        "extendedAgentCard",
    ];
    if first.is_empty() || own.contains(&first) || first.starts_with('.') {
        return None;
    }
    let after = &rest[first.len() + 1..];
    let routed = after == "/message:send"
        || after == "/message:stream"
        || after == "/tasks"
        || after == "/extendedAgentCard"
        || after.starts_with("/tasks/");
    routed.then(|| (super::request::url_decode(first, false), after))
}

/// A request's tenant, from its path or its `tenant` member: when both name one they must
/// agree (the path's is the request's field, as the proto's HTTP mapping binds it).
pub(super) fn check_tenant(path: Option<&str>, params: &Value) -> Result<(), Failure> {
    match (path, params.get("tenant").and_then(Value::as_str)) {
        (Some(p), Some(b)) if !b.is_empty() && p != b => Err(Failure::new(
            FailureKind::InvalidParams,
            format!(
                "the path names tenant `{}` and the body `{}`: name one",
                p.escape_debug(),
                b.escape_debug()
            ),
        )),
        _ => Ok(()),
    }
}

/// A 1.0 request's top-level members under their JSON names: a ProtoJSON parser takes a field's
/// proto name (`task_id`, `history_length`) as well, so the official SDK servers do too. Only
/// the top level is renamed: what a message, metadata or data part holds is the client's own.
pub(super) fn json_names(params: Value) -> Value {
    let Value::Object(o) = params else {
        return params;
    };
    if !o.keys().any(|k| k.contains('_')) {
        return Value::Object(o);
    }
    let mut out = Map::new();
    for (k, v) in o {
        let camel = lower_camel(&k);
        // The JSON name, when sent too, wins.
        if camel != k && out.contains_key(&camel) {
            continue;
        }
        out.insert(camel, v);
    }
    Value::Object(out)
}

fn lower_camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.extend(c.to_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn versions() {
        assert_eq!(negotiate(None).unwrap(), A2aVersion::V0_3);
        assert_eq!(negotiate(Some(b" ")).unwrap(), A2aVersion::V0_3);
        assert_eq!(negotiate(Some(b"1.0")).unwrap(), A2aVersion::V1_0);
        assert_eq!(negotiate(Some(b"1.1")).unwrap(), A2aVersion::V1_0);
        assert_eq!(negotiate(Some(b"1")).unwrap(), A2aVersion::V1_0);
        assert_eq!(negotiate(Some(b"0.3.0")).unwrap(), A2aVersion::V0_3);
        for bad in [&b"2.0"[..], b"0.2", b"0", b"1.x", b"abc", b"\xff"] {
            assert!(negotiate(Some(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn tenants() {
        assert_eq!(
            split_tenant("/acme/message:send"),
            Some(("acme".into(), "/message:send"))
        );
        assert_eq!(
            split_tenant("/a%20b/tasks/t-1:subscribe"),
            Some(("a b".into(), "/tasks/t-1:subscribe"))
        );
        assert_eq!(split_tenant("/tasks/t-1"), None);
        assert_eq!(split_tenant("/message:send"), None);
        assert_eq!(split_tenant("/acme/other"), None);
        assert_eq!(split_tenant("/.well-known/agent-card.json"), None);
        assert!(check_tenant(Some("a"), &json!({"tenant": "b"})).is_err());
        assert!(check_tenant(Some("a"), &json!({"tenant": "a"})).is_ok());
        assert!(check_tenant(None, &json!({"tenant": "b"})).is_ok());
    }

    #[test]
    fn proto_names() {
        let p = json_names(json!({"task_id": "t", "history_length": 2, "metadata": {"a_b": 1}}));
        assert_eq!(
            p,
            json!({"taskId": "t", "historyLength": 2, "metadata": {"a_b": 1}})
        );
        let p = json_names(json!({"taskId": "json", "task_id": "proto"}));
        assert_eq!(p["taskId"], "json");
    }
}
