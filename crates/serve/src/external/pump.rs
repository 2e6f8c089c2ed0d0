//! The pump: the world's thread during a run with real agents. It runs the driver's steps; a step
//! addressed to a real agent is a request made on the runtime, and until its answer comes back on
//! the jobs' channel the pump answers the agent's own calls to the scripted agents from that same
//! channel — each tied to one of its tasks and admitted as that task's delegation — so it never
//! blocks on the agent while holding the world. It records what the agent answered, applies
//! `crash` faults to its process, and stops when a signal asks.

use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use engine::World;
use engine::record::{AgentIx, ErrorCode, StepResult, TaskIx};
use engine::scenario::{FaultKind, FaultTarget, Step, Target, TaskRef};

use super::client::{self, Answered};
use super::start::{Live, Starter};
use super::wire;
use crate::desk::Desk;
use crate::job::{Job, Req};

/// The agent's own ids of one of its tasks, kept at the edge (never reported).
#[derive(Default, Clone)]
pub(super) struct Theirs {
    pub(super) task_id: Option<String>,
    context_id: Option<String>,
    /// The agent messages of its history already recorded (an answer repeats them).
    history_seen: usize,
}

pub(super) struct Pump {
    pub(super) world: World<'static>,
    pub(super) desk: Desk,
    pub(super) rx: Receiver<Job>,
    pub(super) tx: Sender<Job>,
    pub(super) handle: tokio::runtime::Handle,
    pub(super) live: Vec<Live>,
    pub(super) theirs: std::collections::BTreeMap<TaskIx, Theirs>,
    /// The task of each real agent with a2a-sim's request in flight.
    pub(super) in_flight: Option<TaskIx>,
    pub(super) first_agent_caller: usize,
    pub(super) timeout: Duration,
    pub(super) rpc_id: u64,
    /// A signal asked the run to stop: no further step is driven.
    pub(super) stopping: bool,
    /// How to start an agent again after a `crash` fault's restart.
    pub(super) starter: Option<Starter>,
    /// The `crash` faults (by index) whose kill, and whose restart, has been done.
    pub(super) crashed: std::collections::BTreeSet<usize>,
    pub(super) restarted: std::collections::BTreeSet<usize>,
    /// How long to wait after an agent's call for others (the largest `settle_ms`).
    pub(super) settle: Duration,
}

/// The trace id a2a-sim puts on the requests for task `ix`: recognisable and never zero.
pub(super) fn trace_of(ix: TaskIx) -> u128 {
    (0xa2a5_u128 << 112) | (ix as u128 + 1)
}

pub(super) fn task_of_trace(trace: u128) -> Option<TaskIx> {
    (trace >> 112 == 0xa2a5)
        .then_some((trace & ((1u128 << 112) - 1)) as usize)?
        .checked_sub(1)
}

impl Pump {
    pub(super) fn new(
        world: World<'static>,
        desk: Desk,
        (rx, tx): (Receiver<Job>, Sender<Job>),
        handle: tokio::runtime::Handle,
        first_agent_caller: usize,
        timeout: Duration,
    ) -> Pump {
        Pump {
            world,
            desk,
            rx,
            tx,
            handle,
            live: Vec::new(),
            theirs: Default::default(),
            in_flight: None,
            first_agent_caller,
            timeout,
            rpc_id: 0,
            stopping: false,
            starter: None,
            crashed: Default::default(),
            restarted: Default::default(),
            settle: Duration::ZERO,
        }
    }

