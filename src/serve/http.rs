//! The HTTP side: the listener and its shutdown (signals, `--exit-after`, `--idle-exit`), the
//! cards, routing under `/agents/NAME/`, the body limit, the caller, and the HTTP+JSON binding
//! (JSON-RPC is `jsonrpc.rs`; responses and streams `responses.rs`; webhooks `webhooks.rs`).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::CONTENT_LENGTH;
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};

use super::Options;
use super::owner::{self, Answer, Failure, FailureKind, Job, Reply, Req};
use super::protocol::{self, Op};
use super::responses::*;
use super::sse::Streams;
use super::{jsonrpc, webhooks};
use crate::engine::scenario::Scenario;
use crate::protocol::version::A2aVersion;

pub(super) struct State {
    agents: HashMap<String, usize>,
    /// Each agent's served card, rendered once.
    cards: Vec<Bytes>,
    /// Each agent's `defaultOutputModes`, as its card names them.
    pub(super) output_modes: Vec<Vec<String>>,
    callers: HashMap<String, usize>,
    /// Verified callers by their bearer token (scenarios with `keys`).
    bearers: HashMap<String, usize>,
    keyed: bool,
    root: Option<usize>,
    tx: std::sync::Mutex<Sender<Job>>,
    max_body: usize,
    exit_after: Option<u64>,
    served: AtomicU64,
    /// Milliseconds since `start` of the last request's arrival.
    last: AtomicU64,
    start: Instant,
    stop: Notify,
    /// Turns true when the server stops: paced streams then send what is left at once.
    /// The live streams: stopping, and how many are open.
    pub(super) streams: Streams,
}

fn card_body(scenario: &Scenario, ix: usize, base: &str, v: A2aVersion) -> Result<Bytes, String> {
    let agent = &scenario.agents[ix];
    let url = format!("{base}/agents/{}/", agent.name());
    let mut card = crate::protocol::card::card_json(&agent.card, v)
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
                o.insert(
                    "supportedInterfaces".into(),
                    json!([
                        {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                        {"url": url.trim_end_matches('/'), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
                    ]),
                );
            }
        }
    }
    serde_json::to_vec_pretty(&card)
        .map(Bytes::from)
        .map_err(|e| e.to_string())
}

