//! `run --format json`: the report contract of `docs/src/reference/scenario-format.md`, serialised straight to
//! the writer (never built whole in memory). Keys keep the contract's order; absent values are
//! omitted; data mappings keep the file's key order.

use std::io::Write;

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};

use crate::report::json_blocks::elements;
use crate::report::json_out::{Out, key};
use crate::report::json_records::{
    delivery, denial, error, matrix, push, strings, task_id, warning,
};
use crate::report::pretty::{ChunkWriter, Pretty};
use engine::record::*;

pub const FORMAT_VERSION: u32 = 1;

/// Writes one pretty-printed JSON document and a newline, as it is rendered.
pub fn write(record: &Record, out: &mut dyn Write) -> std::io::Result<()> {
    let mut o = Out::new(out);
    report(record, &mut o)?;
    o.finish()
}

/// Writes any serialisable value pretty-printed (the report's layout) and a newline, as it is
/// rendered.
pub fn write_pretty<T: Serialize>(value: &T, out: &mut dyn Write) -> std::io::Result<()> {
    let mut chunks = ChunkWriter::new(out);
    let mut ser = serde_json::Serializer::with_formatter(&mut chunks, Pretty::default());
    value.serialize(&mut ser).map_err(io_error)?;
    chunks.write_all(b"\n")?;
    chunks.flush()
}

/// serde_json wraps the writer's errors; unwrap them with their kind, so a closed pipe
/// (`| head`) stays a closed pipe and ends the run quietly.
pub(crate) fn io_error(e: serde_json::Error) -> std::io::Error {
    match e.io_error_kind() {
        Some(kind) => std::io::Error::new(kind, e),
        None => std::io::Error::other(e),
    }
}

/// A sequence serialised from an iterator, without collecting it.
pub(crate) struct Seq<I>(pub(crate) I);

impl<I: Iterator<Item = T> + Clone, T: Serialize> Serialize for Seq<I> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for item in self.0.clone() {
            seq.serialize_element(&item)?;
        }
        seq.end()
    }
}

/// The report, written field by field in the contract's order.
fn report(w: &Record, o: &mut Out) -> std::io::Result<()> {
    head(w, o);
    elements(o, &w.steps, |o, i, r| step(w, o, i, r))?;
    rest(w, o)
}

/// What comes before the steps, up to the opening of their array.
fn head(w: &Record, o: &mut Out) {
    o.open_object();
    key!(o, "format_version");
    o.u64(FORMAT_VERSION.into());
    // Only in a run with `--set`, so reports of files as written do not change.
    if !w.scenario.overrides.is_empty() {
        key!(o, "overrides");
        strings(o, w.scenario.overrides.iter().map(String::as_str));
    }
    key!(o, "scenario");
    o.str(&w.scenario.name);
    key!(o, "steps");
    o.open_array();
}

/// What comes after the steps, from the closing of their array.
fn rest(w: &Record, o: &mut Out) -> std::io::Result<()> {
    o.close_array();
    // Only when used: reports without a matrix step stay as they were.
    if w.steps
        .iter()
        .any(|r| matches!(r.result, StepResult::Matrix(_)))
    {
        key!(o, "matrices");
        o.open_array();
        for (i, r) in w.steps.iter().enumerate() {
            if matches!(r.result, StepResult::Matrix(_)) {
                o.element();
                matrix(w, o, i);
            }
        }
        o.close_array();
    }
    key!(o, "tasks");
    o.open_array();
    elements(o, &w.tasks, |o, i, t| task(w, o, i, t))?;
    o.close_array();
    key!(o, "denials");
    o.open_array();
    elements(o, &w.denials, |o, _, d| denial(w, o, d))?;
    o.close_array();
    key!(o, "pushes");
    o.open_array();
    elements(o, &w.pushes, |o, _, p| push(w, o, p))?;
    o.close_array();
    if w.faults.deliveries().is_some() {
        key!(o, "deliveries");
        o.open_array();
        for d in w.deliveries_by_tick() {
            o.element();
            delivery(w, o, d);
            o.boundary()?;
        }
        o.close_array();
    }
    key!(o, "errors");
    o.open_array();
    elements(o, &w.errors, |o, _, e| error(o, e))?;
    o.close_array();
    // Only when there are some (a real agent's call tied to none of its tasks): other reports
    // stay as they were.
    if !w.warnings.is_empty() {
        key!(o, "warnings");
        o.open_array();
        elements(o, &w.warnings, |o, _, e| warning(o, e))?;
        o.close_array();
    }
    o.close_object();
    Ok(())
}

