//! Starting a real agent (or reaching it at its URL) and reading its card: where to call it, or
//! why it cannot be used, with its log's last lines. Used at the start of a run and again after a
//! `crash` fault's restart.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use engine::record::AgentIx;
use engine::scenario::Scenario;

use super::{client, process, wire};

/// A real agent as the run knows it.
pub(super) struct Live {
    pub agent: AgentIx,
    pub process: Option<process::Agent>,
    pub endpoint: wire::Endpoint,
    /// Its card's skills, each as its tags: what `discover` ranks it by.
    pub skills: Vec<Vec<String>>,
}

/// What starting a real agent again needs (a `crash` fault with `restart`).
pub(super) struct Starter {
    pub logs: PathBuf,
    pub suffix: String,
    pub base: String,
}

impl Starter {
    /// Starts agent `ix` (or reaches it at its URL) and reads its card: the live agent, or it
    /// (for stopping) with why it cannot be used.
    pub(super) fn start(
        &self,
        handle: &tokio::runtime::Handle,
        scenario: &'static Scenario,
        ix: AgentIx,
        again: bool,
    ) -> Result<Live, Box<(Live, String)>> {
        let agent = &scenario.agents[ix];
        let Some(spec) = &agent.external else {
            return Err(Box::new((
                Live {
                    agent: ix,
                    process: None,
                    endpoint: placeholder(),
                    skills: Vec::new(),
                },
                format!("agent `{}` is not a real agent", agent.name()),
            )));
        };
        let name = agent.name();
        let base = &self.base;
        let url_of = |n: &str| {
            scenario
                .agents
                .iter()
                .find(|a| a.name() == n && a.external.is_none())
                .map(|_| format!("{base}/as/{name}/agents/{n}/"))
        };
        let dead = |process| Live {
            agent: ix,
            process,
            endpoint: placeholder(),
            skills: Vec::new(),
        };
        let (root, mut process) = match &spec.url {
            Some(u) => (u.clone(), None),
            None => {
                let port = process::free_port().map_err(|e| {
                    Box::new((dead(None), format!("agent `{name}`: no free port: {e}")))
                })?;
                let log = log_file(&self.logs, name, &self.suffix);
                let p = process::Agent::start(name, spec, port, &log, again, &url_of)
                    .map_err(|why| Box::new((dead(None), why)))?;
                (format!("http://127.0.0.1:{port}/"), Some(p))
            }
        };
        let card_url = format!("{}/.well-known/agent-card.json", root.trim_end_matches('/'));
        let deadline = Instant::now() + Duration::from_secs(spec.ready_timeout_s);
        let card = loop {
            if let Some(p) = &mut process
                && p.exited().is_some()
            {
                let why = p.failure("it exited before its card answered");
                return Err(Box::new((dead(process), why)));
            }
            let got = handle.block_on(client::call(&card_url, &[], None, Duration::from_secs(2)));
            match got {
                Ok(a) if a.status == 200 => break a.body,
                _ if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
                other => {
                    let what = match other {
                        Ok(a) => format!("its card answered HTTP {}", a.status),
                        Err(e) => e,
                    };
                    let why = match &mut process {
                        Some(p) => p.failure(&format!(
                            "its card did not answer within {} s ({what})",
                            spec.ready_timeout_s
                        )),
                        None => format!(
                            "agent `{name}`: its card {card_url} did not answer within {} s ({what})",
                            spec.ready_timeout_s
                        ),
                    };
                    return Err(Box::new((dead(process), why)));
                }
            }
        };
        match wire::endpoint(&card, &root) {
            Ok(endpoint) => Ok(Live {
                agent: ix,
                process,
                endpoint,
                skills: wire::skill_tags(&card),
            }),
            Err(e) => Err(Box::new((dead(process), format!("agent `{name}`: {e}")))),
        }
    }
}

/// Where a started agent's output goes: `NAME.log` in the logs folder (`NAME{suffix}.log`, the
/// suffix telling one of explore's runs from another's).
pub(super) fn log_file(logs: &std::path::Path, name: &str, suffix: &str) -> PathBuf {
    logs.join(format!("{name}{suffix}.log"))
}

fn placeholder() -> wire::Endpoint {
    wire::Endpoint {
        url: String::new(),
        v1: true,
        streaming: false,
    }
}