pub async fn serve(scenario: Scenario, options: Options) -> Result<(), String> {
    let scenario: &'static Scenario = Box::leak(Box::new(scenario));
    let listener = TcpListener::bind(options.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", options.listen))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let base = match &options.advertise_host {
        None => format!("http://{addr}"),
        Some(host) => {
            // An IPv6 literal takes brackets in a URL.
            let host = match host.parse::<std::net::Ipv6Addr>() {
                Ok(v6) => format!("[{v6}]"),
                Err(_) => host.clone(),
            };
            format!("http://{host}:{}", addr.port())
        }
    };
    let cards = (0..scenario.agents.len())
        .map(|ix| card_body(scenario, ix, &base, options.version))
        .collect::<Result<Vec<_>, _>>()?;
    let output_modes = cards
        .iter()
        .map(|card| {
            let card: Value = serde_json::from_slice(card).unwrap_or_default();
            card["defaultOutputModes"]
                .as_array()
                .map(|m| {
                    m.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    let agents = scenario
        .agents
        .iter()
        .enumerate()
        .map(|(i, a)| (a.name().to_string(), i))
        .collect();
    let callers = scenario
        .callers
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.clone(), i))
        .collect();
    let bearers = scenario
        .callers
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.token.clone().map(|t| (t, i)))
        .collect();
    let root = options
        .root_agent
        .as_ref()
        .and_then(|r| scenario.agents.iter().position(|a| a.name() == r));
    let (tx, rx) = std::sync::mpsc::channel::<Job>();
    let (deliver, notifications) = tokio::sync::mpsc::unbounded_channel();
    let tls = webhooks::tls_connector(options.push_ca.as_deref())?;
    let delivery = tokio::spawn(webhooks::deliver_all(notifications, tls));
    let settings = owner::Settings {
        tick_ms: options.tick_ms.unwrap_or(scenario.clock.tick_ms),
        report: options.report.clone(),
        version: options.version,
        deliver,
    };
    let world = std::thread::Builder::new()
        .name("a2a-sim-world".into())
        .spawn(move || owner::run(scenario, settings, rx))
        .map_err(|e| e.to_string())?;
    let (closing_tx, closing_rx) = watch::channel(false);
    let state = Arc::new(State {
        agents,
        cards,
        output_modes,
        callers,
        bearers,
        keyed: scenario.tokens.is_some(),
        root,
        tx: std::sync::Mutex::new(tx),
        max_body: options.max_body,
        exit_after: options.exit_after,
        served: AtomicU64::new(0),
        last: AtomicU64::new(0),
        start: Instant::now(),
        stop: Notify::new(),
        streams: Streams::new(closing_rx.clone()),
    });
    // Handlers in place before anyone is told the server is ready.
    let signals = shutdown_signal();
    if let Some(path) = &options.ready_file {
        std::fs::write(path, format!("{addr}\n"))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let mut connections = tokio::task::JoinSet::new();
    tokio::pin!(signals);
    let idle = options.idle_exit;
    // When a stream was last seen open: the server idles from a stream's end, not its request's.
    let streaming = std::cell::Cell::new(Duration::ZERO);
    loop {
        let idle_check = async {
            match idle {
                Some(limit) => loop {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    if state.streams.open() > 0 {
                        streaming.set(state.start.elapsed());
                        continue;
                    }
                    let last = Duration::from_millis(state.last.load(Ordering::Relaxed));
                    if state
                        .start
                        .elapsed()
                        .saturating_sub(last.max(streaming.get()))
                        >= limit
                    {
                        return;
                    }
                },
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else {
                    // Out of descriptors, say: let connections close before trying again.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let state = state.clone();
                let mut closing = closing_rx.clone();
                connections.spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        let state = state.clone();
                        async move { Ok::<_, Infallible>(handle(&state, req).await) }
                    });
                    let conn = hyper::server::conn::http1::Builder::new()
                        .keep_alive(true)
                        .serve_connection(TokioIo::new(stream), service);
                    tokio::pin!(conn);
                    tokio::select! {
                        _ = conn.as_mut() => {}
                        _ = closing.changed() => {
                            conn.as_mut().graceful_shutdown();
                            let _ = conn.await;
                        }
                    }
                });
            }
            _ = &mut signals => break,
            _ = state.stop.notified() => break,
            _ = idle_check => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    // The world goes first: requests already queued are answered, live subscriptions get their
    // last events and end, and the report is written; then in-flight responses finish and idle
    // keep-alive connections close.
    let (reply, done) = tokio::sync::oneshot::channel();
    if let Ok(tx) = state.tx.lock() {
        let _ = tx.send(Job {
            req: Req::Shutdown,
            reply,
        });
    }
    let _ = done.await;
    let _ = closing_tx.send(true);
    let _ = tokio::time::timeout(Duration::from_secs(10), async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    let done = match world.join() {
        Ok(r) => r,
        Err(_) => Err("the world thread stopped unexpectedly".into()),
    };
    // Webhooks still queued are delivered (their retries included) before the process ends.
    let _ = tokio::time::timeout(Duration::from_secs(30), delivery).await;
    done
}

/// SIGINT or SIGTERM; registered when called, so a signal sent right after is not lost.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let handlers = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        );
        async move {
            let (Ok(mut term), Ok(mut int)) = handlers else {
                return std::future::pending().await;
            };
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// The binding a request arrived on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Binding {
    JsonRpc,
    Rest,
}

async fn handle(state: &State, req: Request<Incoming>) -> Response<Body> {
    state
        .last
        .store(state.start.elapsed().as_millis() as u64, Ordering::Relaxed);
    let r = route(state, req).await;
    state
        .last
        .store(state.start.elapsed().as_millis() as u64, Ordering::Relaxed);
    let n = state.served.fetch_add(1, Ordering::SeqCst) + 1;
    if state.exit_after.is_some_and(|limit| n >= limit) {
        state.stop.notify_one();
    }
    r
}

async fn route(state: &State, req: Request<Incoming>) -> Response<Body> {
    let path = req.uri().path().to_string();
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
        return match method {
            Method::GET => response(200, "application/json", state.cards[agent].clone()),
            _ => method_not_allowed(),
        };
    }
    // REST routes; everything else POSTed at the agent's root is JSON-RPC.
    let rest_route: Option<(Op, Option<String>, Option<String>)> = match (&method, rest) {
        (&Method::POST, "" | "/") => None,
        (&Method::POST, "/message:send") => Some((Op::Send, None, None)),
        (&Method::POST, "/message:stream") => Some((Op::Stream, None, None)),
        (&Method::GET, "/tasks") => Some((Op::List, None, None)),
        (&Method::GET, "/extendedAgentCard") => Some((Op::ExtendedCard, None, None)),
        (m, r) if r.starts_with("/tasks/") => {
            let tail = &r["/tasks/".len()..];
            let parts: Vec<&str> = tail.split('/').collect();
            match (m, parts.as_slice()) {
                (&Method::POST, [id]) if id.ends_with(":cancel") => Some((
                    Op::Cancel,
                    Some(id.trim_end_matches(":cancel").into()),
                    None,
                )),
                (&Method::GET | &Method::POST, [id]) if id.ends_with(":subscribe") => Some((
                    Op::Subscribe,
                    Some(id.trim_end_matches(":subscribe").into()),
                    None,
                )),
                (&Method::GET, [id]) => Some((Op::Get, Some(id.to_string()), None)),
                (&Method::POST, [id, "pushNotificationConfigs"]) => {
                    Some((Op::SetPush, Some(id.to_string()), None))
                }
                (&Method::GET, [id, "pushNotificationConfigs"]) => {
                    Some((Op::ListPush, Some(id.to_string()), None))
                }
                (&Method::GET, [id, "pushNotificationConfigs", c]) => {
                    Some((Op::GetPush, Some(id.to_string()), Some(c.to_string())))
                }
                (&Method::DELETE, [id, "pushNotificationConfigs", c]) => {
                    Some((Op::DeletePush, Some(id.to_string()), Some(c.to_string())))
                }
                _ => return not_found(&format!("no route {m} {r}")),
            }
        }
        (_, "" | "/" | "/message:send" | "/message:stream" | "/tasks") => {
            return method_not_allowed();
        }
        (m, r) => return not_found(&format!("no route {m} {r}")),
    };
    let binding = if rest_route.is_some() {
        Binding::Rest
    } else {
        Binding::JsonRpc
    };
    let caller = caller_of(state, &req);
    let a2a_version = req
        .headers()
        .get("a2a-version")
        .map(|h| A2aVersion::parse(h.to_str().unwrap_or("").trim()));
    let query = req.uri().query().map(str::to_string);
    let body = match read_body(state, req).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    match rest_route {
        Some((op, task, config)) => {
            let caller = match caller {
                Ok(c) => c,
                Err(f) => return rest_failure(&f),
            };
            let mut params = if body.is_empty() {
                json!({})
            } else {
                match serde_json::from_slice::<Value>(&body) {
                    Ok(v) => v,
                    Err(e) => {
                        return rest_failure(&Failure::new(
                            FailureKind::InvalidParams,
                            format!("the body is not JSON: {e}"),
                        ));
                    }
                }
            };
            // The query first: the ids of the path are the ones that count.
            if let (Some(q), Some(o)) = (query, params.as_object_mut()) {
                for pair in q.split('&').filter(|p| !p.is_empty()) {
                    let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                    o.insert(url_decode(k, true), json!(url_decode(v, true)));
                }
            }
            if let (Some(id), Some(o)) = (task, params.as_object_mut()) {
                // Push configs name their task `taskId` (the config is `id`); others `id`.
                let push = matches!(
                    op,
                    Op::SetPush | Op::GetPush | Op::ListPush | Op::DeletePush
                );
                let key = if push { "taskId" } else { "id" };
                o.insert(key.into(), json!(url_decode(&id, false)));
            }
            if let (Some(c), Some(o)) = (config, params.as_object_mut()) {
                o.insert("id".into(), json!(url_decode(&c, false)));
            }
            // `A2A-Version`, when sent, picks the shapes (the binding's own is 1.0).
            let version = match a2a_version {
                None => A2aVersion::V1_0,
                Some(Some(v)) => v,
                Some(None) => {
                    return rest_failure(&Failure::new(
                        FailureKind::VersionNotSupported,
                        "A2A-Version: this server speaks 1.0 and 0.3",
                    ));
                }
            };
            let req = match protocol::request(
                op,
                version,
                &params,
                caller,
                agent,
                &state.output_modes[agent],
            ) {
                Ok(r) => r,
                Err(f) => return rest_failure(&f),
            };
            let stream = matches!(op, Op::Stream | Op::Subscribe);
            match ask(state, req).await {
                // A reply on a stream (`message.taskId`): the task it left, as the stream's one event.
                Answer::Task(t) if stream => sse([stream_task(t, version)]),
                Answer::Task(t) => {
                    let t = protocol::trim_history(t, protocol::answer_history(op, &params));
                    match op {
                        Op::Send if version == A2aVersion::V1_0 => {
                            json_response(200, &json!({ "task": t }))
                        }
                        _ => json_response(200, &t),
                    }
                }
                Answer::Events(events) if stream => paced(&state.streams, events, |e| e),
                Answer::Events(mut events) => {
                    json_response(200, &events.pop().map(|(e, _)| e).unwrap_or_default())
                }
                Answer::Live(events) => live(&state.streams, events, |e| e),
                Answer::Value(v) => json_response(200, &v),
                Answer::Error(f) if stream => sse([protocol::rest_error(&f).1]),
                Answer::Error(f) => rest_failure(&f),
            }
        }
        None => {
            debug_assert!(binding == Binding::JsonRpc);
            jsonrpc::json_rpc(state, &body, caller, agent, a2a_version).await
        }
    }
}

/// Percent-decoding; `plus`: a `+` is a space (a query's form encoding, not a path's).
fn url_decode(s: &str, plus: bool) -> String {
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

pub(super) async fn ask(state: &State, req: Req) -> Answer {
    let (reply, answer) = tokio::sync::oneshot::channel();
    let sent = match state.tx.lock() {
        Ok(tx) => tx.send(Job { req, reply }).is_ok(),
        Err(_) => false,
    };
    if !sent {
        return Answer::Error(Failure::new(
            FailureKind::Internal,
            "the server is stopping",
        ));
    }
    match answer.await {
        Ok(Reply { answer, delay }) => {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            answer
        }
        Err(_) => Answer::Error(Failure::new(
            FailureKind::Internal,
            "the server is stopping",
        )),
    }
}

fn caller_of(state: &State, req: &Request<Incoming>) -> Result<usize, Failure> {
    let unauth = |m: String| Failure::new(FailureKind::Unauthenticated, m);
    let header = |name| req.headers().get(name).and_then(|h| h.to_str().ok());
    if req.headers().get_all("x-a2a-sim-caller").iter().count() > 1 {
        return Err(unauth("one `X-A2A-Sim-Caller` header a request".into()));
    }
    let named = header("x-a2a-sim-caller");
    if state.keyed {
        // `Bearer` in any case (RFC 9110: the scheme is case-insensitive).
        let bearer = header(hyper::header::AUTHORIZATION.as_str()).and_then(|h| {
            let (scheme, token) = h.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        });
        // The token itself is never echoed.
        return match (bearer, named) {
            (Some(t), _) => state.bearers.get(t).copied().ok_or_else(|| {
                unauth("the bearer token is not one a scenario caller holds".into())
            }),
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
            (None, None) => Err(unauth(
                "this scenario has keys: send `Authorization: Bearer <caller's JWT>`".into(),
            )),
        };
    }
    match named {
        Some(name) => state.callers.get(name).copied().ok_or_else(|| {
            unauth(format!(
                "`X-A2A-Sim-Caller: {name}` names no scenario caller"
            ))
        }),
        None => Err(unauth(
            "no caller: send `X-A2A-Sim-Caller: NAME` naming a scenario caller".into(),
        )),
    }
}

async fn read_body(state: &State, req: Request<Incoming>) -> Result<Bytes, Response<Body>> {
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
    match Limited::new(req.into_body(), state.max_body)
        .collect()
        .await
    {
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
