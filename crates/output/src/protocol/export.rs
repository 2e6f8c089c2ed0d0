//! The record's tasks and stream events as protocol JSON: A2A Tasks (1.0 or 0.3), A2A stream
//! events as JSON Lines, and ACP Runs.

use std::io::Write;

use serde_json::{Map, Value, json};

use crate::protocol::A2aVersion;
use crate::protocol::adapter::{self, InternalTask, Outputs, RunTimes};
use crate::report::json::{Seq, write_pretty};
use engine::format_utc;
use engine::record::{Event, EventKind, Record, Role, Task, TaskIx, task_id};

/// How much of a task's append-only logs to show: a snapshot is a prefix.
#[derive(Debug, Clone, Copy)]
struct Prefix {
    history: usize,
    messages: usize,
    artifacts: usize,
    decisions: usize,
}

impl Prefix {
    fn whole(t: &Task) -> Prefix {
        Prefix {
            history: t.history.len(),
            messages: t.messages.len(),
            artifacts: t.artifacts.len(),
            decisions: t.decisions().len(),
        }
    }

    /// A call's snapshot of its task, taken when the task's latest status change (`history - 1`)
    /// is its newest fact: at creation, or as the task resolves. Its decisions are not counted in
    /// the event, but a decision is stamped with the clock it was made at and every later status
    /// change with a later tick, so those made before that change are those of an earlier tick.
    fn snapshot(t: &Task, history: usize, messages: usize, artifacts: usize) -> Prefix {
        let at = t.history[history - 1].tick;
        Prefix {
            history,
            messages,
            artifacts,
            decisions: t.decisions().iter().take_while(|d| d.tick < at).count(),
        }
    }
}

fn timestamp(w: &Record, tick: u64) -> String {
    format_utc(w.scenario.clock.millis(tick))
}

fn message(w: &Record, v: A2aVersion, ix: TaskIx, m: &engine::record::Message) -> Value {
    let t = &w.tasks[ix];
    let mut o = Map::new();
    if v == A2aVersion::V0_3 {
        o.insert("kind".into(), json!("message"));
    }
    o.insert("messageId".into(), json!(format!("msg-{}", m.id())));
    o.insert("contextId".into(), json!(t.context.to_string()));
    o.insert("taskId".into(), json!(task_id(ix)));
    o.insert("role".into(), json!(v.role(m.role() == Role::User)));
    o.insert(
        "parts".into(),
        Value::Array(adapter::parts(v, Some(&m.text), w.message_data(m))),
    );
    Value::Object(o)
}

fn status(w: &Record, v: A2aVersion, ix: TaskIx, entry: usize) -> Value {
    let t = &w.tasks[ix];
    let h = &t.history[entry];
    let mut o = Map::new();
    o.insert("state".into(), json!(v.state(h.state)));
    // The submitted entry's message is the caller's request, already in history: a status
    // message is the agent's.
    if let Some(m) = h.message().filter(|&m| t.messages[m].role() == Role::Agent) {
        o.insert("message".into(), message(w, v, ix, &t.messages[m]));
    }
    o.insert("timestamp".into(), json!(timestamp(w, h.tick)));
    Value::Object(o)
}

fn artifact(v: A2aVersion, a: &engine::record::Artifact) -> Value {
    let mut o = Map::new();
    o.insert("artifactId".into(), json!(format!("artifact-{}", a.id)));
    if let Some(name) = &a.name {
        o.insert("name".into(), json!(name));
    }
    o.insert(
        "parts".into(),
        Value::Array(adapter::parts(v, a.text().map(|t| &**t), a.data.as_deref())),
    );
    Value::Object(o)
}

fn task_metadata(w: &Record, v: A2aVersion, ix: TaskIx, p: Prefix) -> Value {
    let t = &w.tasks[ix];
    let names = &w.scenario.symbols;
    let chain: Vec<String> = w
        .chains
        .to_vec(t.delegation_chain)
        .iter()
        .map(|&s| names.name(s).to_string())
        .collect();
    let mut extra = Map::new();
    extra.insert("caller".into(), json!(names.name(t.owner.id)));
    if let Some(p) = t.parent() {
        extra.insert("parentTaskId".into(), json!(task_id(p)));
    }
    // The request's own configuration, in each version's spelling: A2A keeps no record of it.
    if t.return_immediately {
        let configuration = match v {
            A2aVersion::V1_0 => json!({"returnImmediately": true}),
            A2aVersion::V0_3 => json!({"blocking": false}),
        };
        extra.insert("configuration".into(), configuration);
    }
    if t.attempt >= 2 {
        extra.insert("attempt".into(), json!(t.attempt));
    }
    if p.decisions > 0 {
        let decisions = t.decisions()[..p.decisions]
            .iter()
            .map(|d| json!({"handlerStep": d.handler_step, "branch": d.branch.as_str(), "tick": d.tick}))
            .collect();
        extra.insert("decisions".into(), Value::Array(decisions));
    }
    adapter::metadata(Some(w.scenario.agents[t.agent()].name()), &chain, extra)
}

