//! `a2a-sim serve`: the scenario's agents as real A2A servers on localhost (JSON-RPC 2.0 in both
//! 0.3 and 1.0 method names, and 1.0's HTTP+JSON binding). The only crate that links the async
//! stack (the binary's feature `serve`). HTTP handlers parse and answer; one owner thread holds the
//! world ([`owner`]), so every rule of `run` applies unchanged. Depends on the engine, the scenario
//! layer and the outputs; the engine never sees a socket.

mod connection;
mod http;
mod jsonrpc;
mod list_tasks;
mod message;
mod owner;
mod protocol;
mod push_address;
mod push_configs;
mod request;
mod responses;
mod rest;
mod served_steps;
mod sse;
mod stream_events;
mod strict_json;
mod subscriptions;
mod webhooks;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub use connection::Limits;

use engine::scenario::Scenario;
use output::protocol::version::A2aVersion;

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
            ready_file: None,
            exit_after: None,
            idle_exit: None,
            max_body: 1 << 20,
            limits: Limits::default(),
            default_caller: None,
            relay_children: false,
        }
    }
}

/// Serves `scenario` until a signal, `--exit-after` or `--idle-exit`; then writes the report.
/// The exit status: 0, or 2 for a setup problem (printed).
pub fn run(mut scenario: Scenario, options: Options) -> i32 {
    if let Some(root) = &options.root_agent
        && !scenario.agents.iter().any(|a| a.name() == root)
    {
        eprintln!(
            "a2a-sim: --root-agent `{}` names no agent of the scenario; `a2a-sim card FILE --list` lists them",
            scenario::escape::Escaped(root)
        );
        return 2;
    }
    if let Some(host) = &options.advertise_host {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let ok = bare.parse::<std::net::IpAddr>().is_ok()
            || url::Url::parse(&format!("http://{host}/"))
                .is_ok_and(|u| u.host_str().is_some_and(|h| h.eq_ignore_ascii_case(host)));
        if !ok {
            eprintln!(
                "a2a-sim: --advertise-host `{}` is not a host name or an IP address; give the host alone, without a scheme, port or path",
                scenario::escape::Escaped(host)
            );
            return 2;
        }
    }
    if let Some(name) = &options.default_caller {
        match scenario.callers.iter().find(|c| c.id == *name) {
            None => {
                eprintln!(
                    "a2a-sim: --default-caller `{}` names no caller of the scenario",
                    scenario::escape::Escaped(name)
                );
                return 2;
            }
            // A token's identity is the token's alone: no request gets it for nothing.
            Some(c) if c.token.is_some() => {
                eprintln!(
                    "a2a-sim: --default-caller `{}` holds a token: its requests must carry it",
                    scenario::escape::Escaped(name)
                );
                return 2;
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
        eprintln!(
            "a2a-sim: cannot write the report to {}: {e}; give --report a writable path",
            scenario::escape::Escaped(&path.display().to_string())
        );
        return 2;
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
        Err(e) => {
            eprintln!("a2a-sim: cannot start the server runtime: {e}");
            return 2;
        }
    };
    match runtime.block_on(http::serve(scenario, options)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("a2a-sim: {}", scenario::escape::Escaped(&e.to_string()));
            2
        }
    }
}
