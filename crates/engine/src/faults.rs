//! Faults as data (faults.md §1): the topology every step consults — which agents refuse requests,
//! run slow or crash, which push hosts are down or duplicate — and the webhook delivery policy.
//! Nothing here acts; the world asks.

use crate::ids::AgentIx;

/// A half-open tick window `[from, to)`; `to: None` is forever.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Window {
    pub from: u64,
    pub to: Option<u64>,
}

impl Window {
    pub const ALWAYS: Window = Window { from: 0, to: None };

    pub fn holds(&self, tick: u64) -> bool {
        tick >= self.from && self.to.is_none_or(|to| tick < to)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FaultKind {
    Unavailable(Window),
    Slow {
        window: Window,
        extra: u64,
    },
    Crash {
        at: u64,
        restart: Option<u64>,
    },
    Down(Window),
    Duplicate(bool),
    /// Requests fail with this HTTP status and the binding's error body (on the wire; in
    /// process a refused request like `unavailable`'s).
    HttpError {
        window: Window,
        status: u16,
    },
    /// Requests get the connection closed without an answer (on the wire; in process a
    /// refused request).
    Reset(Window),
    /// A stream the agent answers is cut after `after` events (on the wire only).
    DropStream {
        window: Window,
        after: u32,
    },
}

/// How a request a fault refuses is refused: what the wire shows of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// HTTP 503 with `Retry-After` (and, in process, the outcome `unavailable`).
    Unavailable,
    HttpError(u16),
    /// The connection closed without an answer.
    Reset,
}

impl FaultKind {
    /// The word a scenario and `--faults` spell it with.
    pub fn word(&self) -> &'static str {
        match self {
            FaultKind::Unavailable(_) => "unavailable",
            FaultKind::Slow { .. } => "slow",
            FaultKind::Crash { .. } => "crash",
            FaultKind::Down(_) => "down",
            FaultKind::Duplicate(_) => "duplicate",
            FaultKind::HttpError { .. } => "http_error",
            FaultKind::Reset(_) => "reset",
            FaultKind::DropStream { .. } => "drop_stream",
        }
    }

