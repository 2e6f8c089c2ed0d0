//! Answering one request: the driver step it runs (or the list, subscription or push config it
//! reads), its answer in the bindings' shapes with each client's `messageId` given back, and the
//! webhooks it caused handed to the delivery side. `serve`'s owner loop and a run with real
//! agents (`external`) both answer through a [`Desk`].

use std::time::{Duration, Instant};

use serde_json::Value;

use engine::World;
use engine::record::{ErrorCode, ErrorRecord, StepResult, parse_task_id};
use engine::scenario::{Refusal, Step, TaskRef};
use output::protocol::export;

use super::failure::{Failure, FailureKind};
use super::job::{Answer, Reply, Req};
use super::list_tasks;
use super::push_configs::PushConfigs;
use super::served_steps::ServedSteps;
use super::stream_events::relay;
use super::subscriptions::Subscriptions;
use output::protocol::A2aVersion;

pub struct Settings {
    pub tick_ms: u64,
    pub report: Option<std::path::PathBuf>,
    /// `--record`: where to write the session as a scenario, and the served file's path.
    pub record: Option<(std::path::PathBuf, std::path::PathBuf)>,
    /// The version of push payloads (the served cards').
    pub version: A2aVersion,
    /// Where notifications to deliver go (the HTTP side POSTs them).
    pub deliver: tokio::sync::mpsc::UnboundedSender<Notification>,
    /// Whether a stream also carries the events of the child tasks its step opened
    /// (`serve --relay-children`); by default a stream carries its own task only.
    pub relay_children: bool,
}

/// One webhook POST to make, with the retry policy of faults.md when the scenario has one.
pub struct Notification {
    pub url: String,
    pub token: String,
    pub body: Vec<u8>,
    pub attempts: u32,
    pub backoff: Duration,
    /// When to POST it: as long after its request as the idle ticks before its status change,
    /// so a slow agent's webhooks come when its work is done (at once for scheduled work).
    pub at: Instant,
}

/// The webhooks the world pushed since `seen`, to the configs this session set (by their URLs
/// as the clients gave them). `paced`: when the request that made them arrived, and the idle
/// ticks then (None: they are due now).
fn notify(
    world: &World,
    settings: &Settings,
    raw_urls: &std::collections::BTreeMap<usize, String>,
    seen: &mut usize,
    paced: Option<(Instant, u64)>,
) {
    let tick = Duration::from_millis(settings.tick_ms);
    for p in &world.pushes[*seen..] {
        let Some(url) = raw_urls.get(&p.url) else {
            continue;
        };
        let t = &world.tasks[p.task];
        let Some(config) = t.push() else { continue };
        let Some(entry) = t
            .history
            .iter()
            .rposition(|h| h.tick == p.tick && h.state == p.state)
        else {
            continue;
        };
        let body = export::push_payload(world, settings.version, p.task, entry);
        let (attempts, backoff) = world
            .faults
            .deliveries()
            .map_or((1, 0), |d| (d.attempts.max(1), d.backoff));
        let _ = settings.deliver.send(Notification {
            url: url.clone(),
            token: config.token.expose().to_string(),
            body: serde_json::to_vec(&body).unwrap_or_default(),
            attempts,
            backoff: ticks(tick, backoff),
            at: paced.map_or_else(Instant::now, |(start, idle)| {
                start + ticks(tick, world.idle_at_tick(p.tick).saturating_sub(idle))
            }),
        });
    }
    *seen = world.pushes.len();
}

fn failure_of(errors: &[ErrorRecord]) -> Failure {
    let Some(e) = errors.first() else {
        return Failure::new(FailureKind::Internal, "the request did nothing");
    };
    let kind = match e.code {
        ErrorCode::TaskNotFound => FailureKind::TaskNotFound,
        ErrorCode::TaskNotCancelable => FailureKind::TaskNotCancelable,
        ErrorCode::PushNotSupported => FailureKind::PushNotSupported,
        ErrorCode::TaskTerminal | ErrorCode::TaskNotAwaiting | ErrorCode::StreamingNotSupported => {
            FailureKind::Unsupported
        }
        ErrorCode::HostNotAllowed | ErrorCode::MissingToken | ErrorCode::NoCandidate => {
            FailureKind::InvalidParams
        }
        ErrorCode::Unauthenticated => FailureKind::Unauthenticated,
        ErrorCode::AgentUnavailable => FailureKind::Unavailable,
        ErrorCode::IllegalTransition
        | ErrorCode::HandlerIncomplete
        | ErrorCode::TemplateMissing
        | ErrorCode::AgentExited
        | ErrorCode::AgentTimeout
        | ErrorCode::ProtocolError => FailureKind::Internal,
    };
    Failure::new(kind, format!("{}: {}", e.code.as_str(), e.detail))
}