/// The report of a server session, written as the session runs: its steps as they are final,
/// so a long session need not keep them (`World::forget_steps`), and the rest at its end.
/// The bytes are [`write()`]'s for the same session. A session has no matrix steps.
pub struct Session<'a> {
    o: Out<'a>,
    /// Steps written so far.
    written: usize,
}

impl<'a> Session<'a> {
    pub fn begin(w: &Record, out: &'a mut dyn Write) -> Self {
        let mut o = Out::new(out);
        head(w, &mut o);
        Session { o, written: 0 }
    }

    /// Writes the steps not yet written that are final: a stream step is final once its call
    /// is closed (`open` says which calls are still open in the running world), its events
    /// complete.
    pub fn steps(&mut self, w: &Record, open: &dyn Fn(CallId) -> bool) -> std::io::Result<()> {
        while let Some(r) = w.step_record(self.written) {
            if let StepResult::Task {
                stream: Some(call), ..
            } = r.result
                && open(call.get())
            {
                break;
            }
            self.o.element();
            step(w, &mut self.o, self.written, r);
            self.o.boundary()?;
            self.written += 1;
        }
        Ok(())
    }

    /// Steps written so far.
    pub fn written(&self) -> usize {
        self.written
    }

    /// Writes the steps left and the rest of the report, and flushes it.
    pub fn finish(mut self, w: &Record) -> std::io::Result<()> {
        self.steps(w, &|_| false)?;
        rest(w, &mut self.o)?;
        self.o.finish()
    }
}

fn step(w: &Record, o: &mut Out, i: usize, r: &StepRecord) {
    o.open_object();
    key!(o, "step");
    o.u64(i as u64 + 1);
    key!(o, "op");
    o.plain(w.step_at(i).op());
    if let Some(caller) = r.caller() {
        key!(o, "caller");
        o.str(&w.scenario.callers[caller].id);
    }
    key!(o, "result");
    o.open_object();
    match &r.result {
        StepResult::Ranking(ranking) => {
            key!(o, "ranking");
            o.open_array();
            for r in ranking.iter() {
                o.element();
                o.open_object();
                key!(o, "agent");
                o.str(w.scenario.agents[r.agent].name());
                key!(o, "score");
                o.u64(r.score.into());
                o.close_object();
            }
            o.close_array();
        }
        StepResult::Task {
            task,
            state,
            stream,
        } => {
            key!(o, "task");
            task_id(o, *task);
            key!(o, "state");
            o.plain(state.as_str());
            if let Some(call) = stream {
                key!(o, "events");
                o.open_array();
                for e in w.call_events(call.get()) {
                    o.element();
                    event(w, o, e);
                }
                o.close_array();
            }
        }
        StepResult::Denied(codes) => {
            key!(o, "denied");
            strings(o, codes.iter().map(|c| c.as_str()));
        }
        StepResult::Tick(tick) => {
            key!(o, "tick");
            o.u64(*tick);
        }
        StepResult::Nothing => {}
        StepResult::Matrix(grid) => {
            let pairs: usize = grid.iter().map(Vec::len).sum();
            let admitted: usize = grid.iter().flatten().filter(|c| c.is_empty()).count();
            key!(o, "pairs");
            o.u64(pairs as u64);
            key!(o, "admitted");
            o.u64(admitted as u64);
        }
    }
    o.close_object();
    o.close_object();
}

fn event(w: &Record, o: &mut Out, e: &Event) {
    let task = w.event_task(e);
    let t = &w.tasks[task];
    o.open_object();
    match w.event_kind(e) {
        EventKind::Task { history, .. } => {
            key!(o, "event");
            o.plain("task");
            key!(o, "task");
            task_id(o, task);
            key!(o, "state");
            o.plain(t.history[history - 1].state.as_str());
        }
        EventKind::Status(h) => {
            let entry = &t.history[h];
            key!(o, "event");
            o.plain("status");
            key!(o, "task");
            task_id(o, task);
            key!(o, "tick");
            o.u64(entry.tick);
            key!(o, "state");
            o.plain(entry.state.as_str());
            if let Some(msg) = entry.message() {
                key!(o, "message");
                o.str(&t.messages[msg].text);
            }
        }
        EventKind::Message(i) => {
            key!(o, "event");
            o.plain("message");
            key!(o, "task");
            task_id(o, task);
            key!(o, "message_id");
            o.id("msg-", t.messages[i].id());
            key!(o, "text");
            o.str(&t.messages[i].text);
        }
        EventKind::Artifact(i) => {
            key!(o, "event");
            o.plain("artifact");
            key!(o, "task");
            task_id(o, task);
            key!(o, "artifact_id");
            o.id("artifact-", t.artifacts[i].id);
        }
    }
    o.close_object();
}