    /// The tick window it holds in (all time for `duplicate` and `crash`, which have none).
    fn window(&self) -> Window {
        match *self {
            FaultKind::Unavailable(w)
            | FaultKind::Down(w)
            | FaultKind::Reset(w)
            | FaultKind::Slow { window: w, .. }
            | FaultKind::HttpError { window: w, .. }
            | FaultKind::DropStream { window: w, .. } => w,
            FaultKind::Crash { .. } | FaultKind::Duplicate(_) => Window::ALWAYS,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FaultTarget {
    Agent(AgentIx),
    /// A host name as the URL parser normalises it.
    PushHost(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Fault {
    pub target: FaultTarget,
    pub kind: FaultKind,
    /// `calls: [K, ...]`: instead of its tick window, the fault holds on the K-th requests to
    /// its agent (1-based, counted per agent over the run), which a change elsewhere in the
    /// scenario does not move.
    pub calls: Option<Box<[u32]>>,
}

impl Fault {
    /// A fault that holds in its tick window.
    pub fn new(target: FaultTarget, kind: FaultKind) -> Fault {
        Fault {
            target,
            kind,
            calls: None,
        }
    }

    /// Whether it holds for a request judged at `clock`, the `call`-th to its agent.
    fn holds(&self, clock: u64, call: Option<u32>) -> bool {
        match &self.calls {
            Some(calls) => call.is_some_and(|c| calls.contains(&c)),
            None => self.kind.window().holds(clock),
        }
    }
}

/// `policy.push_delivery`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeliveryPolicy {
    /// Total attempts, 1..=64.
    pub attempts: u32,
    /// Ticks before attempt 2; doubled before each later one.
    pub backoff: u64,
}

impl Default for DeliveryPolicy {
    fn default() -> Self {
        DeliveryPolicy {
            attempts: 1,
            backoff: 1,
        }
    }
}

/// Every fault of a run and the delivery policy. Empty and without a policy, a run is exactly as it
/// was before faults existed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Faults {
    pub entries: Vec<Fault>,
    /// `policy.push_delivery`, when the file gives it.
    pub push_delivery: Option<DeliveryPolicy>,
    /// The agents with a `tampered_card` fault: `serve` answers their card with a signature that
    /// no longer verifies. Nothing in a run changes (a run serves no card), so it is kept apart
    /// from `entries`.
    pub tampered_cards: Vec<AgentIx>,
}

impl Faults {
    /// Whether webhook deliveries are worked out and reported.
    pub fn deliveries(&self) -> Option<DeliveryPolicy> {
        if self.entries.is_empty() {
            self.push_delivery
        } else {
            Some(self.push_delivery.unwrap_or_default())
        }
    }

    fn of_agent(&self, agent: AgentIx) -> impl Iterator<Item = &Fault> {
        self.entries
            .iter()
            .filter(move |f| matches!(f.target, FaultTarget::Agent(a) if a == agent))
    }

    fn of_host<'a>(&'a self, host: &'a str) -> impl Iterator<Item = &'a FaultKind> {
        self.entries.iter().filter_map(move |f| match &f.target {
            FaultTarget::PushHost(h) if h == host => Some(&f.kind),
            _ => None,
        })
    }

    /// Whether a request to `agent` judged at `clock` fails before the server sees it: an
    /// `unavailable` window or a crash's `[at, restart)` holds (see [`Faults::refusal`]).
    pub fn unavailable(&self, agent: AgentIx, clock: u64) -> bool {
        self.refusal(agent, clock, None).is_some()
    }

    /// How a request to `agent` judged at `clock`, the `call`-th to it, is refused, if a fault
    /// refuses it: `unavailable`, `http_error`, `reset` or a crash's down time, the first in
    /// fault order.
    pub fn refusal(&self, agent: AgentIx, clock: u64, call: Option<u32>) -> Option<Refusal> {
        self.of_agent(agent).find_map(|f| match f.kind {
            FaultKind::Crash { at, restart } => Window {
                from: at,
                to: restart,
            }
            .holds(clock)
            .then_some(Refusal::Unavailable),
            FaultKind::Unavailable(_) => f.holds(clock, call).then_some(Refusal::Unavailable),
            FaultKind::HttpError { status, .. } => {
                f.holds(clock, call).then_some(Refusal::HttpError(status))
            }
            FaultKind::Reset(_) => f.holds(clock, call).then_some(Refusal::Reset),
            _ => None,
        })
    }

    /// The extra ticks a continuation of one of `agent`'s tasks queued at `clock` waits
    /// (overlapping `slow` windows add up); `call`: the request that created the task.
    pub fn slow_extra(&self, agent: AgentIx, clock: u64, call: Option<u32>) -> u64 {
        self.of_agent(agent)
            .filter_map(|f| match f.kind {
                FaultKind::Slow { extra, .. } if f.holds(clock, call) => Some(extra),
                _ => None,
            })
            .fold(0u64, u64::saturating_add)
    }

    /// After how many events a stream `agent` answers at `clock` (the `call`-th request to it)
    /// is cut, if a `drop_stream` holds.
    pub fn drop_stream(&self, agent: AgentIx, clock: u64, call: Option<u32>) -> Option<u32> {
        self.of_agent(agent).find_map(|f| match f.kind {
            FaultKind::DropStream { after, .. } if f.holds(clock, call) => Some(after),
            _ => None,
        })
    }

    /// Whether a fault picks requests by number (`calls`): only then are they counted per task.
    pub fn selects_calls(&self) -> bool {
        self.entries.iter().any(|f| f.calls.is_some())
    }

    /// Whether a delivery attempt to `host` at `tick` fails.
    pub fn host_down(&self, host: &str, tick: u64) -> bool {
        self.of_host(host)
            .any(|k| matches!(k, FaultKind::Down(w) if w.holds(tick)))
    }

    pub fn duplicates(&self, host: &str) -> bool {
        self.of_host(host)
            .any(|k| matches!(k, FaultKind::Duplicate(true)))
    }

    /// The crashes, in fault order: `(fault index, agent, at)`.
    pub fn crashes(&self) -> impl Iterator<Item = (usize, AgentIx, u64)> + '_ {
        self.entries
            .iter()
            .enumerate()
            .filter_map(|(i, f)| match (&f.target, &f.kind) {
                (FaultTarget::Agent(a), FaultKind::Crash { at, .. }) => Some((i, *a, *at)),
                _ => None,
            })
    }

    /// Whether `serve` answers `agent`'s card with a broken signature (`tampered_card`).
    pub fn tampered_card(&self, agent: AgentIx) -> bool {
        self.tampered_cards.contains(&agent)
    }

    /// Whether any agent fault exists (a quick test before the per-turn lookups).
    pub fn has_agent_faults(&self) -> bool {
        self.entries
            .iter()
            .any(|f| matches!(f.target, FaultTarget::Agent(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_half_open() {
        let w = Window {
            from: 5,
            to: Some(12),
        };
        let rows = [(4, false), (5, true), (11, true), (12, false)];
        for (tick, holds) in rows {
            assert_eq!(w.holds(tick), holds, "{tick}");
        }
        assert!(Window::ALWAYS.holds(u64::MAX));
    }

    #[test]
    fn slow_extras_add_up_and_saturate() {
        let slow = |extra| {
            Fault::new(
                FaultTarget::Agent(0),
                FaultKind::Slow {
                    window: Window::ALWAYS,
                    extra,
                },
            )
        };
        let f = Faults {
            entries: vec![slow(2), slow(3)],
            push_delivery: None,
            tampered_cards: Vec::new(),
        };
        assert_eq!(f.slow_extra(0, 7, None), 5);
        assert_eq!(f.slow_extra(1, 7, None), 0);
        let f = Faults {
            entries: vec![slow(u64::MAX), slow(3)],
            push_delivery: None,
            tampered_cards: Vec::new(),
        };
        assert_eq!(f.slow_extra(0, 7, None), u64::MAX);
    }

    #[test]
    fn a_call_selector_holds_on_its_calls_whatever_the_tick() {
        let mut f = Fault::new(
            FaultTarget::Agent(0),
            FaultKind::Unavailable(Window::ALWAYS),
        );
        f.calls = Some(vec![2, 4].into());
        let faults = Faults {
            entries: vec![f],
            push_delivery: None,
            tampered_cards: Vec::new(),
        };
        let refused: Vec<u32> = (1..=5)
            .filter(|&c| faults.refusal(0, 1000, Some(c)).is_some())
            .collect();
        assert_eq!(refused, [2, 4]);
        // Not counted (no call number): never.
        assert_eq!(faults.refusal(0, 0, None), None);
        assert_eq!(faults.refusal(1, 0, Some(2)), None);
    }

    #[test]
    fn wire_faults_say_how_a_request_is_refused() {
        let faults = Faults {
            entries: vec![
                Fault::new(
                    FaultTarget::Agent(0),
                    FaultKind::HttpError {
                        window: Window {
                            from: 0,
                            to: Some(5),
                        },
                        status: 500,
                    },
                ),
                Fault::new(FaultTarget::Agent(0), FaultKind::Reset(Window::ALWAYS)),
            ],
            push_delivery: None,
            tampered_cards: Vec::new(),
        };
        assert_eq!(faults.refusal(0, 3, None), Some(Refusal::HttpError(500)));
        assert_eq!(faults.refusal(0, 5, None), Some(Refusal::Reset));
    }
}
