//! The fault schedule generator of `explore` (faults.md §3). Its algorithm is part of the contract
//! — a published seed is a bug report — so it is written down in the book and pinned by a test
//! vector; change it and old seeds stop reproducing.
//!
//! Run `i` of seed `s` draws from SplitMix64 started at `s ^ (i × 0xD1B54A32D192ED03)` (wrapping);
//! `below(n)` is `next() % n`. The schedule: `1 + below(4)` faults; each picks a kind among the
//! usable ones (in the order unavailable, slow, crash, down, duplicate; agent kinds need an agent,
//! host kinds a push host) by `below(len)`, then its target by `below(count)`, then:
//! a window is `a = below(W)`, `b = below(W)`, `[min(a, b), max(a, b) + 1)`; `slow` adds
//! `extra = 1 + below(3)` after its window; `crash` draws `at = below(W)`, then `restart` is none
//! when `below(2) == 0`, else `at + 1 + below(W − at)`; `duplicate` is `true`.
//!
//! A scenario with real agents (`external:`) draws more, so that a fault can stay on a request
//! whatever ticks the agent's own timing gives: when `unavailable` is usable, `http_error` and
//! `reset` are usable kinds too (after `duplicate`, in that order); and an `unavailable`, `slow`,
//! `http_error` or `reset` first draws `below(2)`: 1 picks a request instead of a window,
//! `calls: [1 + below(C)]` (C: the tasks of the file's own run, at least 1), 0 a window as above.
//! `http_error`'s status is `[500, 502, 503][below(3)]`, drawn after the window or the request.
//! Scripted scenarios draw exactly as before.

use crate::engine::scenario::{Fault, FaultKind, FaultTarget, Scenario, Window};

