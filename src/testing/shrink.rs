//! Shrinking a violating fault schedule, as proptest and Hypothesis do: try a smaller candidate,
//! keep it when the *same* violation persists. Drop faults one at a time, then narrow what is left,
//! and again until nothing changes — so the result is 1-minimal: removing any one drawn fault makes
//! the violation disappear. Deterministic: candidates are tried in one fixed order.

use crate::engine::scenario::{Fault, FaultKind, Faults, Scenario, Window};
use crate::testing::check::{Rule, Source, Violation, check_with};

/// The smallest schedule of `drawn` (added to the file's own `base` faults, never shrunk) that
/// still violates `rule`, and that violation.
pub fn shrink(
    scenario: &Scenario,
    base: &Faults,
    mut drawn: Vec<Fault>,
    mut found: Violation,
    source: Option<Source>,
) -> (Vec<Fault>, Violation) {
    let rule = found.rule;
    let mut faults = base.clone();
    let mut still = |candidate: &[Fault]| -> Option<Violation> {
        faults.entries.truncate(base.entries.len());
        faults.entries.extend_from_slice(candidate);
        check_with(scenario, &faults, source).filter(|v| same(v.rule, rule))
    };
    loop {
        let mut changed = false;
        let mut i = 0;
        while i < drawn.len() {
            let mut candidate = drawn.clone();
            candidate.remove(i);
            if let Some(v) = still(&candidate) {
                (drawn, found, changed) = (candidate, v, true);
            } else {
                i += 1;
            }
        }
        for i in 0..drawn.len() {
            for smaller in narrower(&drawn[i]) {
                let mut candidate = drawn.clone();
                candidate[i] = smaller;
                if let Some(v) = still(&candidate) {
                    (drawn, found, changed) = (candidate, v, true);
                    break;
                }
            }
        }
        if !changed {
            return (drawn, found);
        }
    }
}

fn same(a: Rule, b: Rule) -> bool {
    a == b
}

/// Strictly smaller versions of one fault, most aggressive first. Every candidate lowers a
/// measure (a window's width, an extra, a crash's down time), so shrinking ends.
fn narrower(f: &Fault) -> Vec<Fault> {
    let with = |kind: FaultKind| Fault {
        target: f.target.clone(),
        kind,
        calls: f.calls.clone(),
    };
    if let Some(calls) = &f.calls {
        // Fewer requests picked: each one left out in turn (a window does not apply).
        return (0..calls.len())
            .filter(|_| calls.len() > 1)
            .map(|skip| Fault {
                target: f.target.clone(),
                kind: f.kind.clone(),
                calls: Some(
                    calls
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| i != skip)
                        .map(|(_, &c)| c)
                        .collect(),
                ),
            })
            .collect();
    }
    match &f.kind {
        FaultKind::Unavailable(w) => windows(w)
            .into_iter()
            .map(|w| with(FaultKind::Unavailable(w)))
            .collect(),
        FaultKind::Down(w) => windows(w)
            .into_iter()
            .map(|w| with(FaultKind::Down(w)))
            .collect(),
        FaultKind::Slow { window, extra } => {
            let mut out: Vec<Fault> = windows(window)
                .into_iter()
                .map(|w| {
                    with(FaultKind::Slow {
                        window: w,
                        extra: *extra,
                    })
                })
                .collect();
            if *extra > 1 {
                out.push(with(FaultKind::Slow {
                    window: *window,
                    extra: 1,
                }));
            }
            out
        }
        FaultKind::Crash { at, restart } => match restart {
            None => vec![with(FaultKind::Crash {
                at: *at,
                restart: Some(at.saturating_add(1)),
            })],
            Some(r) if *r > at + 1 => {
                vec![with(FaultKind::Crash {
                    at: *at,
                    restart: Some(at + 1),
                })]
            }
            Some(_) => Vec::new(),
        },
        FaultKind::HttpError { window, status } => windows(window)
            .into_iter()
            .map(|w| {
                with(FaultKind::HttpError {
                    window: w,
                    status: *status,
                })
            })
            .collect(),
        FaultKind::Reset(w) => windows(w)
            .into_iter()
            .map(|w| with(FaultKind::Reset(w)))
            .collect(),
        FaultKind::DropStream { window, after } => windows(window)
            .into_iter()
            .map(|w| {
                with(FaultKind::DropStream {
                    window: w,
                    after: *after,
                })
            })
            .collect(),
        FaultKind::Duplicate(_) => Vec::new(),
    }
}

/// Narrower windows: one tick at either end, then either half.
fn windows(w: &Window) -> Vec<Window> {
    let Some(to) = w.to else {
        return vec![Window {
            from: w.from,
            to: Some(w.from.saturating_add(1)),
        }];
    };
    let width = to - w.from;
    if width <= 1 {
        return Vec::new();
    }
    let mid = w.from + width / 2;
    let mut out = vec![
        Window {
            from: w.from,
            to: Some(w.from + 1),
        },
        Window {
            from: to - 1,
            to: Some(to),
        },
        Window {
            from: w.from,
            to: Some(mid),
        },
        Window {
            from: mid,
            to: Some(to),
        },
    ];
    out.dedup();
    out
}
