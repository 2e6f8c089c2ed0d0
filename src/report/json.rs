//! `run --format json`: the report contract of `docs/scenario-format.md`, serialised straight to
//! the writer (never built whole in memory). Keys keep the contract's order; absent values are
//! omitted; data mappings keep the file's key order.

use std::io::Write;

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};

use crate::engine::push::REDACTED;
use crate::engine::record::*;
use crate::engine::task::{Decision, Role, Task};
use crate::engine::world::World;
use crate::report::pretty::{ChunkWriter, Pretty};

pub const FORMAT_VERSION: u32 = 1;

/// Writes one pretty-printed JSON document and a newline, as it is rendered.
pub fn write(world: &World, out: &mut dyn Write) -> std::io::Result<()> {
    let mut chunks = ChunkWriter::new(out);
    let mut ser = serde_json::Serializer::with_formatter(&mut chunks, Pretty::default());
    Report(world).serialize(&mut ser).map_err(io_error)?;
    chunks.write_all(b"\n")?;
    chunks.flush()
}

/// Writes any serialisable value pretty-printed (the report's layout) and a newline, as it is
/// rendered.
pub(crate) fn write_pretty<T: Serialize>(value: &T, out: &mut dyn Write) -> std::io::Result<()> {
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

/// An id such as `task-7`, serialised without building a string.
struct Id(&'static str, u64);

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}{}", self.0, self.1))
    }
}

/// Any `Display`, serialised as a string without building one.
struct Collect<'a, T>(&'a T);

impl<T: std::fmt::Display> Serialize for Collect<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self.0)
    }
}

struct Report<'a, 's>(&'a World<'s>);

impl Serialize for Report<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let w = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("format_version", &FORMAT_VERSION)?;
        // Only in a run with `--set`, so reports of files as written do not change.
        if !w.scenario.overrides.is_empty() {
            m.serialize_entry("overrides", &w.scenario.overrides)?;
        }
        m.serialize_entry("scenario", &w.scenario.name)?;
        m.serialize_entry(
            "steps",
            &Seq(w.steps.iter().enumerate().map(|(i, r)| StepJson(w, i, r))),
        )?;
        // Only when used: reports without a matrix step stay as they were.
        if w.steps
            .iter()
            .any(|r| matches!(r.result, StepResult::Matrix(_)))
        {
            m.serialize_entry("matrices", &Seq(matrices(w)))?;
        }
        m.serialize_entry(
            "tasks",
            &Seq(w.tasks.iter().enumerate().map(|(i, t)| TaskJson(w, i, t))),
        )?;
        m.serialize_entry("denials", &Seq(w.denials.iter().map(|d| DenialJson(w, d))))?;
        m.serialize_entry("pushes", &Seq(w.pushes.iter().map(|p| PushJson(w, p))))?;
        if w.faults.deliveries().is_some() {
            let list = w.deliveries_by_tick();
            m.serialize_entry(
                "deliveries",
                &Seq(list.into_iter().map(|d| DeliveryJson(w, d))),
            )?;
        }
        m.serialize_entry("errors", &Seq(w.errors.iter().map(ErrorJson)))?;
        m.end()
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

#[derive(Clone)]
struct StepJson<'a, 's>(&'a World<'s>, usize, &'a StepRecord);

impl Serialize for StepJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let StepJson(w, i, r) = *self;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("step", &(i + 1))?;
        m.serialize_entry("op", w.step_at(i).op())?;
        if let Some(caller) = r.caller {
            m.serialize_entry("caller", &w.scenario.callers[caller].id)?;
        }
        m.serialize_entry("result", &ResultJson(w, &r.result))?;
        m.end()
    }
}

