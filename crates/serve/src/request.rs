//! What a request brings besides its JSON: its caller (a named scenario caller or a bearer
//! token), its body within the size limit, and percent-encoded path and query parts.

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, HOST, TRANSFER_ENCODING};
use hyper::{Request, Response};
use scenario::escape::Escaped;
use serde_json::json;

use super::failure::{Failure, FailureKind};
use super::responses::*;
use super::state::State;

/// Who a request is from: its bearer token (with `keys`), else the caller its path prefix
/// (`/as/CALLER/`) or its `X-A2A-Sim-Caller` header names (both, they must agree), else
/// `--default-caller`. With `keys` a prefix never stands in for a token: a caller that holds one
/// must show it, and a prefix that names another caller than the token's is refused.
pub(super) fn caller_of(
    state: &State,
    req: &Request<Incoming>,
    prefix: Option<&str>,
) -> Result<usize, Failure> {
    caller_from(state, req.headers(), prefix)
}

/// [`caller_of`] from a request's headers (or a gRPC call's metadata, which are its headers).
pub(super) fn caller_from(
    state: &State,
    headers: &hyper::HeaderMap,
    prefix: Option<&str>,
) -> Result<usize, Failure> {
    let unauth = |m: String| Failure::new(FailureKind::Unauthenticated, m);
    let header = |name| headers.get(name).and_then(|h| h.to_str().ok());
    if headers.get_all("x-a2a-sim-caller").iter().count() > 1 {
        return Err(unauth("one `X-A2A-Sim-Caller` header a request".into()));
    }
    let named = match (prefix, header("x-a2a-sim-caller")) {
        (Some(p), Some(h)) if p != h => {
            return Err(unauth(format!(
                "the path names caller `{}` and `X-A2A-Sim-Caller` names `{}`: name one",
                Escaped(p),
                Escaped(h)
            )));
        }
        (Some(p), _) => Some(p),
        (None, h) => h,
    };
    let default = || {
        state
            .default_caller
            .ok_or_else(|| unauth("no caller: send `X-A2A-Sim-Caller: NAME`, or use the caller's URL prefix `/as/CALLER/agents/NAME/`".into()))
    };
    if state.keyed {
        // `Bearer` in any case (RFC 9110: the scheme is case-insensitive).
        let bearer = header(hyper::header::AUTHORIZATION.as_str()).and_then(|h| {
            let (scheme, token) = h.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        });
        // The token itself is never echoed.
        return match (bearer, named) {
            (Some(t), named) => {
                let c = state.bearers.get(t).copied().ok_or_else(|| {
                    unauth("the bearer token is not one a scenario caller holds".into())
                })?;
                // The token decides; a prefix or header naming someone else is refused.
                match named {
                    Some(n) if state.callers.get(n) != Some(&c) => Err(unauth(format!(
                        "the bearer token is not `{}`'s",
                        Escaped(n)
                    ))),
                    _ => Ok(c),
                }
            }
            // A caller without a token of its own is named, and meets the scenario's token
            // policy as it does in `run`; one with a token must show it.
            (None, Some(name)) => match state.callers.get(name) {
                Some(&c) if !state.bearers.values().any(|&b| b == c) => Ok(c),
                Some(_) => Err(unauth(format!(
                    "caller `{name}` holds a token: send it as `Authorization: Bearer <JWT>`"
                ))),
                None => Err(unauth(format!(
                    "`X-A2A-Sim-Caller: {name}` names no scenario caller"
                ))),
            },
            (None, None) if state.default_caller.is_some() => default(),
            (None, None) => Err(unauth(
                "this scenario has keys: send `Authorization: Bearer <caller's JWT>`".into(),
            )),
        };
    }
    match named {
        Some(name) => state.callers.get(name).copied().ok_or_else(|| {
            unauth(match prefix {
                Some(_) => format!(
                    "the path's caller `{}` is no scenario caller",
                    Escaped(name)
                ),
                None => format!("`X-A2A-Sim-Caller: {name}` names no scenario caller"),
            })
        }),
        None => default(),
    }
}

