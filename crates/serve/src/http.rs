//! The HTTP side: the listener and its shutdown (signals, `--exit-after`, `--idle-exit`), the
//! cards, and routing under `/agents/NAME/` (a connection and its limits are `connection.rs`;
//! the bindings `jsonrpc.rs` and `rest.rs`; a request's caller and body `request.rs`;
//! responses and streams `responses.rs`; webhooks `webhooks.rs`).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::{Method, Request, Response};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};

use super::Options;
use super::connection::{self, Cap};
use super::owner::{self, Answer, Failure, FailureKind, Job, Reply, Req};
use super::request::{caller_of, foreign_host, read_body, unsupported_media};
use super::responses::*;
use super::sse::Streams;
use super::{jsonrpc, webhooks};
use engine::scenario::Scenario;
use output::protocol::version::A2aVersion;

pub(super) struct State {
    agents: HashMap<String, usize>,
    /// Each agent's served card, rendered once.
    cards: Vec<Bytes>,
    /// Each agent's `defaultOutputModes`, as its card names them.
    pub(super) output_modes: Vec<Vec<String>>,
    pub(super) callers: HashMap<String, usize>,
    /// Verified callers by their bearer token (scenarios with `keys`).
    pub(super) bearers: HashMap<String, usize>,
    pub(super) keyed: bool,
    /// The `--advertise-host` name, lower-cased and without brackets: a Host it is taken.
    pub(super) advertised: Option<String>,
    /// `--default-caller`: the caller of a request that names none.
    pub(super) default_caller: Option<usize>,
    /// The served base URL and the cards' version, for the cards served under a caller's prefix.
    base: String,
    version: A2aVersion,
    scenario: &'static Scenario,
    root: Option<usize>,
    tx: std::sync::Mutex<Sender<Job>>,
    pub(super) max_body: usize,
    /// How long a request's body may take to arrive (the header timeout).
    pub(super) body_timeout: Duration,
    exit_after: Option<u64>,
    served: AtomicU64,
    /// Milliseconds since `start` of the last request's arrival.
    last: AtomicU64,
    start: Instant,
    stop: Notify,
    /// The live streams: whether the server is stopping, and how many are open.
    pub(super) streams: Streams,
}