struct ResultJson<'a, 's>(&'a World<'s>, &'a StepResult);

impl Serialize for ResultJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ResultJson(w, result) = *self;
        let mut m = s.serialize_map(None)?;
        match result {
            StepResult::Ranking(ranking) => {
                let rows = ranking
                    .iter()
                    .map(|r| RankJson(w.scenario.agents[r.agent].name(), r.score));
                m.serialize_entry("ranking", &Seq(rows))?;
            }
            StepResult::Task {
                task,
                state,
                stream,
            } => {
                m.serialize_entry("task", &Id("task-", *task as u64 + 1))?;
                m.serialize_entry("state", state.as_str())?;
                if let Some(call) = stream {
                    let events = w.call_events(*call).map(|e| EventJson(w, e));
                    m.serialize_entry("events", &Seq(events))?;
                }
            }
            StepResult::Denied(codes) => {
                m.serialize_entry("denied", &Seq(codes.iter().map(|c| c.as_str())))?;
            }
            StepResult::Tick(tick) => m.serialize_entry("tick", tick)?,
            StepResult::Nothing => {}
            StepResult::Matrix(grid) => {
                let pairs: usize = grid.iter().map(Vec::len).sum();
                let admitted: usize = grid.iter().flatten().filter(|c| c.is_empty()).count();
                m.serialize_entry("pairs", &pairs)?;
                m.serialize_entry("admitted", &admitted)?;
            }
        }
        m.end()
    }
}

#[derive(Clone, Copy)]
struct RankJson<'a>(&'a str, u32);

impl Serialize for RankJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("agent", self.0)?;
        m.serialize_entry("score", &self.1)?;
        m.end()
    }
}

#[derive(Clone, Copy)]
struct EventJson<'a, 's>(&'a World<'s>, &'a Event);

impl Serialize for EventJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let EventJson(w, e) = *self;
        let t = &w.tasks[e.task()];
        let mut m = s.serialize_map(None)?;
        match e.kind() {
            EventKind::Task { history, .. } => {
                m.serialize_entry("event", "task")?;
                m.serialize_entry("task", &Id("task-", e.task() as u64 + 1))?;
                m.serialize_entry("state", t.history[history - 1].state.as_str())?;
            }
            EventKind::Status(h) => {
                let entry = &t.history[h];
                m.serialize_entry("event", "status")?;
                m.serialize_entry("task", &Id("task-", e.task() as u64 + 1))?;
                m.serialize_entry("tick", &entry.tick)?;
                m.serialize_entry("state", entry.state.as_str())?;
                if let Some(msg) = entry.message {
                    m.serialize_entry("message", &*t.messages[msg].text)?;
                }
            }
            EventKind::Message(i) => {
                m.serialize_entry("event", "message")?;
                m.serialize_entry("task", &Id("task-", e.task() as u64 + 1))?;
                m.serialize_entry("message_id", &Id("msg-", t.messages[i].id))?;
                m.serialize_entry("text", &*t.messages[i].text)?;
            }
            EventKind::Artifact(i) => {
                m.serialize_entry("event", "artifact")?;
                m.serialize_entry("task", &Id("task-", e.task() as u64 + 1))?;
                m.serialize_entry("artifact_id", &Id("artifact-", t.artifacts[i].id))?;
            }
        }
        m.end()
    }
}

#[derive(Clone, Copy)]
struct TaskJson<'a, 's>(&'a World<'s>, usize, &'a Task<'s>);