/// Why a request's `Host` is not one this server answers to, if it is not. A web page that
/// rebinds its own name to this machine's address (DNS rebinding) reaches the server under that
/// name: only IP addresses, `localhost` and the `--advertise-host` name are taken.
pub(super) fn foreign_host(state: &State, req: &Request<Incoming>) -> Option<String> {
    let authority = match req.uri().authority() {
        // An absolute request target names the host itself (RFC 9112 §3.2.2).
        Some(a) => a.as_str().to_string(),
        None => match req.headers().get(HOST).map(|h| h.to_str()) {
            Some(Ok(h)) => h.trim().to_string(),
            Some(Err(_)) => return Some("the Host header is not text".to_string()),
            None => return Some("a request needs a Host header".to_string()),
        },
    };
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split_once(']').map_or(v6, |(h, _)| h),
        None => authority
            .rsplit_once(':')
            .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()))
            .map_or(authority.as_str(), |(h, _)| h),
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let taken = host.parse::<std::net::IpAddr>().is_ok()
        || host == "localhost"
        || host.ends_with(".localhost")
        || state.advertised.as_deref() == Some(host.as_str());
    (!taken).then(|| {
        format!(
            "Host `{}` is not a name this server answers to: reach it by IP address, `localhost` or the name given to --advertise-host",
            authority.escape_debug()
        )
    })
}

/// Why a request's body is in a form this server does not read (RFC 9110's 415), if it is: a
/// content coding (gzip, say) other than `identity`, or a media type other than JSON's. A body
/// without a Content-Type is read as JSON; one without a body is not looked at.
pub(super) fn unsupported_media(req: &Request<Incoming>) -> Option<String> {
    let headers = req.headers();
    // HTTP/1.1: a request has a body when it says how long (and not 0) or how it is chunked.
    let has_body = headers.contains_key(TRANSFER_ENCODING)
        || headers
            .get(CONTENT_LENGTH)
            .is_some_and(|h| !h.to_str().is_ok_and(|v| v.trim() == "0"));
    if !has_body {
        return None;
    }
    for coding in headers.get_all(CONTENT_ENCODING) {
        let coding = coding.to_str().unwrap_or("?");
        let other = coding
            .split(',')
            .map(str::trim)
            .find(|c| !c.is_empty() && !c.eq_ignore_ascii_case("identity"));
        if let Some(c) = other {
            return Some(format!(
                "Content-Encoding `{}` is not read here: send the body as it is (identity)",
                c.escape_debug()
            ));
        }
    }
    let content_type = headers.get(CONTENT_TYPE)?;
    let text = content_type.to_str().unwrap_or("?");
    let mut params = text.split(';').map(str::trim);
    let media = params.next().unwrap_or_default().to_ascii_lowercase();
    let charset_ok = params.all(|p| match p.split_once('=') {
        Some((k, v)) if k.trim().eq_ignore_ascii_case("charset") => {
            v.trim().trim_matches('"').eq_ignore_ascii_case("utf-8")
        }
        _ => true,
    });
    if JSON_MEDIA.contains(&media.as_str()) && charset_ok {
        return None;
    }
    Some(format!(
        "Content-Type `{}` is not read here: send JSON as `application/json` (UTF-8)",
        text.escape_debug()
    ))
}

/// The media types a body is read as: JSON's, and A2A's name for its JSON.
const JSON_MEDIA: [&str; 2] = ["application/json", "application/a2a+json"];

pub(super) async fn read_body(
    state: &State,
    req: Request<Incoming>,
) -> Result<Bytes, Response<Body>> {
    let too_large = || {
        json_response(
            413,
            &json!({"error": {"code": 413, "status": "RESOURCE_EXHAUSTED", "message": format!("the request body is over {} bytes", state.max_body)}}),
        )
    };
    if let Some(len) = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.parse::<u64>().ok())
        && len > state.max_body as u64
    {
        return Err(too_large());
    }
    // A body trickled in a byte at a time holds the connection no longer than a slow head may.
    let read = Limited::new(req.into_body(), state.max_body).collect();
    let Ok(read) = tokio::time::timeout(state.body_timeout, read).await else {
        return Err(json_response(
            408,
            &json!({"error": {"code": 408, "status": "DEADLINE_EXCEEDED", "message": format!("the request body did not arrive within {} s", state.body_timeout.as_secs_f64())}}),
        ));
    };
    match read {
        Ok(b) => Ok(b.to_bytes()),
        Err(e)
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some() =>
        {
            Err(too_large())
        }
        Err(_) => Err(json_response(
            400,
            &json!({"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "the request body could not be read"}}),
        )),
    }
}

/// A query's `key=value` pairs as written (not decoded), empty ones left out; a key without `=`
/// has an empty value.
pub(super) fn query_pairs(query: &str) -> impl Iterator<Item = (&str, &str)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
}

/// Percent-decoding; `plus`: a `+` is a space (a query's form encoding, not a path's).
pub(super) fn url_decode(s: &str, plus: bool) -> String {
    let hex = |b: u8| (b as char).to_digit(16);
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' if plus => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
