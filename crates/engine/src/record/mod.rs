//! What a run records, in the order it happened: the [`Record`] every report is rendered from, and
//! its entries (steps, denials, errors, pushes, deliveries, stream calls and events).
//! The engine writes it while it runs; everything else only reads it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::data::DataMap;
use crate::faults::Faults;
use crate::ids::AliasIx;
use crate::ix::Ix;
use crate::parts::Parts;
use crate::scenario::{Scenario, Step};
use crate::token::VerifiedToken;

mod entries;

pub use entries::*;
// What a record's entries are made of, named here so that the crates above read the whole record
// from this one module: tasks and their parts, states, delegations, deliveries and codes.
pub use crate::chain::{ChainRef, Chains};
pub use crate::codes::DenialCode;
pub use crate::delegation::{Delegation, Member, Outcome, Spec};
pub use crate::delivery::{Delivery, DeliveryOutcome};
pub use crate::ids::{AgentIx, CallerIx, TaskIx};
pub use crate::lifecycle::{TRANSITIONS, TaskState};
pub use crate::task::{
    Artifact, Branch, Context, DataRef, Decision, Message, Owner, Role, Task, parse_task_id,
    task_id,
};

/// World-wide counters, one per kind of id; an id is drawn only when its object is created.
#[derive(Debug, Default, Clone)]
pub struct Ids {
    /// The clock: virtual time in ticks.
    pub tick: u64,
    pub task: u64,
    pub context: u64,
    pub message: u64,
    pub artifact: u64,
}

/// Which calls' stream events a run records. Every call's are the bulk of a large run's record
/// (five in six events on 100,000 steps), and only `--format a2a-stream` and a server show them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecordStreams {
    /// Every call's: sends, streams, replies and nested delegations.
    #[default]
    All,
    /// Only those of the driver's `stream` steps, which are their step's result: what every report
    /// but the stream exports shows. The other calls leave no record at all.
    StreamSteps,
}

/// Everything a run recorded, with the scenario it ran: what reports, expectations and exports
/// read. A finished run gives it back ([`World::into_record`](crate::world::World::into_record)); a running one is
/// read through its `World`.
#[derive(Debug)]
pub struct Record<'s> {
    pub scenario: &'s Scenario,
    /// The faults this run consults: the file's own, or a schedule `explore` drew.
    pub faults: &'s Faults,
    pub ids: Ids,
    pub tasks: Vec<Task<'s>>,
    pub chains: Chains,
    pub steps: Vec<StepRecord>,
    pub denials: Vec<DenialRecord>,
    pub errors: Vec<ErrorRecord>,
    /// What is worth a look but no error (see [`Warning`]); empty in a scripted run.
    pub warnings: Vec<Warning>,
    pub pushes: Vec<Push>,
    pub push_urls: Vec<String>,
    /// The host of each of `push_urls`, as the parser normalised it.
    pub push_hosts: Vec<String>,
    /// Webhook delivery attempts, in the order the status changes happened (the report sorts them
    /// by tick).
    pub deliveries: Vec<Delivery>,
    pub calls: Vec<Call>,
    pub events: Vec<Event>,
    /// Whose events `calls` and `events` hold (see [`Record::streams`]).
    pub(crate) streams: RecordStreams,
    /// The counts of each Task event (see [`Record::event_kind`]).
    pub(crate) snapshots: Vec<Snapshot>,
    /// The task each alias's send created, if any (see [`Record::alias_task`]).
    pub(crate) alias_tasks: Vec<Option<Ix>>,
    /// The data of the messages that have some, in the order they were stored (see
    /// [`World::message_data`]).
    pub(crate) message_data: Vec<crate::task::DataRef<'s>>,
    /// Every delegation and fan-out a handler made, in the order they were made.
    pub delegations: Vec<Delegation<'s>>,
    /// The verified token of the caller that created each task, for tasks created by one.
    pub caller_tokens: BTreeMap<TaskIx, VerifiedToken>,
    /// The check that failed, for each nested token a callee refused (a member's `refused`).
    pub(crate) token_refusals: Vec<String>,
    /// Every attempt of a handler's delegation that made no task — refused by a fault, its token
    /// refused, denied — with its tick, in the order they happened: what the views draw (a
    /// delegation keeps only its last attempt's members).
    pub refused_attempts: Vec<RefusedAttempt>,
    /// Requests a server session ran as steps after the scenario's own (`serve`; empty in `run`).
    pub served: Vec<&'s Step>,
    /// How many of the oldest steps a server session wrote out and dropped: `steps` and `served`
    /// hold the rest (see [`World::forget_steps`](crate::world::World::forget_steps); 0 in `run`).
    pub steps_forgotten: usize,
}