fn task_json(w: &Record, v: A2aVersion, ix: TaskIx, p: Prefix) -> Value {
    let t = &w.tasks[ix];
    let mut o = Map::new();
    if v == A2aVersion::V0_3 {
        o.insert("kind".into(), json!("task"));
    }
    o.insert("id".into(), json!(task_id(ix)));
    o.insert("contextId".into(), json!(t.context.to_string()));
    o.insert("status".into(), status(w, v, ix, p.history - 1));
    if p.artifacts > 0 {
        let list = t.artifacts[..p.artifacts]
            .iter()
            .map(|a| artifact(v, a))
            .collect();
        o.insert("artifacts".into(), Value::Array(list));
    }
    let history = t.messages[..p.messages]
        .iter()
        .map(|m| message(w, v, ix, m))
        .collect();
    o.insert("history".into(), Value::Array(history));
    o.insert("metadata".into(), task_metadata(w, v, ix, p));
    Value::Object(o)
}

/// `run --format a2a`: every task, in creation order, as one JSON array.
/// Protocol output carries timestamps; refuse a clock that runs past what RFC 3339 can write.
fn check_clock(w: &Record) -> std::io::Result<()> {
    let last = w.scenario.clock.millis(w.ids.tick);
    if last > engine::MAX_MS || w.scenario.clock.epoch_ms < 0 {
        return Err(std::io::Error::other(format!(
            "the clock reaches past 9999-12-31 (or before 1970) by tick {}; lower clock.tick_ms or move clock.epoch",
            w.ids.tick
        )));
    }
    Ok(())
}

/// Tasks are built one at a time as the array is written, never all at once.
pub fn write_tasks(w: &Record, v: A2aVersion, out: &mut dyn Write) -> std::io::Result<()> {
    check_clock(w)?;
    let tasks = (0..w.tasks.len()).map(|ix| task_json(w, v, ix, Prefix::whole(&w.tasks[ix])));
    write_pretty(&Seq(tasks), out)
}

/// `run --format a2a-stream`: every stream event of the run, one JSON object a line, in the order
/// they happened (tick order), as the wire sends them: each call's stream opens with its Task and
/// ends with the status update that leaves its task terminal or interrupted ([`ends_stream`]);
/// nothing of that call follows it. A call whose task never got there ends as the record does.
pub fn write_stream(w: &Record, v: A2aVersion, out: &mut dyn Write) -> std::io::Result<()> {
    write_stream_with(w, v, false, out)
}

/// Whether `e` is a status update that leaves its task terminal or interrupted (input- or
/// auth-required): a served stream's last event, as the official A2A servers end theirs (in 0.3
/// the one marked `final`).
pub fn ends_stream(w: &Record, e: &Event) -> bool {
    match w.event_kind(e) {
        EventKind::Status(h) => {
            let state = w.tasks[w.event_task(e)].history[h].state;
            state.is_terminal() || state.is_pause()
        }
        _ => false,
    }
}

