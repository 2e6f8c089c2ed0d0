//! `a2a-sim serve`: the scenario's agents as real A2A servers on localhost (JSON-RPC 2.0 in both
//! 0.3 and 1.0 method names, 1.0's HTTP+JSON binding, and with `--grpc-listen` 1.0's gRPC
//! binding on a port of its own). The only crate that links the async
//! stack (the binary's feature `serve`). HTTP handlers parse and answer; one owner thread holds the
//! world (`owner.rs`), so every rule of `run` applies unchanged. Depends on the engine, the scenario
//! layer and the outputs; the engine never sees a socket.
//!
//! [`external`] is the real-agent edge: a file with `external:` agents is run through it, the
//! scripted agents served to the real ones, and the real ones driven over the wire.

mod binding;
mod connection;
mod desk;
pub mod external;
mod failure;
mod grpc;
mod http;
mod job;
mod jsonrpc;
mod list_tasks;
mod message;
mod owner;
mod ownership;
mod protocol;
mod push_address;
mod push_configs;
mod record_file;
mod request;
mod responses;
mod rest;
mod routing;
mod served_steps;
mod sse;
mod state;
mod stream_events;
mod strict_json;
mod subscriptions;
mod webhook_in;
mod webhooks;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub use connection::Limits;
pub use grpc::wire as grpc_wire;

use engine::scenario::Scenario;
use output::protocol::A2aVersion;

/// The flags of `serve`, checked.
#[derive(Debug, Clone)]
pub struct Options {
    pub listen: SocketAddr,
    pub advertise_host: Option<String>,
    pub version: A2aVersion,
    pub root_agent: Option<String>,
    pub tick_ms: Option<u64>,
    pub wall_clock: bool,
    pub allow_loopback_push: bool,
    /// PEM certificates trusted for https webhooks besides the web's roots.
    pub push_ca: Option<PathBuf>,
    pub report: Option<PathBuf>,
    /// `--record FILE`: the session written as a scenario when it stops, with the served file.
    pub record: Option<(PathBuf, PathBuf)>,
    pub ready_file: Option<PathBuf>,
    pub exit_after: Option<u64>,
    pub idle_exit: Option<Duration>,
    pub max_body: usize,
    /// The header and keep-alive timeouts and the connection cap.
    pub limits: Limits,
    /// The caller of a request that names none (no path prefix, header or token).
    pub default_caller: Option<String>,
    /// Streams also carry the events of the child tasks their step opened (`--relay-children`).
    pub relay_children: bool,
    /// `--grpc-listen`: the gRPC binding's address (off when `None`).
    pub grpc_listen: Option<SocketAddr>,
    /// Where the server's log lines go while it runs (a webhook it did not send). The crate
    /// prints nothing itself: the binary passes a function that writes to stderr. By default the
    /// lines are dropped.
    pub log: fn(&str),
}

impl Default for Options {
    fn default() -> Self {
        Options {
            listen: SocketAddr::from(([127, 0, 0, 1], 7420)),
            advertise_host: None,
            version: A2aVersion::V1_0,
            root_agent: None,
            tick_ms: None,
            wall_clock: false,
            allow_loopback_push: false,
            push_ca: None,
            report: None,
            record: None,
            ready_file: None,
            exit_after: None,
            idle_exit: None,
            max_body: 1 << 20,
            limits: Limits::default(),
            default_caller: None,
            relay_children: false,
            grpc_listen: None,
            log: |_| {},
        }
    }
}

/// Why a session could not start or run: the message, for the binary to print. The server
/// prints nothing of its own about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeError(pub String);

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServeError {}

/// What a session's caller does with the finished world before it is dropped: the binary checks
/// the served file's `expect` entries with it.
pub type Finish = Box<dyn FnOnce(&engine::World<'static>) + Send>;

/// Serves `scenario` until a signal, `--exit-after` or `--idle-exit`; then writes the report.
pub fn run(scenario: Scenario, options: Options) -> Result<(), ServeError> {
    run_then(scenario, options, None)
}

/// [`run`], handing the finished world to `finish` (the session keeps every step it served
/// for it, so that claims about steps can be checked).
pub fn run_then(
    mut scenario: Scenario,
    options: Options,
    finish: Option<Finish>,
) -> Result<(), ServeError> {
    let refuse = |message: String| Err(ServeError(message));
    if let Some(root) = &options.root_agent
        && !scenario.agents.iter().any(|a| a.name() == root)
    {
        return refuse(format!(
            "--root-agent `{}` names no agent of the scenario; `a2a-sim card FILE --list` lists them",
            root
        ));
    }
    if let Some(host) = &options.advertise_host {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let ok = bare.parse::<std::net::IpAddr>().is_ok()
            || url::Url::parse(&format!("http://{host}/"))
                .is_ok_and(|u| u.host_str().is_some_and(|h| h.eq_ignore_ascii_case(host)));
        if !ok {
            return refuse(format!(
                "--advertise-host `{}` is not a host name or an IP address; give the host alone, without a scheme, port or path",
                host
            ));
        }
    }
    if let Some(name) = &options.default_caller {
        match scenario.callers.iter().find(|c| c.id == *name) {
            None => {
                return refuse(format!(
                    "--default-caller `{}` names no caller of the scenario",
                    name
                ));
            }
            // A token's identity is the token's alone: no request gets it for nothing.
            Some(c) if c.token.is_some() => {
                return refuse(format!(
                    "--default-caller `{}` holds a token: its requests must carry it",
                    name
                ));
            }
            Some(_) => {}
        }
    }
    // The report is written at the end: a path it cannot be written to is found now, not then.
    if let Some(path) = &options.report
        && let Err(e) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
    {
        return refuse(format!(
            "cannot write the report to {}: {e}; give --report a writable path",
            path.display()
        ));
    }
    // The session's requests are its steps; the file's own driver steps are not replayed.
    scenario.steps.clear();
    scenario.policy.loopback_push = options.allow_loopback_push;
    if options.wall_clock {
        // Timestamps count from the session's start, in real ticks, not from the file's epoch.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        scenario.clock.epoch_ms = now;
        if let Some(ms) = options.tick_ms {
            scenario.clock.tick_ms = ms;
        }
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return refuse(format!("cannot start the server runtime: {e}")),
    };
    runtime
        .block_on(http::serve(scenario, options, finish))
        .map_err(|e| ServeError(e.to_string()))
}