fn card_body(scenario: &Scenario, ix: usize, base: &str, v: A2aVersion) -> Result<Bytes, String> {
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

tokio::task_local! {
    /// The trace id of the request being answered (its `traceparent`'s), for [`ask`].
    static TRACE: Option<u128>;
}

/// What the world's thread is started with.
pub struct WorldStart {
    pub scenario: &'static Scenario,
    pub settings: owner::Settings,
    pub rx: std::sync::mpsc::Receiver<Job>,
    /// The jobs' channel, for work the world's thread hands to the runtime and hears back from.
    pub tx: Sender<Job>,
    /// The served base URL (`http://HOST:PORT`).
    pub base: String,
    pub handle: tokio::runtime::Handle,
    /// Sent (or dropped) when the world is done and the server may stop.
    pub done: tokio::sync::oneshot::Sender<()>,
}

/// Starts the world's thread: `serve`'s session, or a run with real agents in it.
pub type WorldSide =
    Box<dyn FnOnce(WorldStart) -> std::io::Result<std::thread::JoinHandle<Result<(), String>>>>;

/// `serve`: the session's owner loop is the world's side.
pub async fn serve(scenario: Scenario, options: Options) -> Result<(), String> {
    let scenario: &'static Scenario = Box::leak(Box::new(scenario));
    let session: WorldSide = Box::new(|start: WorldStart| {
        let WorldStart {
            scenario,
            settings,
            rx,
            done,
            ..
        } = start;
        std::thread::Builder::new()
            .name("a2a-sim-world".into())
            .spawn(move || {
                let r = owner::run(scenario, settings, rx);
                drop(done);
                r
            })
    });
    serve_with(scenario, options, session).await
}

/// The HTTP side of a session, its world's side started by `world`; until a signal, the
/// limits of `options`, or (for a world that ends on its own) the world's end.
pub async fn serve_with(
    scenario: &'static Scenario,
    options: Options,
    world: WorldSide,
) -> Result<(), String> {
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
    let delivery = tokio::spawn(webhooks::deliver_all(
        notifications,
        tls,
        options.allow_loopback_push,
    ));
    let settings = owner::Settings {
        tick_ms: options.tick_ms.unwrap_or(scenario.clock.tick_ms),
        report: options.report.clone(),
        version: options.version,
        deliver,
        relay_children: options.relay_children,
    };
    let (done, mut world_done) = tokio::sync::oneshot::channel();
    let world = world(WorldStart {
        scenario,
        settings,
        rx,
        tx: tx.clone(),
        base: base.clone(),
        handle: tokio::runtime::Handle::current(),
        done,
    })
    .map_err(|e| e.to_string())?;
    let (closing_tx, closing_rx) = watch::channel(false);
    let state = Arc::new(State {
        agents,
        cards,
        output_modes,
        callers,
        bearers,
        keyed: scenario.tokens.is_some(),
        advertised: options.advertise_host.as_ref().map(|h| {
            h.trim_start_matches('[')
                .trim_end_matches(']')
                .trim_end_matches('.')
                .to_ascii_lowercase()
        }),
        default_caller: options
            .default_caller
            .as_ref()
            .and_then(|d| scenario.callers.iter().position(|c| c.id == *d)),
        base: base.clone(),
        version: options.version,
        scenario,
        root,
        tx: std::sync::Mutex::new(tx),
        max_body: options.max_body,
        body_timeout: options.limits.header,
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
    let limits = options.limits;
    let cap = Cap::new(&limits);
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
                match cap.admit() {
                    Some(permit) => connections.spawn(connection::serve(
                        stream,
                        state.clone(),
                        limits,
                        closing_rx.clone(),
                        permit,
                    )),
                    None => connections.spawn(connection::refuse(stream)),
                };
            }
            _ = &mut signals => break,
            _ = state.stop.notified() => break,
            _ = idle_check => break,
            _ = &mut world_done => break,
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
            trace: None,
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
    #[cfg(windows)]
    {
        // A process started in its own group (as the Python package starts it to stop it
        // cleanly) gets CTRL_BREAK, not CTRL_C.
        let brk = tokio::signal::windows::ctrl_break();
        async move {
            let Ok(mut brk) = brk else {
                let _ = tokio::signal::ctrl_c().await;
                return;
            };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = brk.recv() => {}
            }
        }
    }
    #[cfg(not(any(unix, windows)))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

pub(super) async fn handle(state: &State, req: Request<Incoming>) -> Response<Body> {
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
    if let Some(why) = foreign_host(state, &req) {
        return misdirected(&why);
    }
    let full = req.uri().path().to_string();
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
                    match card_body(state.scenario, agent, &base, state.version) {
                        Ok(card) => response(200, "application/json", card),
                        Err(e) => json_response(500, &json!({"error": e})),
                    }
                }
            },
        };
    }
    // REST routes; everything else POSTed at the agent's root is JSON-RPC.
    let rest_route = match super::rest::route(&method, rest) {
        Ok(r) => r,
        Err(refused) => return refused.response(),
    };
    if let Some(why) = unsupported_media(&req) {
        return unsupported_media_type(rest_route.is_some(), &why);
    }
    let caller = caller_of(state, &req, prefix_caller.as_deref());
    let a2a_version = req
        .headers()
        .get("a2a-version")
        .map(|h| A2aVersion::parse(h.to_str().unwrap_or("").trim()));
    let query = req.uri().query().map(str::to_string);
    let trace = trace_id(&req);
    let body = match read_body(state, req).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    TRACE
        .scope(trace, async {
            match rest_route {
                Some(route) => {
                    super::rest::answer(state, route, &body, query, caller, agent, a2a_version)
                        .await
                }
                None => jsonrpc::json_rpc(state, &body, caller, agent, a2a_version).await,
            }
        })
        .await
}

/// The trace id of a request's W3C `traceparent` (version 00, ids not all zero), if it has one.
fn trace_id(req: &Request<Incoming>) -> Option<u128> {
    let mut values = req.headers().get_all("traceparent").iter();
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

pub(super) async fn ask(state: &State, req: Req) -> Answer {
    let (reply, answer) = tokio::sync::oneshot::channel();
    let sent = match state.tx.lock() {
        Ok(tx) => {
            let trace = TRACE.try_with(|t| *t).ok().flatten();
            tx.send(Job { req, reply, trace }).is_ok()
        }
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