impl Serialize for TaskJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let TaskJson(w, ix, t) = *self;
        let names = &w.scenario.symbols;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &Id("task-", ix as u64 + 1))?;
        m.serialize_entry("context_id", &Collect(&t.context))?;
        m.serialize_entry("agent", w.scenario.agents[t.agent].name())?;
        m.serialize_entry("caller", names.name(t.owner.id))?;
        let chain = w.chains.to_vec(t.delegation_chain);
        m.serialize_entry(
            "delegation_chain",
            &Seq(chain.iter().map(|&h| names.name(h))),
        )?;
        // The caller's verified identity, never the token: only tasks a token created have it.
        if let Some(vt) = w.caller_tokens.get(&ix) {
            m.serialize_entry("caller_token", &CallerTokenJson(vt))?;
        }
        m.serialize_entry("parent", &t.parent.map(|p| Id("task-", p as u64 + 1)))?;
        m.serialize_entry("state", t.state.as_str())?;
        let history = t.history.iter().map(|h| {
            HistoryJson(
                h.tick,
                h.state.as_str(),
                h.message.map(|i| &*t.messages[i].text),
            )
        });
        m.serialize_entry("history", &Seq(history))?;
        // Only a retried child has an attempt and only a task that ran a `when` has decisions,
        // so a scenario without them keeps its bytes.
        if t.attempt >= 2 {
            m.serialize_entry("attempt", &t.attempt)?;
        }
        if !t.decisions.is_empty() {
            m.serialize_entry("decisions", &Seq(t.decisions.iter().map(DecisionJson)))?;
        }
        // Only a file that speaks of authority gets them (authority.md §2).
        if w.scenario.policy.authority_keys {
            m.serialize_entry("scopes", &Seq(t.scopes.iter().map(|&s| names.name(s))))?;
            if !t.amplified.is_empty() {
                m.serialize_entry(
                    "amplified",
                    &Seq(t.amplified.iter().map(|&s| names.name(s))),
                )?;
            }
        }
        m.serialize_entry("messages", &Seq(t.messages.iter().map(MessageJson)))?;
        m.serialize_entry("artifacts", &Seq(t.artifacts.iter().map(ArtifactJson)))?;
        m.end()
    }
}

#[derive(Clone, Copy)]
struct HistoryJson<'a>(u64, &'a str, Option<&'a str>);

impl Serialize for HistoryJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("tick", &self.0)?;
        m.serialize_entry("state", self.1)?;
        if let Some(msg) = self.2 {
            m.serialize_entry("message", msg)?;
        }
        m.end()
    }
}

#[derive(Clone, Copy)]
struct DecisionJson<'a>(&'a Decision);

impl Serialize for DecisionJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = self.0;
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("handler_step", &d.handler_step)?;
        m.serialize_entry("branch", d.branch.as_str())?;
        m.serialize_entry("tick", &d.tick)?;
        m.end()
    }
}

#[derive(Clone, Copy)]
struct MessageJson<'a, 's>(&'a crate::engine::task::Message<'s>);

impl Serialize for MessageJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let msg = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("message_id", &Id("msg-", msg.id))?;
        m.serialize_entry(
            "role",
            if msg.role == Role::User {
                "user"
            } else {
                "agent"
            },
        )?;
        m.serialize_entry("text", &*msg.text)?;
        if let Some(data) = msg.data {
            m.serialize_entry("data", data)?;
        }
        m.end()
    }
}

#[derive(Clone, Copy)]
struct ArtifactJson<'a, 's>(&'a crate::engine::task::Artifact<'s>);

impl Serialize for ArtifactJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("artifact_id", &Id("artifact-", a.id))?;
        if let Some(name) = &a.name {
            m.serialize_entry("name", name)?;
        }
        if let Some(text) = &a.text {
            m.serialize_entry("text", text)?;
        }
        if let Some(data) = &a.data {
            m.serialize_entry("data", data)?;
        }
        m.end()
    }
}

#[derive(Clone, Copy)]
struct DenialJson<'a, 's>(&'a World<'s>, &'a DenialRecord);

impl Serialize for DenialJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let DenialJson(w, d) = *self;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("step", &d.step)?;
        m.serialize_entry("caller", w.scenario.symbols.name(d.caller))?;
        m.serialize_entry("callee", w.scenario.agents[d.callee].name())?;
        m.serialize_entry("codes", &Seq(d.denials.iter().map(|x| x.code.as_str())))?;
        m.serialize_entry("details", &Seq(d.denials.iter().map(|x| x.detail.as_str())))?;
        m.end()
    }
}

