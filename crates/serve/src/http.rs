//! The HTTP side: the listener and its shutdown (signals, `--exit-after`, `--idle-exit`), and
//! the world's thread started beside it (a connection and its limits are `connection.rs`; what
//! connections share `state.rs`; routing and the cards `routing.rs`; the bindings `jsonrpc.rs` and
//! `rest.rs`; a request's caller and body `request.rs`; responses and streams `responses.rs`;
//! webhooks `webhooks.rs`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};

use super::Options;
use super::connection::{self, Cap};
use super::grpc;
use super::job::{Job, Req};
use super::owner;
use super::routing::card_body;
use super::sse::Streams;
use super::state::State;
use super::webhooks;
use engine::scenario::Scenario;

/// What the world's thread is started with.
pub struct WorldStart {
    pub scenario: &'static Scenario,
    pub settings: crate::desk::Settings,
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
pub async fn serve(
    scenario: Scenario,
    options: Options,
    finish: Option<crate::Finish>,
) -> Result<(), String> {
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
                let r = owner::run(scenario, settings, rx, finish);
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
    let authority = |addr: std::net::SocketAddr| match &options.advertise_host {
        None => addr.to_string(),
        Some(host) => {
            // An IPv6 literal takes brackets in a URL.
            let host = match host.parse::<std::net::Ipv6Addr>() {
                Ok(v6) => format!("[{v6}]"),
                Err(_) => host.clone(),
            };
            format!("{host}:{}", addr.port())
        }
    };
    let base = format!("http://{}", authority(addr));
    let grpc_listener = match options.grpc_listen {
        Some(at) => Some(grpc::listener::bind(at).await?),
        None => None,
    };
    let grpc_addr = match &grpc_listener {
        Some(l) => Some(authority(l.local_addr().map_err(|e| e.to_string())?)),
        None => None,
    };
    let cards = (0..scenario.agents.len())
        .map(|ix| {
            let grpc = grpc_addr.as_deref().map(|g| (g, ""));
            card_body(scenario, ix, &base, options.version, grpc)
        })
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
        options.log,
    ));
    let settings = crate::desk::Settings {
        tick_ms: options.tick_ms.unwrap_or(scenario.clock.tick_ms),
        report: options.report.clone(),
        record: options.record.clone(),
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
        grpc: grpc_addr,
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
    let grpc_server =
        grpc_listener.map(|l| grpc::listener::spawn(l, state.clone(), limits, closing_rx.clone()));
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
            stream = connection::accept(&listener) => {
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
    connection::drain(&mut connections).await;
    if let Some(server) = grpc_server {
        let _ = tokio::time::timeout(Duration::from_secs(10), server).await;
    }
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