/// A request on a task that another agent holds (get, cancel, reply: the step names no agent,
/// the URL does): the refusal, word for word the world's for a task that does not exist.
fn elsewhere(world: &World, step: &Step, agent: usize) -> Option<Failure> {
    let (Step::Get { task, .. } | Step::Cancel { task, .. } | Step::Reply { task, .. }) = step
    else {
        return None;
    };
    let TaskRef::Id(id) = task else { return None };
    let ix = parse_task_id(id).filter(|&ix| ix < world.tasks.len())?;
    (world.tasks[ix].agent() != agent).then(|| {
        Failure::new(
            FailureKind::TaskNotFound,
            format!("task_not_found: task `{id}` not found"),
        )
    })
}

/// One driver step: its task (or, on a stream, its events; with `children`, its child tasks'
/// too), or the refusal.
fn answer_step(
    world: &mut World<'static>,
    step: &'static Step,
    v: A2aVersion,
    stream: bool,
    children: bool,
    tick: Duration,
    nested: bool,
) -> (Answer, Option<usize>) {
    let idle_before = world.session.idle_ticks;
    // A `drop_stream` fault is judged when the request arrives, as every fault is.
    let cut = match step {
        Step::Send(s) if stream => match s.to {
            engine::scenario::Target::Agent(a) => world.next_stream_cut(a),
            engine::scenario::Target::Discover(_) => None,
        },
        _ => None,
    };
    // A session's request is a step of its own; a real agent's call is made within the step
    // that drives it, as a handler's delegation is.
    let (result, errors) = if nested {
        let (record, errors) = world.serve_call(step);
        (record.result, errors.to_vec())
    } else {
        let (record, errors) = world.serve_step(step);
        (record.result.clone(), errors.to_vec())
    };
    let errors = &errors[..];
    let task = match &result {
        StepResult::Task { task, .. } => Some(*task),
        _ => None,
    };
    let answer = match &result {
        StepResult::Task { task, .. } => {
            let task = *task;
            if let Step::SetPushConfig { .. } = step {
                // A refused config is recorded as an error of the step, the task still shown.
                if !errors.is_empty() {
                    return (Answer::Error(failure_of(errors)), Some(task));
                }
                return (Answer::Value(Value::Null), Some(task));
            }
            // A send's call opens with its task; a reply's when the reply reaches the task.
            match world.step_call(task).filter(|_| stream) {
                Some(call) => {
                    let mut events: Vec<(Value, Duration)> = relay(world, v, call, children)
                        .map(|(i, e)| (e, ticks(tick, world.idle_at(i) - idle_before)))
                        .collect();
                    // A `drop_stream` fault cuts the stream: the client sees it end early.
                    if let Some(after) = cut {
                        events.truncate(after as usize);
                    }
                    Answer::Events(events)
                }
                None => Answer::Task(export::task_value(world, v, task)),
            }
        }
        StepResult::Denied(codes) => Answer::Error(Failure {
            kind: FailureKind::Denied,
            message: format!(
                "admission denied: {}",
                codes
                    .iter()
                    .map(|c| c.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            denials: codes.iter().map(|c| c.as_str()).collect(),
        }),
        _ => {
            let mut f = failure_of(errors);
            if f.kind == FailureKind::Unavailable {
                // A wire fault refused it: the wire answers as the fault says.
                match world.session.last_refusal {
                    Some(Refusal::HttpError(status)) => f.kind = FailureKind::HttpError(status),
                    Some(Refusal::Reset) => f.kind = FailureKind::Reset,
                    _ => {}
                }
            }
            Answer::Error(f)
        }
    };
    (answer, task)
}

/// Every `messageId` in `v` that a client gave under another id, as the client gave it.
fn echo_ids(v: &mut Value, ids: &std::collections::BTreeMap<String, String>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                match x {
                    Value::String(s) if k == "messageId" => {
                        if let Some(id) = ids.get(s.as_str()) {
                            *s = id.clone();
                        }
                    }
                    _ => echo_ids(x, ids),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| echo_ids(x, ids)),
        _ => {}
    }
}

/// `n` ticks in real time.
pub(crate) fn ticks(tick: Duration, n: u64) -> Duration {
    tick.saturating_mul(n.min(u32::MAX as u64) as u32)
}

/// What a session keeps beside the world to answer requests: the steps it served, the push
/// configs as clients gave them, live subscriptions and the webhooks already handed over. Both
/// `serve`'s loop and a run with a real agent in it ([`crate::external`]) answer through it.
pub struct Desk {
    pub settings: Settings,
    steps: ServedSteps,
    /// The raw URL of each push config this session set (the world records it redacted).
    raw_urls: std::collections::BTreeMap<usize, String>,
    configs: PushConfigs,
    pub subscriptions: Subscriptions,
    pushed: usize,
    tick: Duration,
    /// Requests are calls made within the driver's current step (a real agent's), not steps.
    pub nested: bool,
    /// The `messageId` each client gave its messages, by the id the record gives them: what the
    /// answers give back (the record, and so the report, keep their own ids).
    client_ids: std::collections::BTreeMap<String, String>,
    /// The task the latest step made or moved on.
    last_task: Option<usize>,
}

impl Desk {
    pub fn new(settings: Settings) -> Desk {
        Desk {
            tick: Duration::from_millis(settings.tick_ms),
            settings,
            steps: ServedSteps::default(),
            raw_urls: std::collections::BTreeMap::new(),
            configs: PushConfigs::default(),
            subscriptions: Subscriptions::default(),
            pushed: 0,
            nested: false,
            client_ids: std::collections::BTreeMap::new(),
            last_task: None,
        }
    }

    /// One request's answer and how long its idle ticks take in real time; `None` for
    /// [`Req::Shutdown`] (and for what only a real agent's run sends).
    pub fn answer(&mut self, world: &mut World<'static>, req: Req) -> Option<Reply> {
        let idle_before = world.session.idle_ticks;
        let arrived = Instant::now();
        let answer = match req {
            Req::Step {
                step,
                agent,
                version,
                stream,
                push_id,
                message_id,
            } => {
                let answer = self.step(world, step, agent, version, stream, &push_id);
                if let (Some(id), Some(ix)) = (message_id, self.last_task.take()) {
                    // The client's message is the newest message of its own on the task.
                    let t = &world.tasks[ix];
                    if let Some(m) = t
                        .messages
                        .iter()
                        .rev()
                        .find(|m| m.role() == engine::record::Role::User)
                    {
                        self.client_ids.insert(format!("msg-{}", m.id()), id);
                    }
                }
                self.echo(answer)
            }
            Req::List(q, v) => self.echo(list_tasks::list(world, &q, v)),
            Req::Subscribe {
                caller,
                agent,
                task,
                version,
            } => self
                .subscriptions
                .open(world, caller, agent, &task, version),
            Req::PushConfig(q) => self.configs.answer(world, &q),
            Req::Shutdown | Req::Agent(_) => return None,
            // Only a run with real agents gives out webhook URLs (its pump takes these).
            Req::Webhook { .. } => Answer::Error(Failure::new(
                FailureKind::TaskNotFound,
                "no push config of this server sends webhooks here",
            )),
        };
        // A stream is paced event by event; any other answer waits for all of its idle time.
        let delay = match answer {
            Answer::Events(_) => Duration::ZERO,
            _ => ticks(self.tick, world.session.idle_ticks - idle_before),
        };
        self.notify(world, Some((arrived, idle_before)));
        Some(Reply { answer, delay })
    }

    fn step(
        &mut self,
        world: &mut World<'static>,
        step: Box<Step>,
        agent: usize,
        version: A2aVersion,
        stream: bool,
        push_id: &str,
    ) -> Answer {
        // Each agent is a server of its own: a task of another is not found here.
        let refused = elsewhere(world, &step, agent)
            .or_else(|| super::push_configs::refused_on_send(world, &step));
        if let Some(f) = refused {
            return Answer::Error(f);
        }
        let step = self.steps.keep(step, world.tasks.len());
        let held = world.push_urls.len();
        let children = self.settings.relay_children;
        let (mut answer, task) = answer_step(
            world,
            step,
            version,
            stream,
            children,
            self.tick,
            self.nested,
        );
        self.last_task = task;
        if world.push_urls.len() > held {
            // The config the step set: kept as the client gave it, for reading back and (when
            // the receiver is on this machine) for real POSTs.
            let set = match step {
                Step::Send(s) => s.push(),
                Step::SetPushConfig { push, .. } => Some(&**push),
                _ => None,
            };
            let task = world.steps.last().and_then(|r| match r.result {
                StepResult::Task { task, .. } => Some(task),
                _ => None,
            });
            if let (Some(push), Some(task)) = (set, task) {
                let shape = self.configs.set(task, push_id, &push.url, version);
                if let Step::SetPushConfig { .. } = step {
                    answer = Answer::Value(shape);
                }
                self.raw_urls
                    .insert(world.push_urls.len() - 1, push.url.clone());
            }
        }
        answer
    }

    /// An answer with each message a client sent under the `messageId` it gave.
    fn echo(&self, answer: Answer) -> Answer {
        if self.client_ids.is_empty() {
            return answer;
        }
        match answer {
            Answer::Task(mut v) => {
                echo_ids(&mut v, &self.client_ids);
                Answer::Task(v)
            }
            Answer::Value(mut v) => {
                echo_ids(&mut v, &self.client_ids);
                Answer::Value(v)
            }
            Answer::Events(mut events) => {
                for (v, _) in &mut events {
                    echo_ids(v, &self.client_ids);
                }
                Answer::Events(events)
            }
            other => other,
        }
    }

    /// Hands the webhooks pushed since the last call to the delivery side (`paced`: see
    /// [`notify`]).
    pub fn notify(&mut self, world: &World, paced: Option<(Instant, u64)>) {
        notify(
            world,
            &self.settings,
            &self.raw_urls,
            &mut self.pushed,
            paced,
        );
    }
}
