//! `faults:` and `policy.push_delivery` (faults.md §1): every entry checked, every problem located
//! at the offending key, with a hint where a name was mistyped.

use crate::diagnostic::with_hint;
use crate::file::*;
use crate::yaml::Seg;
use engine::scenario::*;

use super::{Loader, Names, child};

const AGENT_KINDS: [&str; 7] = [
    "unavailable",
    "slow",
    "crash",
    "http_error",
    "reset",
    "drop_stream",
    "tampered_card",
];
const HOST_KINDS: [&str; 2] = ["down", "duplicate"];

/// `kinds` as a message lists them: `` `a`, `b`, `c` `` (`last` joins the last two: `or`), or
/// all comma-separated when `last` is `None`.
fn listed(kinds: &[&str], last: Option<&str>) -> String {
    let quoted: Vec<String> = kinds.iter().map(|k| format!("`{k}`")).collect();
    match (last, quoted.split_last()) {
        (Some(word), Some((end, rest))) if !rest.is_empty() => {
            format!("{} {word} {end}", rest.join(", "))
        }
        _ => quoted.join(", "),
    }
}

/// One `faults:` entry, checked: a fault of the run, or a card `serve` tampers with.
enum Entry {
    Fault(Fault),
    TamperedCard(engine::record::AgentIx),
}

