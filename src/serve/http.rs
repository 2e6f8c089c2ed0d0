//! The HTTP side: routing under `/agents/NAME/`, the body limit, the caller, JSON-RPC envelopes,
//! the HTTP+JSON binding, SSE framing, and shutdown (signals, `--exit-after`, `--idle-exit`).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};

use super::Options;
use super::owner::{self, Answer, Failure, FailureKind, Job, Reply, Req};
use super::protocol::{self, Op};
use super::sse::{self, LiveBody};
use crate::engine::scenario::Scenario;
use crate::protocol::version::A2aVersion;

type Body = BoxBody<Bytes, Infallible>;

struct State {
    agents: HashMap<String, usize>,
    /// Each agent's served card, rendered once.
    cards: Vec<Bytes>,
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
    closing: watch::Receiver<bool>,
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
    let host = options
        .advertise_host
        .clone()
        .unwrap_or_else(|| addr.ip().to_string());
    let base = format!("http://{host}:{}", addr.port());
    let cards = (0..scenario.agents.len())
        .map(|ix| card_body(scenario, ix, &base, options.version))
        .collect::<Result<Vec<_>, _>>()?;
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
    let delivery = tokio::spawn(deliver_all(notifications));
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
        closing: closing_rx.clone(),
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
    loop {
        let idle_check = async {
            match idle {
                Some(limit) => loop {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    let last = Duration::from_millis(state.last.load(Ordering::Relaxed));
                    if state.start.elapsed().saturating_sub(last) >= limit {
                        return;
                    }
                },
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
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

/// Delivers notifications one at a time, in the order the world pushed them, retrying on
/// `backoff × 2^(k−2)` (faults.md §2) while attempts remain.
async fn deliver_all(mut rx: tokio::sync::mpsc::UnboundedReceiver<owner::Notification>) {
    while let Some(n) = rx.recv().await {
        for k in 1..=n.attempts {
            if k >= 2 {
                let factor = 1u32.checked_shl(k - 2).unwrap_or(u32::MAX);
                tokio::time::sleep(n.backoff.saturating_mul(factor)).await;
            }
            if post(&n).await {
                break;
            }
        }
    }
}

/// One webhook POST; whether the receiver answered 2xx. The token goes in the header A2A names
/// and is never logged.
async fn post(n: &owner::Notification) -> bool {
    let Ok(url) = url::Url::parse(&n.url) else {
        return false;
    };
    // Only plain http: https would need a TLS stack, and only loopback URLs get here.
    let (Some(host), "http") = (url.host_str(), url.scheme()) else {
        return false;
    };
    let port = url.port().unwrap_or(80);
    let connect = tokio::net::TcpStream::connect((host.trim_matches(['[', ']']), port));
    let Ok(Ok(stream)) = tokio::time::timeout(Duration::from_secs(5), connect).await else {
        return false;
    };
    let Ok((mut sender, conn)) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await
    else {
        return false;
    };
    tokio::spawn(conn);
    let target = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_string(),
    };
    let authority = match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    };
    let Ok(req) = Request::post(target)
        .header(hyper::header::HOST, authority)
        .header(CONTENT_TYPE, "application/json")
        .header("X-A2A-Notification-Token", n.token.as_str())
        .body(Full::new(Bytes::from(n.body.clone())))
    else {
        return false;
    };
    matches!(
        tokio::time::timeout(Duration::from_secs(10), sender.send_request(req)).await,
        Ok(Ok(r)) if r.status().is_success()
    )
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

fn response(status: u16, content_type: &'static str, body: Bytes) -> Response<Body> {
    let mut r = Response::new(Full::new(body).boxed());
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

fn json_response(status: u16, v: &Value) -> Response<Body> {
    let body = serde_json::to_vec(v).unwrap_or_default();
    response(status, "application/json", Bytes::from(body))
}

/// A finished stream: every event at once, as `text/event-stream`.
fn sse(events: impl IntoIterator<Item = Value>) -> Response<Body> {
    let mut body = Vec::new();
    for e in events {
        sse::frame(&mut body, &e);
    }
    event_stream(Full::new(Bytes::from(body)).boxed())
}

/// A live stream: each event as the world records it, each wrapped by `wrap` (JSON-RPC's
/// envelope, or nothing), until the world ends it.
fn live(
    stream: owner::LiveStream,
    wrap: impl Fn(Value) -> Value + Send + Sync + 'static,
) -> Response<Body> {
    event_stream(LiveBody::new(stream, wrap).boxed())
}

/// A stream whose events happened over idle time: each is sent when its time comes (counted
/// from now), so a slow agent's stream really is slow; all at once when none waited, and what is
/// left at once when the server stops.
fn paced(
    state: &State,
    events: Vec<(Value, Duration)>,
    wrap: impl Fn(Value) -> Value + Send + Sync + 'static,
) -> Response<Body> {
    if events.iter().all(|(_, after)| after.is_zero()) {
        return sse(events.into_iter().map(|(e, _)| wrap(e)));
    }
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let mut closing = state.closing.clone();
    tokio::spawn(async move {
        let start = tokio::time::Instant::now();
        for (event, after) in events {
            if !*closing.borrow() {
                tokio::select! {
                    _ = tokio::time::sleep_until(start + after) => {}
                    _ = closing.wait_for(|&c| c) => {}
                }
            }
            if tx.send(event).is_err() {
                return;
            }
        }
    });
    live(rx, wrap)
}

fn event_stream(body: Body) -> Response<Body> {
    let mut r = Response::new(body);
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    r.headers_mut()
        .insert("cache-control", HeaderValue::from_static("no-cache"));
    r
}

fn rest_failure(f: &Failure) -> Response<Body> {
    let (status, body) = protocol::rest_error(f);
    json_response(status, &body)
}

fn rpc_failure(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
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
    let a2a_version =
        req.headers()
            .get("a2a-version")
            .map(|h| match h.to_str().unwrap_or("").trim() {
                "1.0" | "1" | "1.0.0" => Some(A2aVersion::V1_0),
                "0.3" | "0.3.0" => Some(A2aVersion::V0_3),
                _ => None,
            });
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
            if let (Some(id), Some(o)) = (task, params.as_object_mut()) {
                // Push configs name their task `taskId` (the config is `id`); others `id`.
                let push = matches!(
                    op,
                    Op::SetPush | Op::GetPush | Op::ListPush | Op::DeletePush
                );
                o.insert(if push { "taskId" } else { "id" }.into(), json!(id));
            }
            if let (Some(c), Some(o)) = (config, params.as_object_mut()) {
                o.insert("id".into(), json!(c));
            }
            if let (Some(q), Some(o)) = (query, params.as_object_mut()) {
                for pair in q.split('&').filter(|p| !p.is_empty()) {
                    let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                    let v = url_decode(v);
                    o.insert(url_decode(k), json!(v));
                }
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
            let req = match protocol::request(op, version, &params, caller, agent) {
                Ok(r) => r,
                Err(f) => return rest_failure(&f),
            };
            let stream = matches!(op, Op::Stream | Op::Subscribe);
            match ask(state, req).await {
                // A reply on a stream (`message.taskId`): the task it left, as the stream's one event.
                Answer::Task(t) if stream => sse([stream_task(t, version)]),
                Answer::Task(t) if op == Op::Send && version == A2aVersion::V1_0 => {
                    json_response(200, &json!({ "task": t }))
                }
                Answer::Task(t) => json_response(200, &protocol::trim_history(t, &params)),
                Answer::Events(events) if stream => paced(state, events, |e| e),
                Answer::Events(mut events) => {
                    json_response(200, &events.pop().map(|(e, _)| e).unwrap_or_default())
                }
                Answer::Live(events) => live(events, |e| e),
                Answer::Value(v) => json_response(200, &v),
                Answer::Error(f) if stream => sse([protocol::rest_error(&f).1]),
                Answer::Error(f) => rest_failure(&f),
            }
        }
        None => {
            debug_assert!(binding == Binding::JsonRpc);
            json_rpc(state, &body, caller, agent).await
        }
    }
}

fn url_decode(s: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16);
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
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

async fn json_rpc(
    state: &State,
    body: &[u8],
    caller: Result<usize, Failure>,
    agent: usize,
) -> Response<Body> {
    let doc: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return json_response(
                200,
                &rpc_failure(&Value::Null, -32700, &format!("Parse error: {e}")),
            );
        }
    };
    let id = match doc.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_) | Value::Null)) => id.clone(),
        None => Value::Null,
        Some(_) => {
            return json_response(
                200,
                &rpc_failure(
                    &Value::Null,
                    -32600,
                    "Invalid Request: `id` must be a string, a number or null",
                ),
            );
        }
    };
    if doc.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return json_response(
            200,
            &rpc_failure(&id, -32600, "Invalid Request: `jsonrpc` must be \"2.0\""),
        );
    }
    let Some(name) = doc.get("method").and_then(Value::as_str) else {
        return json_response(
            200,
            &rpc_failure(&id, -32600, "Invalid Request: `method` must be a string"),
        );
    };
    let Some((op, v)) = protocol::method(name) else {
        return json_response(
            200,
            &rpc_failure(&id, -32601, &format!("Method not found: `{name}`")),
        );
    };
    let stream = matches!(op, Op::Stream | Op::Subscribe);
    let fail = |f: &Failure| {
        let e = json!({"jsonrpc": "2.0", "id": id, "error": protocol::rpc_error(f)});
        if f.kind == FailureKind::Unauthenticated {
            json_response(401, &e)
        } else if stream {
            sse([e])
        } else {
            json_response(200, &e)
        }
    };
    let caller = match caller {
        Ok(c) => c,
        Err(f) => return fail(&f),
    };
    let params = doc.get("params").cloned().unwrap_or(json!({}));
    let req = match protocol::request(op, v, &params, caller, agent) {
        Ok(r) => r,
        Err(f) => return fail(&f),
    };
    let ok = envelope(id.clone());
    match ask(state, req).await {
        Answer::Task(t) if stream => sse([ok(stream_task(t, v))]),
        Answer::Task(t) if op == Op::Send && v == A2aVersion::V1_0 => {
            json_response(200, &ok(json!({ "task": t })))
        }
        Answer::Task(t) => json_response(200, &ok(protocol::trim_history(t, &params))),
        Answer::Events(events) if stream => paced(state, events, envelope(id)),
        Answer::Events(mut events) => {
            json_response(200, &ok(events.pop().map(|(e, _)| e).unwrap_or_default()))
        }
        Answer::Live(events) => live(events, envelope(id)),
        Answer::Value(v) => json_response(200, &ok(v)),
        Answer::Error(f) => fail(&f),
    }
}

