//! A request's way to its answer: the Host check, the cards, the caller's prefix
//! (`/as/CALLER/`) and the agent under `/agents/NAME/`, then the binding that answers it (JSON-RPC
//! at the agent's root, HTTP+JSON on its routes) with the request's trace id in scope; each
//! request counted for `--exit-after` and `--idle-exit`.

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::{Method, Request, Response};
use serde_json::json;

use super::request::{caller_of, foreign_host, read_body, unsupported_media};
use super::responses::*;
use super::state::{State, TRACE};
use super::{binding, jsonrpc};
use engine::scenario::Scenario;
use output::protocol::A2aVersion;

/// An agent's served card; `grpc`: the gRPC port's `HOST:PORT` and the prefix its tenants take
/// (`as/CALLER/` for a caller's card), when it is on.
pub(super) fn card_body(
    scenario: &Scenario,
    ix: usize,
    base: &str,
    v: A2aVersion,
    grpc: Option<(&str, &str)>,
) -> Result<Bytes, String> {
    let agent = &scenario.agents[ix];
    let url = format!("{base}/agents/{}/", agent.name());
    let mut card = output::protocol::card::card_json(&agent.card, v)
        .map_err(|e| format!("agent `{}`: {e}", agent.name()))?;
    // The served address replaces the scenario's; 1.0 also names the HTTP+JSON binding.
    if let Some(o) = card.as_object_mut() {
        match v {
            A2aVersion::V0_3 => {
                o.insert("url".into(), json!(url));
                o.insert(
                    "additionalInterfaces".into(),
                    json!([{"url": url, "transport": "JSONRPC"}, {"url": url.trim_end_matches('/'), "transport": "HTTP+JSON"}]),
                );
            }
            A2aVersion::V1_0 => {
                let mut interfaces = json!([
                    {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                    {"url": url.trim_end_matches('/'), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
                ]);
                // gRPC: the SDK clients dial a bare HOST:PORT, other tools read a grpc:// URL;
                // the tenant names the agent on the one port.
                if let (Some((addr, prefix)), Some(list)) = (grpc, interfaces.as_array_mut()) {
                    let tenant = format!("{prefix}agents/{}", agent.name());
                    for url in [addr.to_string(), format!("grpc://{addr}")] {
                        list.push(json!({"url": url, "protocolBinding": "GRPC", "protocolVersion": "1.0", "tenant": tenant}));
                    }
                }
                o.insert("supportedInterfaces".into(), interfaces);
            }
        }
    }
    output::protocol::sign_card(scenario, ix, &mut card, true)
        .map_err(|e| format!("agent `{}`: {e}", agent.name()))?;
    serde_json::to_vec_pretty(&card)
        .map(Bytes::from)
        .map_err(|e| e.to_string())
}

pub(super) async fn handle(state: &State, req: Request<Incoming>) -> Response<Body> {
    state.touch();
    let r = route(state, req).await;
    state.touch();
    state.served_one();
    r
}

async fn route(state: &State, req: Request<Incoming>) -> Response<Body> {
    if let Some(why) = foreign_host(state, &req) {
        return misdirected(&why);
    }
    let full = req.uri().path().to_string();
    if let Some(tail) = full.strip_prefix("/webhooks/") {
        return super::webhook_in::webhook(state, tail, req).await;
    }
    // `/as/CALLER/agents/NAME/...`: the caller named by the path, for clients that can send no
    // header (an agent under test that was given this URL).
    let (prefix_caller, path) = match full.strip_prefix("/as/") {
        Some(tail) => match tail.split_once('/') {
            Some((caller, rest)) if rest.starts_with("agents/") => {
                (Some(caller.to_string()), format!("/{rest}"))
            }
            _ => {
                return not_found("a caller's prefix is /as/CALLER/agents/NAME/");
            }
        },
        None => (None, full.clone()),
    };
    let (agent, rest) = match path.strip_prefix("/agents/") {
        Some(tail) => {
            let (name, rest) = match tail.find('/') {
                Some(i) => (&tail[..i], &tail[i..]),
                None => (tail, ""),
            };
            match state.agents.get(name) {
                Some(&ix) => (ix, rest.to_string()),
                None => return not_found(&format!("no agent `{name}` is served here")),
            }
        }
        None => match state.root {
            Some(ix) => (ix, path.clone()),
            None => return not_found("agents are served under /agents/NAME/"),
        },
    };
    let method = req.method().clone();
    let rest = rest.as_str();
    if rest == "/.well-known/agent-card.json" || rest == "/.well-known/agent.json" {
        if method != Method::GET {
            return method_not_allowed();
        }
        // Under a caller's prefix, the card's interfaces keep the prefix, so a client that
        // follows the card stays that caller.
        return match &prefix_caller {
            None => response(200, "application/json", state.cards[agent].clone()),
            Some(caller) => match state.callers.get(caller.as_str()) {
                None => not_found(&format!(
                    "no caller `{}` in this scenario",
                    scenario::escape::Escaped(caller)
                )),
                Some(_) => {
                    let base = format!("{}/as/{caller}", state.base);
                    let prefix = format!("as/{caller}/");
                    let grpc = state.grpc.as_deref().map(|g| (g, prefix.as_str()));
                    match card_body(state.scenario, agent, &base, state.version, grpc) {
                        Ok(card) => response(200, "application/json", card),
                        Err(e) => json_response(500, &json!({"error": e})),
                    }
                }
            },
        };
    }
    // The HTTP+JSON binding's optional `/{tenant}/` before its routes.
    let (tenant, rest) = match binding::split_tenant(rest) {
        Some((t, r)) => (Some(t), r),
        None => (None, rest),
    };
    // REST routes; everything else POSTed at the agent's root is JSON-RPC.
    let rest_route = match super::rest::route(&method, rest) {
        Ok(r) => r,
        Err(refused) => return refused.response(),
    };
    if let Some(why) = unsupported_media(&req) {
        return unsupported_media_type(rest_route.is_some(), &why);
    }
    let caller = caller_of(state, &req, prefix_caller.as_deref());
    let a2a_version = binding::negotiate(binding::asked_version(&req).as_deref());
    let query = req.uri().query().map(str::to_string);
    let trace = trace_id(req.headers());
    let body = match read_body(state, req).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    TRACE
        .scope(trace, async {
            match rest_route {
                Some(route) => {
                    let asked = super::rest::Asked {
                        query,
                        tenant,
                        version: a2a_version,
                    };
                    super::rest::answer(state, route, &body, asked, caller, agent).await
                }
                None => jsonrpc::json_rpc(state, &body, caller, agent, a2a_version).await,
            }
        })
        .await
}

/// The trace id of a request's W3C `traceparent` (version 00, ids not all zero), if it has one.
pub(super) fn trace_id(headers: &hyper::HeaderMap) -> Option<u128> {
    let mut values = headers.get_all("traceparent").iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return None;
    };
    let mut fields = value.to_str().ok()?.trim().split('-');
    let (version, trace, parent) = (fields.next()?, fields.next()?, fields.next()?);
    let lower_hex =
        |s: &str, n| s.len() == n && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if version != "00" || !lower_hex(trace, 32) || !lower_hex(parent, 16) {
        return None;
    }
    u128::from_str_radix(trace, 16).ok().filter(|&t| t != 0)
}