    /// `crash` faults on a real agent act on its process: at the first step boundary at or
    /// after `at` it is killed (SIGKILL, no time to tidy up), and it is started again at the
    /// first one at or after `restart` (a crash without `restart` leaves it down). The engine
    /// fails its open tasks at `at` and refuses requests to it until `restart`.
    pub(super) fn crashes(&mut self) {
        let clock = self.world.clock();
        let faults = self.world.faults;
        for (i, f) in faults.entries.iter().enumerate() {
            let (FaultTarget::Agent(agent), FaultKind::Crash { at, restart }) =
                (&f.target, &f.kind)
            else {
                continue;
            };
            let Some(l) = self.live_of(*agent) else {
                continue;
            };
            if *at <= clock
                && self.crashed.insert(i)
                && let Some(p) = self.live[l].process.take()
            {
                p.kill();
            }
            let restarted = restart.is_some_and(|r| r <= clock) && self.restarted.insert(i);
            let started = self.world.scenario.agents[*agent]
                .external
                .as_ref()
                .is_some_and(|e| e.url.is_none());
            if restarted
                && started
                && self.live[l].process.is_none()
                && let Some(starter) = &self.starter
            {
                let scenario = self.world.scenario;
                match starter.start(&self.handle, scenario, *agent, true) {
                    Ok(live) => self.live[l] = live,
                    Err(failed) => {
                        let (live, why) = *failed;
                        self.live[l] = live;
                        let detail = format!("restarting after its crash: {why}");
                        self.world
                            .external_error(ErrorCode::AgentExited, detail, None);
                    }
                }
            }
        }
    }

    pub(super) fn live_of(&self, agent: AgentIx) -> Option<usize> {
        self.live.iter().position(|l| l.agent == agent)
    }