fn task(w: &Record, o: &mut Out, ix: usize, t: &Task) {
    let names = &w.scenario.symbols;
    o.open_object();
    key!(o, "id");
    task_id(o, ix);
    key!(o, "context_id");
    match t.context {
        Context::Minted(n) => o.id("ctx-", n),
        Context::Named(s) => o.str(s),
    }
    key!(o, "agent");
    o.str(w.scenario.agents[t.agent()].name());
    key!(o, "caller");
    o.str(names.name(t.owner.id));
    key!(o, "delegation_chain");
    // Stored last hop first; a chain is short, so it is turned round on the stack.
    let chain: smallvec::SmallVec<[engine::scenario::Sym; 16]> =
        w.chains.iter_rev(t.delegation_chain).collect();
    strings(o, chain.iter().rev().map(|&h| names.name(h)));
    // The caller's verified identity, never the token: only tasks a token created have it.
    if let Some(vt) = w.caller_tokens.get(&ix) {
        key!(o, "caller_token");
        o.open_object();
        key!(o, "iss");
        o.str(&vt.iss);
        key!(o, "sub");
        o.str(&vt.sub);
        key!(o, "kid");
        o.str(&vt.kid);
        key!(o, "act_chain");
        strings(o, vt.act_chain.iter().map(String::as_str));
        key!(o, "exp");
        o.i64(vt.exp);
        o.close_object();
    }
    key!(o, "parent");
    match t.parent() {
        Some(p) => task_id(o, p),
        None => o.raw("null"),
    }
    key!(o, "state");
    o.plain(t.state.as_str());
    key!(o, "history");
    o.open_array();
    for h in &t.history {
        o.element();
        o.open_object();
        key!(o, "tick");
        o.u64(h.tick);
        key!(o, "state");
        o.plain(h.state.as_str());
        if let Some(i) = h.message() {
            key!(o, "message");
            o.str(&t.messages[i].text);
        }
        o.close_object();
    }
    o.close_array();
    // Only a retried child has an attempt and only a task that ran a `when` has decisions,
    // so a scenario without them keeps its bytes.
    if t.attempt >= 2 {
        key!(o, "attempt");
        o.u64(t.attempt.into());
    }
    if !t.decisions().is_empty() {
        key!(o, "decisions");
        o.open_array();
        for d in t.decisions() {
            o.element();
            decision(o, d);
        }
        o.close_array();
    }
    // Only a file that speaks of authority gets them (authority.md §2).
    if w.scenario.policy.authority_keys {
        key!(o, "scopes");
        strings(o, t.scopes.iter().map(|&s| names.name(s)));
        if !t.amplified().is_empty() {
            key!(o, "amplified");
            strings(o, t.amplified().iter().map(|&s| names.name(s)));
        }
    }
    key!(o, "messages");
    o.open_array();
    for m in &t.messages {
        o.element();
        message(o, m, w.message_data(m));
    }
    o.close_array();
    key!(o, "artifacts");
    o.open_array();
    for a in &t.artifacts {
        o.element();
        artifact(o, a);
    }
    o.close_array();
    o.close_object();
}

fn decision(o: &mut Out, d: &Decision) {
    o.open_object();
    key!(o, "handler_step");
    o.u64(d.handler_step as u64);
    key!(o, "branch");
    o.plain(d.branch.as_str());
    key!(o, "tick");
    o.u64(d.tick);
    o.close_object();
}

fn message(o: &mut Out, msg: &Message, data: Option<&engine::scenario::DataMap>) {
    o.open_object();
    key!(o, "message_id");
    o.id("msg-", msg.id());
    key!(o, "role");
    o.plain(if msg.role() == Role::User {
        "user"
    } else {
        "agent"
    });
    key!(o, "text");
    o.str(&msg.text);
    if let Some(data) = data {
        key!(o, "data");
        o.map(data);
    }
    o.close_object();
}

fn artifact(o: &mut Out, a: &Artifact) {
    o.open_object();
    key!(o, "artifact_id");
    o.id("artifact-", a.id);
    if let Some(name) = a.name {
        key!(o, "name");
        o.str(name);
    }
    if let Some(text) = a.text() {
        key!(o, "text");
        o.str(text);
    }
    if let Some(data) = &a.data {
        key!(o, "data");
        o.map(data);
    }
    o.close_object();
}