impl Loader<'_> {
    pub(super) fn push_delivery(&mut self, p: Option<PushDeliveryFile>) -> Option<DeliveryPolicy> {
        let p = p?;
        let at = at!["policy", "push_delivery"];
        let mut policy = DeliveryPolicy::default();
        if let Some(n) = p.attempts {
            match u32::try_from(n) {
                Ok(n @ 1..=64) => policy.attempts = n,
                _ => self.problem(
                    child(&at, "attempts"),
                    format!("push_delivery.attempts must be 1 to 64, not {n}"),
                ),
            }
        }
        if let Some(b) = p.backoff {
            match u64::try_from(b) {
                Ok(b) => policy.backoff = b,
                Err(_) => self.problem(
                    child(&at, "backoff"),
                    format!("push_delivery.backoff must be 0 or more ticks, not {b}"),
                ),
            }
        }
        Some(policy)
    }

    pub(super) fn faults(
        &mut self,
        faults: Option<Vec<FaultFile>>,
        push_delivery: Option<DeliveryPolicy>,
        policy: &Policy,
        names: &Names,
        signed_cards: bool,
    ) -> Faults {
        let mut entries = Vec::new();
        let mut tampered_cards = Vec::new();
        for (i, f) in faults.unwrap_or_default().into_iter().enumerate() {
            match self.fault(at!["faults", i], f, policy, names) {
                Some(Entry::Fault(f)) => entries.push(f),
                Some(Entry::TamperedCard(agent)) => {
                    if !signed_cards {
                        self.problem(
                            at!["faults", i, "tampered_card"],
                            "`tampered_card` breaks the signature of a signed card: it needs `policy.card_signing_key`",
                        );
                    }
                    tampered_cards.push(agent);
                }
                None => {}
            }
        }
        Faults {
            entries,
            push_delivery,
            tampered_cards,
        }
    }

    fn fault(
        &mut self,
        at: Vec<Seg>,
        f: FaultFile,
        policy: &Policy,
        names: &Names,
    ) -> Option<Entry> {
        let kinds: Vec<&str> = [
            ("unavailable", f.unavailable.is_some()),
            ("slow", f.slow.is_some()),
            ("crash", f.crash.is_some()),
            ("down", f.down.is_some()),
            ("duplicate", f.duplicate.is_some()),
            ("http_error", f.http_error.is_some()),
            ("reset", f.reset.is_some()),
            ("drop_stream", f.drop_stream.is_some()),
            ("tampered_card", f.tampered_card.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, set)| set.then_some(k))
        .collect();
        let (target, allowed) = match (&f.agent, &f.push_host) {
            (Some(name), None) => {
                let ix = self.agent_ref(child(&at, "agent"), name, names);
                (FaultTarget::Agent(ix), &AGENT_KINDS[..])
            }
            (None, Some(host)) => {
                let host = self.push_host(child(&at, "push_host"), host, policy)?;
                (FaultTarget::PushHost(host), &HOST_KINDS[..])
            }
            _ => {
                self.problem(
                    at,
                    "a fault has exactly one target: `agent: NAME` or `push_host: HOST`",
                );
                return None;
            }
        };
        let whose = match target {
            FaultTarget::Agent(_) => "an agent",
            FaultTarget::PushHost(_) => "a push host",
        };
        let [kind] = kinds[..] else {
            let which = format!("{whose} fault has exactly one of {}", listed(allowed, None));
            self.problem(at, which);
            return None;
        };
        if !allowed.contains(&kind) {
            let hint = format!("{whose} takes {}", listed(allowed, Some("or")));
            self.problem(
                child(&at, kind),
                format!("`{kind}` is not a fault of this target: {hint}"),
            );
            return None;
        }
        let here = child(&at, kind);
        if let (FaultTarget::Agent(agent), "tampered_card") = (&target, kind) {
            return Some(Entry::TamperedCard(*agent));
        }
        let mut calls = None;
        let kind = match kind {
            "unavailable" => {
                let w = f.unavailable?;
                calls = self.calls(&here, &w);
                FaultKind::Unavailable(self.window(&here, w)?)
            }
            "reset" => {
                let w = f.reset?;
                calls = self.calls(&here, &w);
                FaultKind::Reset(self.window(&here, w)?)
            }
            "down" => {
                let w = f.down?;
                if w.calls.is_some() {
                    self.problem(
                        child(&here, "calls"),
                        "`calls` counts requests to an agent; a push host's faults take a tick window",
                    );
                    return None;
                }
                FaultKind::Down(self.window(&here, w)?)
            }
            "slow" => {
                let s = f.slow?;
                let extra = self.tick(child(&here, "extra"), "`extra`", s.extra);
                let w = WindowFile {
                    from: s.from,
                    to: s.to,
                    calls: s.calls,
                };
                calls = self.calls(&here, &w);
                FaultKind::Slow {
                    window: self.window(&here, w)?,
                    extra: extra?,
                }
            }
            "http_error" => {
                let h = f.http_error?;
                let status = match u16::try_from(h.status) {
                    Ok(s @ 400..=599) => Some(s),
                    _ => {
                        self.problem(
                            child(&here, "status"),
                            format!(
                                "`status` is an HTTP error status, 400 to 599, not {}",
                                h.status
                            ),
                        );
                        None
                    }
                };
                let w = WindowFile {
                    from: h.from,
                    to: h.to,
                    calls: h.calls,
                };
                calls = self.calls(&here, &w);
                FaultKind::HttpError {
                    window: self.window(&here, w)?,
                    status: status?,
                }
            }
            "drop_stream" => {
                let d = f.drop_stream?;
                let after = match u32::try_from(d.after) {
                    Ok(n) => Some(n),
                    Err(_) => {
                        self.problem(
                            child(&here, "after"),
                            format!("`after` is a number of events, 0 or more, not {}", d.after),
                        );
                        None
                    }
                };
                let w = WindowFile {
                    from: d.from,
                    to: d.to,
                    calls: d.calls,
                };
                calls = self.calls(&here, &w);
                FaultKind::DropStream {
                    window: self.window(&here, w)?,
                    after: after?,
                }
            }
            "crash" => {
                let c = f.crash?;
                let at_tick = self.tick(child(&here, "at"), "`at`", c.at)?;
                let restart = match c.restart {
                    None => None,
                    Some(r) => {
                        let r = self.tick(child(&here, "restart"), "`restart`", r)?;
                        if r <= at_tick {
                            self.problem(
                                child(&here, "restart"),
                                format!("`restart: {r}` must come after `at: {at_tick}` (the agent is down on [at, restart))"),
                            );
                            return None;
                        }
                        Some(r)
                    }
                };
                FaultKind::Crash {
                    at: at_tick,
                    restart,
                }
            }
            _ => FaultKind::Duplicate(f.duplicate.unwrap_or(false)),
        };
        Some(Entry::Fault(Fault {
            target,
            kind,
            calls,
        }))
    }

    /// `calls: [K, ...]` of a window: 1-based request numbers, instead of `from`/`to`.
    fn calls(&mut self, at: &[Seg], w: &WindowFile) -> Option<Box<[u32]>> {
        let list = w.calls.as_ref()?;
        let here = child(at, "calls");
        if w.from.is_some() || w.to.is_some() {
            self.problem(
                here,
                "`calls` picks requests instead of a tick window: drop `from` and `to`, or `calls`",
            );
            return None;
        }
        if list.is_empty() {
            self.problem(
                here,
                "`calls` needs at least one request number, e.g. `[2]`",
            );
            return None;
        }
        let mut out = Vec::with_capacity(list.len());
        for (j, &k) in list.iter().enumerate() {
            match u32::try_from(k) {
                Ok(k) if k >= 1 => out.push(k),
                _ if k > 0 => {
                    let mut item = here.clone();
                    item.push(Seg::Index(j));
                    self.problem(
                        item,
                        format!("a request number is at most {}, not {k}", u32::MAX),
                    );
                    return None;
                }
                _ => {
                    let mut item = here.clone();
                    item.push(Seg::Index(j));
                    self.problem(
                        item,
                        format!("a request number is 1 or more (the first request to the agent is 1), not {k}"),
                    );
                    return None;
                }
            }
        }
        Some(out.into())
    }

    fn tick(&mut self, at: Vec<Seg>, what: &str, n: i64) -> Option<u64> {
        let t = u64::try_from(n).ok();
        if t.is_none() {
            self.problem(at, format!("{what} is a tick, 0 or more, not {n}"));
        }
        t
    }

    fn window(&mut self, at: &[Seg], w: WindowFile) -> Option<Window> {
        let from = match w.from {
            Some(n) => self.tick(child(at, "from"), "`from`", n),
            None => Some(0),
        };
        let to = match w.to {
            Some(n) => self.tick(child(at, "to"), "`to`", n).map(Some),
            None => Some(None),
        };
        let (from, to) = (from?, to?);
        if let Some(to) = to
            && to <= from
        {
            self.problem(
                child(at, "to"),
                format!("the window [{from}, {to}) is empty: `to` must be after `from` (windows are half-open)"),
            );
            return None;
        }
        Some(Window { from, to })
    }

    /// A host name (not a pattern), normalised like an allowed-host entry, that the allow-list
    /// admits.
    fn push_host(&mut self, at: Vec<Seg>, host: &str, policy: &Policy) -> Option<String> {
        let normal = match HostPattern::parse(host) {
            Ok(HostPattern::Exact(h)) => h,
            Ok(HostPattern::AnySubdomainOf(_)) => {
                self.problem(
                    at,
                    format!("`{host}` is a pattern: a push_host fault names one host, e.g. `hooks.acme.example`"),
                );
                return None;
            }
            Err(e) => {
                self.problem(at, e);
                return None;
            }
        };
        if !policy.push_allowed_hosts.iter().any(|p| p.matches(&normal)) {
            let exact = policy.push_allowed_hosts.iter().filter_map(|p| match p {
                HostPattern::Exact(h) => Some(h.as_str()),
                HostPattern::AnySubdomainOf(_) => None,
            });
            let msg = with_hint(
                format!(
                    "push host `{normal}` is not admitted by policy.push_allowed_hosts, so no push can reach it"
                ),
                &normal,
                exact,
            );
            self.problem(at, msg);
            return None;
        }
        Some(normal)
    }
}