impl<'s> Record<'s> {
    /// Whose stream events the run recorded: under [`RecordStreams::StreamSteps`], `calls` and
    /// `events` hold the driver's `stream` steps' calls only.
    pub fn streams(&self) -> RecordStreams {
        self.streams
    }

    /// The events of one call, in order (its range of the run's events holds other calls' too).
    pub fn call_events(&self, call: CallId) -> impl Iterator<Item = &Event> + Clone {
        let c = &self.calls[call];
        self.events[c.first_event as usize..c.end_event as usize]
            .iter()
            .filter(move |e| e.call() == call)
    }

    /// A stored message's data, if it has some.
    /// Why an attempt made no task, in words: `unavailable`, `HTTP 502`, `connection reset`,
    /// `token refused: …`, `denied: scope, tenant`. What every view of a refused attempt says.
    pub fn refused_why(&self, why: &crate::record::RefusedWhy) -> String {
        use crate::faults::Refusal;
        use crate::record::RefusedWhy;
        match why {
            RefusedWhy::Fault(Refusal::Unavailable) => "unavailable".into(),
            RefusedWhy::Fault(Refusal::HttpError(status)) => format!("HTTP {status}"),
            RefusedWhy::Fault(Refusal::Reset) => "connection reset".into(),
            RefusedWhy::Token(why) => format!("token refused: {why}"),
            RefusedWhy::Denied(k) => {
                let codes: Vec<&str> = self.denials[*k]
                    .denials
                    .iter()
                    .map(|x| x.code.as_str())
                    .collect();
                format!("denied: {}", codes.join(", "))
            }
        }
    }

    pub fn message_data(&self, m: &Message) -> Option<&DataMap> {
        m.data.map(|d| &*self.message_data[d.get()])
    }

    /// The task an alias's send created, if it created one.
    pub fn alias_task(&self, alias: AliasIx) -> Option<TaskIx> {
        self.alias_tasks[alias].map(Ix::get)
    }

    /// What an event records.
    pub fn event_kind(&self, e: &Event) -> EventKind {
        e.kind(&self.snapshots)
    }

    /// The task an event is of: its call's.
    pub fn event_task(&self, e: &Event) -> TaskIx {
        self.calls[e.call()].task as usize
    }

    /// The clock now.
    pub fn clock(&self) -> u64 {
        self.ids.tick
    }

    /// The deliveries in report order: by tick, then in the order the status changes happened,
    /// then by attempt (a stable sort of the recorded order).
    pub fn deliveries_by_tick(&self) -> Vec<&Delivery> {
        let mut list: Vec<&Delivery> = self.deliveries.iter().collect();
        list.sort_by_key(|d| d.tick);
        list
    }

    /// The step at `i` (0-based): the scenario's own, then the requests a session served (not
    /// one it forgot).
    pub fn step_at(&self, i: usize) -> &'s Step {
        let scripted = self.scenario.steps.len();
        match self.scenario.steps.get(i) {
            Some(s) => s,
            None => self.served[i - scripted - self.steps_forgotten.saturating_sub(scripted)],
        }
    }

    /// The record of step `i` (0-based), unless forgotten.
    pub fn step_record(&self, i: usize) -> Option<&StepRecord> {
        self.steps.get(i.checked_sub(self.steps_forgotten)?)
    }

    /// A task's artifacts as the internal record reads them: text parts joined with a blank line,
    /// data parts shallow-merged, in order.
    pub fn task_parts(&self, task: TaskIx) -> (Option<Cow<'s, str>>, Option<Cow<'s, DataMap>>) {
        let mut parts = Parts::default();
        parts.add_task(&self.tasks[task]);
        parts.finish()
    }
}