/// [`write_stream`]; with `jsonrpc`, each event in the JSON-RPC 2.0 response envelope a server
/// sends (`{"jsonrpc": "2.0", "id": "req-N", "result": EVENT}`: 0.3's
/// `SendStreamingMessageResponse`, 1.0's `StreamResponse` as the result), `req-N` numbering the
/// calls (sends, streams, replies, nested delegations) in the order they were made.
pub fn write_stream_with(
    w: &Record,
    v: A2aVersion,
    jsonrpc: bool,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    check_clock(w)?;
    debug_assert_eq!(
        w.streams(),
        engine::RecordStreams::All,
        "every call's events are printed: the run must record them all"
    );
    // In 0.3 the call's last status update is marked `final`: the one that ends it, or (a call
    // that never ends) its last.
    let mut last_status: Vec<Option<usize>> = vec![None; w.calls.len()];
    let mut ended = vec![false; w.calls.len()];
    for (i, e) in w.events.iter().enumerate() {
        if !ended[e.call()] && matches!(w.event_kind(e), EventKind::Status(_)) {
            last_status[e.call()] = Some(i);
            ended[e.call()] = ends_stream(w, e);
        }
    }
    let mut ended = vec![false; w.calls.len()];
    for (i, e) in w.events.iter().enumerate() {
        if ended[e.call()] {
            continue;
        }
        ended[e.call()] = ends_stream(w, e);
        let mut line = stream_event(
            w,
            v,
            w.event_task(e),
            w.event_kind(e),
            last_status[e.call()] == Some(i),
        );
        if jsonrpc {
            line = json!({"jsonrpc": "2.0", "id": format!("req-{}", e.call() + 1), "result": line});
        }
        serde_json::to_writer(&mut *out, &line).map_err(crate::report::json::io_error)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// One task as `run --format a2a` prints it, as it stands now (a served GetTask / SendMessage).
pub fn task_value(w: &Record, v: A2aVersion, ix: TaskIx) -> Value {
    task_json(w, v, ix, Prefix::whole(&w.tasks[ix]))
}

/// The A2A push payload of a task's status change `entry` (an index into its history): 1.0's
/// StreamResponse `{"statusUpdate": …}`, 0.3's Task as it stands.
pub fn push_payload(w: &Record, v: A2aVersion, ix: TaskIx, entry: usize) -> Value {
    match v {
        A2aVersion::V1_0 => stream_event(w, v, ix, EventKind::Status(entry), false),
        A2aVersion::V0_3 => task_value(w, v, ix),
    }
}

/// One stream event of task `ix` in version `v`; `last` marks 0.3's `final` status update.
pub fn stream_event(w: &Record, v: A2aVersion, ix: TaskIx, kind: EventKind, last: bool) -> Value {
    let t = &w.tasks[ix];
    let ids = |o: &mut Map<String, Value>| {
        o.insert("taskId".into(), json!(task_id(ix)));
        o.insert("contextId".into(), json!(t.context.to_string()));
    };
    match (v, kind) {
        (
            _,
            EventKind::Task {
                history,
                messages,
                artifacts,
            },
        ) => {
            let task = task_json(w, v, ix, Prefix::snapshot(t, history, messages, artifacts));
            match v {
                A2aVersion::V1_0 => json!({ "task": task }),
                A2aVersion::V0_3 => task,
            }
        }
        (_, EventKind::Message(m)) => {
            let msg = message(w, v, ix, &t.messages[m]);
            match v {
                A2aVersion::V1_0 => json!({ "message": msg }),
                A2aVersion::V0_3 => msg,
            }
        }
        (A2aVersion::V1_0, EventKind::Status(h)) => {
            let mut o = Map::new();
            ids(&mut o);
            o.insert("status".into(), status(w, v, ix, h));
            json!({ "statusUpdate": o })
        }
        (A2aVersion::V0_3, EventKind::Status(h)) => {
            let mut o = Map::new();
            o.insert("kind".into(), json!("status-update"));
            ids(&mut o);
            o.insert("status".into(), status(w, v, ix, h));
            o.insert("final".into(), json!(last));
            Value::Object(o)
        }
        (_, EventKind::Artifact(a)) => {
            let mut o = Map::new();
            if v == A2aVersion::V0_3 {
                o.insert("kind".into(), json!("artifact-update"));
            }
            ids(&mut o);
            o.insert("artifact".into(), artifact(v, &t.artifacts[a]));
            match v {
                A2aVersion::V1_0 => json!({ "artifactUpdate": o }),
                A2aVersion::V0_3 => Value::Object(o),
            }
        }
    }
}

/// The internal record of a record task.
pub fn internal(w: &Record, ix: TaskIx) -> InternalTask {
    let t = &w.tasks[ix];
    let names = &w.scenario.symbols;
    let mut outputs = Outputs::default();
    for a in &t.artifacts {
        if let Some(text) = a.text() {
            outputs.text(text);
        }
        if let Some(data) = &a.data {
            outputs.data(data);
        }
    }
    let (output_text, structured) = outputs.finish();
    let state = adapter::a2a_to_internal_state(t.state);
    let status_message = t
        .history
        .last()
        .and_then(|h| h.message())
        .map(|m| t.messages[m].text.to_string())
        .filter(|m| !m.is_empty() && adapter::keeps_status_message(state));
    InternalTask {
        task_id: task_id(ix),
        context_id: t.context.to_string(),
        agent: Some(w.scenario.agents[t.agent()].name().to_string()),
        state,
        status_message,
        output_text,
        structured,
        delegation_chain: w
            .chains
            .to_vec(t.delegation_chain)
            .iter()
            .map(|&s| names.name(s).to_string())
            .collect(),
    }
}

/// `run --format acp`: every task as an ACP Run. Fails, naming the rule, on a task ACP cannot carry.
/// Whether ACP can carry every task of the run; the error names the task and the rule.
/// Checked before anything is written, so a refused export prints nothing.
pub fn check_acp(w: &Record) -> Result<(), String> {
    for (ix, t) in w.tasks.iter().enumerate() {
        adapter::acp_agent_name(Some(w.scenario.agents[t.agent()].name()))
            .map_err(|e| format!("{}: {e}", task_id(ix)))?;
    }
    Ok(())
}

/// Every task as an ACP Run; call [`check_acp`] first.
pub fn write_runs(w: &Record, out: &mut dyn Write) -> std::io::Result<()> {
    check_clock(w)?;
    let runs = (0..w.tasks.len()).map(|ix| {
        let t = &w.tasks[ix];
        let created_at = t.history.first().map(|h| timestamp(w, h.tick));
        let finished_at = t
            .state
            .is_terminal()
            .then(|| t.history.last().map(|h| timestamp(w, h.tick)))
            .flatten();
        adapter::internal_to_acp(
            &internal(w, ix),
            &RunTimes {
                created_at,
                finished_at,
            },
        )
        .unwrap_or(Value::Null)
    });
    write_pretty(&Seq(runs), out)
}