/// The standard SplitMix64 generator (Steele, Lea and Flood 2014).
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n ≥ 1`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// The fault kinds `--faults` names, in the generator's order.
pub const KINDS: [&str; 5] = ["unavailable", "slow", "crash", "down", "duplicate"];

/// What the generator draws over.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The agents faults may target (indices into the scenario's agents, in file order): every
    /// agent, unless `explore --agents` / `--skip-agents` narrowed them. Drawing picks one by
    /// `below(len)`, so with every agent the draws are those of the whole file.
    pub agents: Vec<usize>,
    /// The distinct hosts of the push URLs the file configures, in file order.
    pub hosts: Vec<String>,
    /// Windows lie within `[0, horizon)`: `max(1, 2C)`.
    pub horizon: u64,
    /// Which of [`KINDS`] to draw.
    pub kinds: [bool; 5],
    /// With real agents: the request numbers `calls` are drawn from, `1..=C`, and the wire kinds
    /// are drawn too. `None` for a scripted scenario.
    pub requests: Option<u64>,
}

impl Inputs {
    pub fn new(scenario: &Scenario, final_clock: u64, kinds: [bool; 5]) -> Inputs {
        let mut hosts: Vec<String> = Vec::new();
        for step in &scenario.steps {
            let url = match step {
                crate::engine::scenario::Step::Send(s) => s.push().as_ref().map(|p| &p.url),
                crate::engine::scenario::Step::SetPushConfig { push, .. } => Some(&push.url),
                _ => None,
            };
            let host = url
                .and_then(|u| url::Url::parse(u).ok())
                .and_then(|u| match u.host() {
                    Some(url::Host::Domain(d)) => Some(d.to_string()),
                    _ => None,
                });
            if let Some(h) = host
                && !hosts.contains(&h)
            {
                hosts.push(h);
            }
        }
        Inputs {
            agents: (0..scenario.agents.len()).collect(),
            hosts,
            horizon: final_clock.saturating_mul(2).max(1),
            kinds,
            requests: None,
        }
    }

    /// The drawn faults of run `run` (1-based) of `seed`.
    pub fn draw(&self, seed: u64, run: u64) -> Vec<Fault> {
        let mut rng = SplitMix64(seed ^ run.wrapping_mul(0xD1B5_4A32_D192_ED03));
        let wire = self.requests.is_some() && self.kinds[0] && !self.agents.is_empty();
        let usable: Vec<usize> = (0..5)
            .filter(|&k| {
                self.kinds[k]
                    && if k < 3 {
                        !self.agents.is_empty()
                    } else {
                        !self.hosts.is_empty()
                    }
            })
            .chain(if wire { vec![5, 6] } else { Vec::new() })
            .collect();
        if usable.is_empty() {
            return Vec::new();
        }
        let w = self.horizon;
        let count = 1 + rng.below(4);
        let mut out = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let kind = usable[rng.below(usable.len() as u64) as usize];
            let target = if !matches!(kind, 3 | 4) {
                FaultTarget::Agent(self.agents[rng.below(self.agents.len() as u64) as usize])
            } else {
                FaultTarget::PushHost(
                    self.hosts[rng.below(self.hosts.len() as u64) as usize].clone(),
                )
            };
            // With real agents, a request instead of a window (see the module's doc).
            let calls: Option<Box<[u32]>> = match self.requests {
                Some(c) if matches!(kind, 0 | 1 | 5 | 6) && rng.below(2) == 1 => {
                    let k = 1 + rng.below(c.max(1));
                    Some(vec![u32::try_from(k).unwrap_or(u32::MAX)].into())
                }
                _ => None,
            };
            let picked = calls.is_some();
            let mut window = || {
                if picked {
                    return Window::ALWAYS;
                }
                let (a, b) = (rng.below(w), rng.below(w));
                Window {
                    from: a.min(b),
                    to: Some(a.max(b) + 1),
                }
            };
            let kind = match kind {
                0 => FaultKind::Unavailable(window()),
                5 => {
                    let window = window();
                    FaultKind::HttpError {
                        window,
                        status: [500, 502, 503][rng.below(3) as usize],
                    }
                }
                6 => FaultKind::Reset(window()),
                1 => {
                    let window = window();
                    FaultKind::Slow {
                        window,
                        extra: 1 + rng.below(3),
                    }
                }
                2 => {
                    let at = rng.below(w);
                    let restart = if rng.below(2) == 0 {
                        None
                    } else {
                        Some(at + 1 + rng.below(w - at))
                    };
                    FaultKind::Crash { at, restart }
                }
                3 => FaultKind::Down(window()),
                _ => FaultKind::Duplicate(true),
            };
            let mut fault = Fault::new(target, kind);
            fault.calls = calls;
            out.push(fault);
        }
        out
    }
}

/// Reads `--faults`: a comma list of [`KINDS`].
pub fn parse_kinds(s: &str) -> Result<[bool; 5], String> {
    let mut kinds = [false; 5];
    for word in s.split(',').map(str::trim) {
        match KINDS.iter().position(|k| *k == word) {
            Some(i) => kinds[i] = true,
            None => {
                let msg = format!(
                    "unknown fault kind `{word}`; the kinds are {}",
                    KINDS.join(", ")
                );
                return Err(crate::error::with_hint(msg, word, KINDS));
            }
        }
    }
    Ok(kinds)
}

/// A name as a YAML flow scalar: plain when safe, else double-quoted (JSON quoting is valid YAML).
fn scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && s.starts_with(|c: char| c.is_ascii_alphabetic());
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

fn window_yaml(w: &Window) -> String {
    match w.to {
        Some(to) => format!("{{from: {}, to: {to}}}", w.from),
        None => format!("{{from: {}}}", w.from),
    }
}

/// One fault as the scenario writes it: `{agent: NAME, unavailable: {from: 5, to: 12}}`.
pub fn fault_yaml(scenario: &Scenario, f: &Fault) -> String {
    let target = match &f.target {
        FaultTarget::Agent(a) => format!("agent: {}", scalar(scenario.agents[*a].name())),
        FaultTarget::PushHost(h) => format!("push_host: {}", scalar(h)),
    };
    let calls = f.calls.as_ref().map(|c| {
        let list: Vec<String> = c.iter().map(|k| k.to_string()).collect();
        format!("calls: [{}]", list.join(", "))
    });
    // A window, or the calls that replace it; `extra` and the like before it.
    let span = |w: &Window, first: &str| {
        let mut keys: Vec<String> = Vec::new();
        if !first.is_empty() {
            keys.push(first.to_string());
        }
        match &calls {
            Some(c) => keys.push(c.clone()),
            None => {
                keys.push(format!("from: {}", w.from));
                if let Some(t) = w.to {
                    keys.push(format!("to: {t}"));
                }
            }
        }
        format!("{{{}}}", keys.join(", "))
    };
    let kind = match &f.kind {
        FaultKind::Unavailable(w) if calls.is_none() => format!("unavailable: {}", window_yaml(w)),
        FaultKind::Unavailable(w) => format!("unavailable: {}", span(w, "")),
        FaultKind::Down(w) => format!("down: {}", window_yaml(w)),
        FaultKind::Reset(w) => format!("reset: {}", span(w, "")),
        FaultKind::Slow { window, extra } => {
            format!("slow: {}", span(window, &format!("extra: {extra}")))
        }
        FaultKind::HttpError { window, status } => {
            format!("http_error: {}", span(window, &format!("status: {status}")))
        }
        FaultKind::DropStream { window, after } => {
            format!("drop_stream: {}", span(window, &format!("after: {after}")))
        }
        FaultKind::Crash { at, restart } => match restart {
            Some(r) => format!("crash: {{at: {at}, restart: {r}}}"),
            None => format!("crash: {{at: {at}}}"),
        },
        FaultKind::Duplicate(d) => format!("duplicate: {d}"),
    };
    format!("{{{target}, {kind}}}")
}

/// One fault as JSON, the same keys as the YAML.
pub fn fault_json(scenario: &Scenario, f: &Fault) -> serde_json::Value {
    use serde_json::json;
    let window = |w: &Window| match w.to {
        Some(to) => json!({"from": w.from, "to": to}),
        None => json!({"from": w.from}),
    };
    let mut m = serde_json::Map::new();
    match &f.target {
        FaultTarget::Agent(a) => m.insert("agent".into(), json!(scenario.agents[*a].name())),
        FaultTarget::PushHost(h) => m.insert("push_host".into(), json!(h)),
    };
    let span = |w: &Window| match &f.calls {
        Some(c) => json!({"calls": c}),
        None => window(w),
    };
    let with = |w: &Window, key: &str, value: serde_json::Value| {
        let mut v = span(w);
        v[key] = value;
        v
    };
    let (k, v) = match &f.kind {
        FaultKind::Unavailable(w) => ("unavailable", span(w)),
        FaultKind::Down(w) => ("down", window(w)),
        FaultKind::Reset(w) => ("reset", span(w)),
        FaultKind::Slow { window: w, extra } => ("slow", with(w, "extra", json!(extra))),
        FaultKind::HttpError { window: w, status } => {
            ("http_error", with(w, "status", json!(status)))
        }
        FaultKind::DropStream { window: w, after } => {
            ("drop_stream", with(w, "after", json!(after)))
        }
        FaultKind::Crash { at, restart } => match restart {
            Some(r) => ("crash", json!({"at": at, "restart": r})),
            None => ("crash", json!({"at": at})),
        },
        FaultKind::Duplicate(d) => ("duplicate", json!(d)),
    };
    m.insert(k.into(), v);
    serde_json::Value::Object(m)
}
