//! The one owner of the world: a plain thread that takes requests in arrival order (a FIFO
//! channel), answers each through its [`Desk`] (a driver step at the current clock, rendered
//! with the protocol adapters of `run --format a2a`), and runs scheduled work when real time says
//! it is due. It writes the session's report as it goes: each step once final, which the world
//! then forgets.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;

use engine::World;
use engine::scenario::Scenario;

use super::desk::{Desk, Settings, ticks};
use super::job::{Answer, Job, Reply};
use output::report::json::Session;

/// Runs the owner loop until [`Req::Shutdown`] (or every sender is gone); writes the report.
pub fn run(
    scenario: &'static Scenario,
    settings: Settings,
    rx: Receiver<Job>,
    finish: Option<crate::Finish>,
) -> Result<(), String> {
    // Claims to check at the end, and a recording, need every step the session served.
    let keep_steps = finish.is_some() || settings.record.is_some();
    let record = settings.record.clone();
    let mut waits = super::record_file::Waits::default();
    let mut world = World::new(scenario);
    world.pace_events();
    // The report is written as the session runs: a long session keeps no step it wrote.
    let mut file = match &settings.report {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?,
        )),
        None => None,
    };
    let report_path = settings.report.clone();
    let mut report = file
        .as_mut()
        .map(|f| Session::begin(&world, f as &mut dyn std::io::Write));
    let mut failed = None;
    let tick = Duration::from_millis(settings.tick_ms);
    let mut desk = Desk::new(settings);
    // When the earliest scheduled activity was found due in the future, and at which tick.
    let mut waiting: Option<(Instant, u64)> = None;
    loop {
        desk.subscriptions.pump(&world);
        let clock = world.clock();
        let timeout = match world.next_due() {
            None => None,
            Some(due) if due <= clock => Some(Duration::ZERO),
            Some(due) => {
                let (since, at) = match waiting {
                    Some((since, at)) if at == due => (since, at),
                    _ => (Instant::now(), due),
                };
                waiting = Some((since, at));
                let total = ticks(tick, due - clock);
                Some(total.saturating_sub(since.elapsed()))
            }
        };
        let job = match timeout {
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(t) if t.is_zero() => Err(RecvTimeoutError::Timeout),
            Some(t) => rx.recv_timeout(t),
        };
        let job = match job {
            Ok(job) => job,
            Err(RecvTimeoutError::Timeout) => {
                if let Some(due) = world.next_due() {
                    let from = world.clock();
                    world.advance_to(due.max(clock));
                    waits.0.push((world.served.len(), from, world.clock()));
                }
                // Real time has already waited for this work: its webhooks are due now.
                desk.notify(&world, None);
                write_steps(&mut world, &mut report, &mut failed, keep_steps);
                waiting = None;
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let reply = match desk.answer(&mut world, job.req) {
            Some(reply) => reply,
            None => {
                let _ = job.reply.send(Reply {
                    answer: Answer::Value(Value::Null),
                    delay: Duration::ZERO,
                });
                break;
            }
        };
        let _ = job.reply.send(reply);
        write_steps(&mut world, &mut report, &mut failed, keep_steps);
    }
    // What was still scheduled runs to quiescence, as at the end of `run`: the report of a fixed
    // sequence of requests does not depend on when the session was stopped.
    world.finish();
    desk.notify(&world, None);
    desk.subscriptions.close_all(&world);
    if let Some(finish) = finish {
        finish(&world);
    }
    if let Some((out, served)) = &record {
        let text = super::record_file::scenario_text(&world, served, out, &waits);
        std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    let finished = match (failed, report) {
        (Some(e), _) => Err(e),
        (None, Some(report)) => report.finish(&world),
        (None, None) => Ok(()),
    };
    match (finished, &report_path) {
        (Err(e), Some(path)) => Err(format!("{}: {e}", path.display())),
        _ => Ok(()),
    }
}

/// Steps kept after they were written, before the world forgets them (a batch at a time: a
/// forget moves the steps still held).
const FORGET_AFTER: usize = 4096;

/// Writes the steps that are final to the report, and lets the world forget those written (all
/// of them when there is no report: nothing needs them). A report that cannot be written is
/// given up, and the failure kept for the session's end.
fn write_steps(
    world: &mut World,
    report: &mut Option<Session>,
    failed: &mut Option<std::io::Error>,
    keep_steps: bool,
) {
    if let Some(r) = report
        && let Err(e) = r.steps(world, &|call| world.call_open(call))
    {
        *failed = Some(e);
        *report = None;
    }
    let done = match report {
        Some(r) => r.written() - world.steps_forgotten,
        None => world.steps.len(),
    };
    if done >= FORGET_AFTER && !keep_steps {
        world.forget_steps(done);
    }
}