    /// One driver step: to a scripted agent as `run` runs it; to a real agent over the wire.
    pub(super) fn step(&mut self, step: &'static Step) {
        let external_task = |w: &World<'static>, caller, task: &TaskRef| {
            w.lookup_task(caller, task)
                .filter(|&t| w.is_external(w.tasks[t].agent()))
        };
        match step {
            // To a real agent, by name or as the one discovery picks (by its card's skills).
            Step::Send(s)
                if matches!(s.to, Target::Discover(_))
                    || matches!(s.to, Target::Agent(a) if self.world.is_external(a)) =>
            {
                if let Some(task) = self.run_step(step)
                    && self.world.is_external(self.world.tasks[task].agent())
                {
                    self.send(task, s.text.as_str(), s.data(), s.stream());
                }
            }
            Step::Reply {
                caller,
                task,
                message,
            } if external_task(&self.world, *caller, task).is_some() => {
                if let Some(task) = self.run_step(step) {
                    self.send(task, message.text.as_str(), message.data(), false);
                }
            }
            // A push config on a real agent's task goes on to the agent, with a2a-sim's own
            // webhook URL: what it then sends is recorded as the task's pushes.
            Step::SetPushConfig {
                caller, task, push, ..
            } if external_task(&self.world, *caller, task).is_some() => {
                if let Some(task) = self.run_step(step) {
                    self.set_push(task, push.token.expose());
                }
            }
            // A get or a cancel of a real agent's task is asked of the agent too, by its own id:
            // what it answers is recorded (news since its last answer; a cancel it confirms).
            Step::Get { caller, task } | Step::Cancel { caller, task }
                if external_task(&self.world, *caller, task).is_some() =>
            {
                let cancel = matches!(step, Step::Cancel { .. });
                if let Some(task) = self.run_step(step) {
                    self.ask_about(task, cancel);
                }
            }
            _ => {
                self.world.run_step(step);
            }
        }
    }

    /// Runs a driver step; the task it made or resumed.
    fn run_step(&mut self, step: &'static Step) -> Option<TaskIx> {
        self.world.run_step(step);
        match self.world.steps.last()?.result {
            StepResult::Task { task, .. } => Some(task),
            _ => None,
        }
    }

    /// Sends the agent of `task` a message for it (its first, or a reply) and records what it
    /// answered; its calls to scripted agents are answered meanwhile.
    fn send(
        &mut self,
        task: TaskIx,
        text: &str,
        data: Option<&engine::scenario::DataMap>,
        stream: bool,
    ) {
        let agent = self.world.tasks[task].agent();
        let Some(l) = self.live_of(agent) else {
            return;
        };
        let theirs = self.theirs.get(&task).cloned().unwrap_or_default();
        let message_id = format!(
            "msg-{}",
            self.world.tasks[task].messages.last().map_or(0, |m| m.id())
        );
        self.rpc_id += 1;
        let endpoint = self.live[l].endpoint.clone();
        // A `stream` step streams when the agent's card says it can (else it is sent as a send).
        let stream = stream && endpoint.streaming;
        let body = wire::send_request(
            &endpoint,
            self.rpc_id,
            &wire::Outgoing {
                message_id,
                text,
                data,
                task_id: theirs.task_id.as_deref(),
                context_id: theirs.context_id.as_deref(),
            },
            stream,
        );
        let result = self.exchange(task, &endpoint, body);
        let read = if stream {
            wire::read_stream_answer
        } else {
            wire::read_send_answer
        };
        self.record_with(l, task, theirs, result, read, stream);
        self.world.external_step_answered();
    }

    /// Asks the agent of `task` for its task (GetTask) or to cancel it (CancelTask), by the id it
    /// gave; records what it answers.
    fn ask_about(&mut self, task: TaskIx, cancel: bool) {
        let agent = self.world.tasks[task].agent();
        let Some(l) = self.live_of(agent) else {
            return;
        };
        let theirs = self.theirs.get(&task).cloned().unwrap_or_default();
        let Some(their_id) = theirs.task_id.clone() else {
            return;
        };
        self.rpc_id += 1;
        let endpoint = self.live[l].endpoint.clone();
        let body = wire::task_request(&endpoint, self.rpc_id, &their_id, cancel);
        let result = self.exchange(task, &endpoint, body);
        self.record_with(l, task, theirs, result, wire::read_task_answer, false);
    }

    /// Makes one request of the agent for `task` on the runtime and answers the agent's calls
    /// until its answer comes.
    pub(super) fn exchange(
        &mut self,
        task: TaskIx,
        endpoint: &wire::Endpoint,
        body: Vec<u8>,
    ) -> Result<client::Answer, String> {
        let mut headers = vec![(
            "traceparent",
            format!("00-{:032x}-{:016x}-01", trace_of(task), self.rpc_id),
        )];
        if endpoint.v1 {
            headers.push(("A2A-Version", "1.0".to_string()));
        }
        let tx = self.tx.clone();
        let timeout = self.timeout;
        let url = endpoint.url.clone();
        self.handle.spawn(async move {
            let result = client::call(&url, &headers, Some(body), timeout).await;
            let (reply, _) = tokio::sync::oneshot::channel();
            let _ = tx.send(Job {
                req: Req::Agent(Box::new(Answered { task, result })),
                reply,
                trace: None,
            });
        });
        self.in_flight = Some(task);
        let result = self.pump_until(task);
        self.in_flight = None;
        result
    }

    /// Answers the agent's calls until the answer for `task` comes (or the run's bound on a
    /// wait on an agent passes).
    fn pump_until(&mut self, task: TaskIx) -> Result<client::Answer, String> {
        let deadline = Instant::now() + self.timeout + Duration::from_secs(5);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(Job {
                    req: Req::Agent(a), ..
                }) if a.task == task => return a.result,
                Ok(Job {
                    req: Req::Agent(_), ..
                }) => {}
                Ok(job) => {
                    let mut answered = None;
                    for job in self.batch(job) {
                        match job.req {
                            Req::Agent(a) if a.task == task => answered = Some(a.result),
                            Req::Agent(_) => {}
                            _ => self.answer(job),
                        }
                    }
                    if self.stopping {
                        return Err("the run is stopping".into());
                    }
                    if let Some(result) = answered {
                        return result;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("no answer within {} s", self.timeout.as_secs_f64()));
                }
                Err(RecvTimeoutError::Disconnected) => return Err("the run is stopping".into()),
            }
        }
    }

    /// Records the agent's answer for `task`, or what went wrong.
    fn record_with(
        &mut self,
        l: usize,
        task: TaskIx,
        mut theirs: Theirs,
        result: Result<client::Answer, String>,
        read: fn(&wire::Endpoint, u16, &[u8]) -> Result<wire::TaskAnswer, String>,
        stream: bool,
    ) {
        let name = self.world.scenario.agents[self.live[l].agent].name();
        let failure = match result {
            Ok(answer) => {
                match read(&self.live[l].endpoint, answer.status, &answer.body) {
                    Ok(a) => {
                        let agent_messages = a
                            .reported
                            .iter()
                            .filter(|r| {
                                matches!(r, wire::Reported::Status { state, .. } if *state == engine::record::TaskState::Working)
                            })
                            .count();
                        // A blocking answer repeats the history already recorded; a stream's
                        // updates are each new.
                        let skip = if stream {
                            0
                        } else {
                            theirs.history_seen.min(agent_messages)
                        };
                        // What the next answer's history will repeat: these, and the message of
                        // the status it ended in (the SDKs move it into `history` when the next
                        // status comes: a question the agent asked, say).
                        let last_said = matches!(
                            a.reported.last(),
                            Some(wire::Reported::Status { text: Some(_), .. })
                        );
                        theirs.history_seen = agent_messages + usize::from(last_said && !stream);
                        theirs.task_id = a.task_id.clone().or(theirs.task_id);
                        theirs.context_id = a.context_id.clone().or(theirs.context_id);
                        self.theirs.insert(task, theirs);
                        if self.world.tasks[task].state.is_terminal() {
                            // A crash fault (or a cancel) ended it meanwhile: what the agent
                            // says now changes nothing.
                            return;
                        }
                        let mut working_seen = 0;
                        for r in a.reported {
                            if let wire::Reported::Status {
                                state: engine::record::TaskState::Working,
                                ..
                            } = &r
                            {
                                working_seen += 1;
                                if working_seen <= skip {
                                    continue;
                                }
                            }
                            if let Err(e) = self.apply(task, r) {
                                let detail = format!("agent `{name}` reported {e}");
                                self.world.external_error(
                                    ErrorCode::ProtocolError,
                                    detail,
                                    Some(task),
                                );
                                break;
                            }
                        }
                        return;
                    }
                    Err(why) => (
                        ErrorCode::ProtocolError,
                        format!("agent `{name}` answered {why}"),
                    ),
                }
            }
            Err(why) => {
                // A connection that broke may be a process that is dying: give it a moment to
                // be seen dead, so that the same agent is reported the same way every time.
                let exited = self.live[l].process.as_mut().and_then(|p| {
                    let deadline = Instant::now() + Duration::from_secs(2);
                    loop {
                        if let Some(status) = p.exited() {
                            return Some(status);
                        }
                        if Instant::now() >= deadline || why.starts_with("no answer within") {
                            return None;
                        }
                        std::thread::sleep(Duration::from_millis(20));
                    }
                });
                match exited {
                    // Nothing of the run's own (a port, a path, the log) in the report.
                    Some(status) => (
                        ErrorCode::AgentExited,
                        format!(
                            "agent `{name}`'s process exited ({status}) while a2a-sim waited on it; its output is in its log (--agent-logs)"
                        ),
                    ),
                    None if why.starts_with("no answer within") => (
                        ErrorCode::AgentTimeout,
                        format!("agent `{name}`: {why} (--agent-timeout)"),
                    ),
                    None => (ErrorCode::ProtocolError, format!("agent `{name}`: {why}")),
                }
            }
        };
        self.world.external_error(failure.0, failure.1, Some(task));
    }

    fn apply(&mut self, task: TaskIx, r: wire::Reported) -> Result<(), String> {
        match r {
            wire::Reported::Status { state, text, data } => self
                .world
                .external_status(task, state, text, data)
                .map_err(|e| format!("an illegal transition: {} → {}", e.from, e.to)),
            wire::Reported::Artifact { name, text, data } => {
                self.world.external_artifact(task, name, text, data);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_id_names_its_task_and_nothing_else_does() {
        for ix in [0, 1, 41, 1 << 40] {
            assert_eq!(task_of_trace(trace_of(ix)), Some(ix));
        }
        assert_eq!(task_of_trace(0x4bf92f3577b34da6a3ce929d0e0e4736), None);
        assert_eq!(task_of_trace(0xa2a5_u128 << 112), None);
    }
}
