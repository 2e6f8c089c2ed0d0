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
    Slow { window: Window, extra: u64 },
    Crash { at: u64, restart: Option<u64> },
    Down(Window),
    Duplicate(bool),
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

    fn of_agent(&self, agent: AgentIx) -> impl Iterator<Item = &FaultKind> {
        self.entries.iter().filter_map(move |f| match f.target {
            FaultTarget::Agent(a) if a == agent => Some(&f.kind),
            _ => None,
        })
    }

    fn of_host<'a>(&'a self, host: &'a str) -> impl Iterator<Item = &'a FaultKind> {
        self.entries.iter().filter_map(move |f| match &f.target {
            FaultTarget::PushHost(h) if h == host => Some(&f.kind),
            _ => None,
        })
    }

    /// Whether a request to `agent` judged at `clock` fails before the server sees it: an
    /// `unavailable` window or a crash's `[at, restart)` holds.
    pub fn unavailable(&self, agent: AgentIx, clock: u64) -> bool {
        self.of_agent(agent).any(|k| match *k {
            FaultKind::Unavailable(w) => w.holds(clock),
            FaultKind::Crash { at, restart } => Window {
                from: at,
                to: restart,
            }
            .holds(clock),
            _ => false,
        })
    }

    /// The extra ticks a continuation of one of `agent`'s tasks queued at `clock` waits (overlapping
    /// `slow` windows add up).
    pub fn slow_extra(&self, agent: AgentIx, clock: u64) -> u64 {
        self.of_agent(agent)
            .filter_map(|k| match *k {
                FaultKind::Slow { window, extra } if window.holds(clock) => Some(extra),
                _ => None,
            })
            .fold(0u64, u64::saturating_add)
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
        let slow = |extra| Fault {
            target: FaultTarget::Agent(0),
            kind: FaultKind::Slow {
                window: Window::ALWAYS,
                extra,
            },
        };
        let f = Faults {
            entries: vec![slow(2), slow(3)],
            push_delivery: None,
        };
        assert_eq!(f.slow_extra(0, 7), 5);
        assert_eq!(f.slow_extra(1, 7), 0);
        let f = Faults {
            entries: vec![slow(u64::MAX), slow(3)],
            push_delivery: None,
        };
        assert_eq!(f.slow_extra(0, 7), u64::MAX);
    }
}