/// JSON-RPC's success envelope for answers to the request `id`.
fn envelope(id: Value) -> impl Fn(Value) -> Value + Send + Sync + 'static {
    move |result| json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A Task as a stream event: 1.0 wraps it (`StreamResponse`), 0.3 sends it as it is.
fn stream_task(t: Value, v: A2aVersion) -> Value {
    match v {
        A2aVersion::V1_0 => json!({ "task": t }),
        A2aVersion::V0_3 => t,
    }
}

async fn ask(state: &State, req: Req) -> Answer {
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
    if state.keyed {
        let bearer = req
            .headers()
            .get(hyper::header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.strip_prefix("Bearer "));
        // The token itself is never echoed.
        return match bearer {
            Some(t) => state.bearers.get(t.trim()).copied().ok_or_else(|| {
                unauth("the bearer token is not one a scenario caller holds".into())
            }),
            None => Err(unauth(
                "this scenario has keys: send `Authorization: Bearer <caller's JWT>`".into(),
            )),
        };
    }
    match req
        .headers()
        .get("x-a2a-sim-caller")
        .and_then(|h| h.to_str().ok())
    {
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

fn not_found(message: &str) -> Response<Body> {
    json_response(
        404,
        &json!({"error": {"code": 404, "status": "NOT_FOUND", "message": message}}),
    )
}

fn method_not_allowed() -> Response<Body> {
    json_response(
        405,
        &json!({"error": {"code": 405, "status": "METHOD_NOT_ALLOWED", "message": "method not allowed on this path"}}),
    )
}