#[derive(Clone, Copy)]
struct PushJson<'a, 's>(&'a World<'s>, &'a Push);

impl Serialize for PushJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let PushJson(w, p) = *self;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("tick", &p.tick)?;
        m.serialize_entry("task", &Id("task-", p.task as u64 + 1))?;
        m.serialize_entry("url", &w.push_urls[p.url])?;
        m.serialize_entry("state", p.state.as_str())?;
        m.serialize_entry("token", REDACTED)?;
        m.end()
    }
}

#[derive(Clone, Copy)]
struct DeliveryJson<'a, 's>(&'a World<'s>, &'a crate::engine::delivery::Delivery);

impl Serialize for DeliveryJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let DeliveryJson(w, d) = *self;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("tick", &d.tick)?;
        m.serialize_entry(
            "key",
            &Collect(&format_args!("task-{}/{}", d.task + 1, d.position)),
        )?;
        m.serialize_entry("task", &Id("task-", d.task as u64 + 1))?;
        m.serialize_entry("state", d.state.as_str())?;
        m.serialize_entry("url", &w.push_urls[d.url])?;
        m.serialize_entry("attempt", &d.attempt)?;
        m.serialize_entry("outcome", d.outcome.as_str())?;
        m.end()
    }
}

#[derive(Clone, Copy)]
struct ErrorJson<'a>(&'a ErrorRecord);

impl Serialize for ErrorJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("step", &e.step)?;
        m.serialize_entry("code", e.code.as_str())?;
        m.serialize_entry("detail", &e.detail)?;
        if let Some(t) = e.task {
            m.serialize_entry("task", &Id("task-", t as u64 + 1))?;
        }
        m.end()
    }
}

/// The matrix steps' grids, in step order.
fn matrices<'a, 's>(w: &'a World<'s>) -> impl Iterator<Item = MatrixJson<'a, 's>> + Clone {
    w.steps
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r.result, StepResult::Matrix(_)))
        .map(move |(i, _)| MatrixJson(w, i))
}

#[derive(Clone, Copy)]
struct MatrixJson<'a, 's>(&'a World<'s>, usize);

impl Serialize for MatrixJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let MatrixJson(w, i) = *self;
        let sc = w.scenario;
        let (crate::engine::scenario::Step::Matrix { callers, agents }, StepResult::Matrix(grid)) =
            (&sc.steps[i], &w.steps[i].result)
        else {
            return s.serialize_none();
        };
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("step", &(i + 1))?;
        m.serialize_entry(
            "callers",
            &Seq(callers.iter().map(|&c| sc.callers[c].id.as_str())),
        )?;
        m.serialize_entry("agents", &Seq(agents.iter().map(|&a| sc.agents[a].name())))?;
        let rows = callers
            .iter()
            .zip(grid)
            .map(|(&c, row)| MatrixRow(w, c, agents, row));
        m.serialize_entry("grid", &Seq(rows))?;
        m.end()
    }
}

#[derive(Clone, Copy)]
struct MatrixRow<'a, 's>(
    &'a World<'s>,
    usize,
    &'a [usize],
    &'a [Vec<crate::engine::admission::DenialCode>],
);

impl Serialize for MatrixRow<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let MatrixRow(w, caller, agents, row) = *self;
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("caller", &w.scenario.callers[caller].id)?;
        let mut cells = serde_json::Map::new();
        for (&a, codes) in agents.iter().zip(row) {
            let list = codes
                .iter()
                .map(|c| serde_json::Value::from(c.as_str()))
                .collect();
            cells.insert(
                w.scenario.agents[a].name().to_string(),
                serde_json::Value::Array(list),
            );
        }
        m.serialize_entry("denied", &cells)?;
        m.end()
    }
}

struct CallerTokenJson<'a>(&'a crate::engine::token::VerifiedToken);

impl Serialize for CallerTokenJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("iss", &t.iss)?;
        m.serialize_entry("sub", &t.sub)?;
        m.serialize_entry("kid", &t.kid)?;
        m.serialize_entry("act_chain", &t.act_chain)?;
        m.serialize_entry("exp", &t.exp)?;
        m.end()
    }
}
