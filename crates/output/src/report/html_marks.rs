//! The HTML timeline's marks: the refusals drawn in a lane's strip (denials; requests a fault or a
//! token check refused), each at the tick it happened, and the placing of marks along a band so
//! that no two of them overlap.

use engine::record::{ErrorCode, Record, RefusedWhy, StepResult, task_id};
use engine::scenario::{Step, Target};

/// The gap kept between any two marks of one band.
const MARK_GAP: f64 = 2.0;

/// A refusal drawn in its callee's lane: a denial (✕) or a request refused by a fault or for its
/// token (⊘), at the tick it happened.
pub(crate) struct LaneMark {
    pub agent: usize,
    pub tick: u64,
    pub denied: bool,
    pub title: String,
}

/// Every refusal to draw: the driver's denied steps at their step's tick; each delegation
/// attempt that made no task (denied, refused by a fault, its token refused) at its own tick;
/// each driver request a fault or a token check refused, at its step's tick.
pub(crate) fn lane_marks(record: &Record, anchors: &[(u64, u8)]) -> Vec<LaneMark> {
    let s = record.scenario;
    let mut marks = Vec::new();
    let step_tick = |step: usize| {
        step.checked_sub(1)
            .and_then(|i| anchors.get(i))
            .map_or(0, |a| a.0)
    };
    // Denials of delegations: their tick is their attempt's.
    let mut nested = std::collections::BTreeMap::new();
    for r in &record.refused_attempts {
        if let RefusedWhy::Denied(d) = r.why {
            nested.insert(d, r.tick);
        }
    }
    for (k, d) in record.denials.iter().enumerate() {
        let codes: Vec<&str> = d.denials.iter().map(|x| x.code.as_str()).collect();
        let details: Vec<&str> = d.denials.iter().map(|x| &*x.detail).collect();
        let tick = nested
            .get(&k)
            .copied()
            .unwrap_or_else(|| step_tick(d.step()));
        marks.push(LaneMark {
            agent: d.callee(),
            tick,
            denied: true,
            title: format!(
                "t{tick} step {}: {} → {} denied: {}\n{}",
                d.step(),
                s.symbols.name(d.caller),
                s.agents[d.callee()].name(),
                codes.join(", "),
                details.join("\n")
            ),
        });
    }
    for r in &record.refused_attempts {
        // Denials are drawn from the denials themselves, above.
        if let RefusedWhy::Denied(_) = r.why {
            continue;
        }
        let what = record.refused_why(&r.why);
        marks.push(LaneMark {
            agent: r.callee,
            tick: r.tick,
            denied: false,
            title: format!(
                "t{} {} ({}) → {} refused (attempt {}): {what}",
                r.tick,
                s.agents[record.tasks[r.task].agent()].name(),
                task_id(r.task),
                s.agents[r.callee].name(),
                r.attempt
            ),
        });
    }
    // Driver requests refused before anything was done: an outage or a token check.
    for (i, step) in record.steps.iter().enumerate() {
        let (StepResult::Nothing, Some(Step::Send(send))) = (&step.result, s.steps.get(i)) else {
            continue;
        };
        let Target::Agent(callee) = send.to else {
            continue;
        };
        for e in record.errors.iter().filter(|e| e.step() == i + 1) {
            if matches!(
                e.code,
                ErrorCode::AgentUnavailable | ErrorCode::Unauthenticated
            ) {
                marks.push(LaneMark {
                    agent: callee,
                    tick: step_tick(i + 1),
                    denied: false,
                    title: format!("step {}: {}", i + 1, e.detail),
                });
            }
        }
    }
    marks
}

/// Marks placed along bands (a lane's strip, a task's row) so that no two overlap: a mark that
/// would touch one placed earlier in its band moves right until it is clear. Deterministic: the
/// marks are placed in the order they are drawn.
#[derive(Default)]
pub(crate) struct Bands {
    placed: std::collections::BTreeMap<(u8, usize), Vec<(f64, f64)>>,
}

impl Bands {
    /// The left edge where a mark of `width` wanting `x` goes in `band`.
    pub(crate) fn place(&mut self, band: (u8, usize), x: f64, width: f64) -> f64 {
        let taken = self.placed.entry(band).or_default();
        let mut x = x;
        while let Some(&(_, end)) = taken
            .iter()
            .find(|&&(a, b)| x < b + MARK_GAP && a < x + width + MARK_GAP)
        {
            x = end + MARK_GAP;
        }
        taken.push((x, x + width));
        x
    }
}
