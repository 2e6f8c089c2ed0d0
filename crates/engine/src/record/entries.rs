//! What a run records, in the order it happened: the report is rendered from these.

use crate::admission::Denial;
pub use crate::codes::{DenialCode, ErrorCode};
use crate::discovery::Ranked;
pub use crate::ids::CallId;
use crate::ids::{AgentIx, CallerIx, TaskIx};
use crate::ix::{Ix, ix32};
use crate::lifecycle::TaskState;
use crate::symbols::Sym;

/// What a step noted: its driver step, what it says, and the task it is about. A [`Warning`] is
/// one; an [`ErrorRecord`] is one with its code.
#[derive(Debug, Clone)]
pub struct Note {
    /// See [`Note::step`].
    step: u32,
    /// Boxed to its length, as a denial's detail is.
    pub detail: Box<str>,
    /// See [`Note::task`].
    task: Option<Ix>,
}

impl Note {
    pub fn new(step: usize, detail: Box<str>, task: Option<TaskIx>) -> Self {
        Note {
            step: ix32(step),
            detail,
            task: task.map(Ix::new),
        }
    }

    /// 1-based driver step.
    pub fn step(&self) -> usize {
        self.step as usize
    }

    /// The task it is about: for an error, a handler error or a refused push config (never one
    /// the caller may not see).
    pub fn task(&self) -> Option<TaskIx> {
        self.task.map(Ix::get)
    }
}

/// Something worth a look that is no error: a real agent's call a2a-sim could not tie to one of
/// its tasks, say. The report lists them after the errors.
pub type Warning = Note;

/// An error of the run: its code, and the note that says where and why (`detail`, `step()`,
/// `task()` read through it).
#[derive(Debug, Clone)]
pub struct ErrorRecord {
    pub code: ErrorCode,
    note: Note,
}

impl ErrorRecord {
    pub fn new(step: usize, code: ErrorCode, detail: Box<str>, task: Option<TaskIx>) -> Self {
        ErrorRecord {
            code,
            note: Note::new(step, detail, task),
        }
    }
}

impl std::ops::Deref for ErrorRecord {
    type Target = Note;

    fn deref(&self) -> &Note {
        &self.note
    }
}

/// One attempt of a delegation (or one fan-out member) that created no task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedAttempt {
    pub tick: u64,
    /// The delegating task.
    pub task: TaskIx,
    pub callee: AgentIx,
    /// The delegation (an index into `Record::delegations`), the attempt (1 first) and the
    /// member (0 for a delegate; a fan-out's member by position).
    pub delegation: usize,
    pub attempt: u32,
    pub member: u32,
    pub why: RefusedWhy,
}

/// Why an attempt made no task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefusedWhy {
    /// A fault refused it, as it says (`unavailable`, `http_error`, `reset`, a crash).
    Fault(crate::faults::Refusal),
    /// The callee refused the token minted for the hop: the check that failed.
    Token(String),
    /// Admission denied it: an index into `Record::denials`.
    Denied(usize),
}

#[derive(Debug, Clone)]
pub struct DenialRecord {
    /// See [`DenialRecord::step`].
    step: u32,
    /// The caller's agent id (a driver caller's id, or the delegating agent).
    pub caller: Sym,
    /// See [`DenialRecord::callee`].
    callee: u32,
    pub denials: Box<[Denial]>,
}

impl DenialRecord {
    pub fn new(step: usize, caller: Sym, callee: AgentIx, denials: Vec<Denial>) -> Self {
        DenialRecord {
            step: ix32(step),
            caller,
            callee: ix32(callee),
            denials: denials.into_boxed_slice(),
        }
    }

    /// 1-based driver step.
    pub fn step(&self) -> usize {
        self.step as usize
    }

    pub fn callee(&self) -> AgentIx {
        self.callee as usize
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Push {
    pub tick: u64,
    pub task: TaskIx,
    /// Index into `World::push_urls`.
    pub url: usize,
    pub state: TaskState,
}

/// One call that streams: a send, stream, reply, or a handler's nested delegation. Stored in 32
/// bits a field, as events are: a run that records every stream keeps one per task and more
/// (see [`RecordStreams`](crate::record::RecordStreams)).
#[derive(Debug, Clone, Copy)]
pub struct Call {
    /// The [`TaskIx`].
    pub task: u32,
    /// The 1-based driver step.
    pub step: u32,
    /// Where the call's events lie in `World::events` (interleaved with nested calls' events).
    pub first_event: u32,
    pub end_event: u32,
}

/// One stream event. Snapshots are prefixes of the task's append-only logs.
/// Stored in 8 bytes: a run records several events per delegation. Its task is its call's
/// ([`Record::event_task`](crate::record::Record::event_task)): a call's events are all of
/// the task it was opened for. Its kind is read with the world's snapshots
/// ([`Record::event_kind`](crate::record::Record::event_kind)).
#[derive(Debug, Clone, Copy)]
pub struct Event {
    /// The call in the low 30 bits, the kind in the top two.
    call_kind: u32,
    /// The index the kind carries; a Task's is into the snapshots.
    at: u32,
}

const KIND_SHIFT: u32 = 30;
const CALL_BITS: u32 = (1 << KIND_SHIFT) - 1;
const TASK: u32 = 0;
const STATUS: u32 = 1;
const MESSAGE: u32 = 2;
const ARTIFACT: u32 = 3;

/// A Task event's counts: its history, messages and artifacts then.
pub type Snapshot = [u32; 3];

impl Event {
    /// A Task event's counts go to `snapshots`, and the event keeps their index.
    pub fn new(call: CallId, kind: EventKind, snapshots: &mut Vec<Snapshot>) -> Event {
        let (tag, at) = match kind {
            EventKind::Task {
                history,
                messages,
                artifacts,
            } => {
                snapshots.push([ix32(history), ix32(messages), ix32(artifacts)]);
                (TASK, ix32(snapshots.len() - 1))
            }
            EventKind::Status(i) => (STATUS, ix32(i)),
            EventKind::Message(i) => (MESSAGE, ix32(i)),
            EventKind::Artifact(i) => (ARTIFACT, ix32(i)),
        };
        let call = u32::try_from(call)
            .ok()
            .filter(|&c| c <= CALL_BITS)
            .expect("a run makes fewer than 2^30 calls");
        Event {
            call_kind: call | tag << KIND_SHIFT,
            at,
        }
    }

    pub fn call(&self) -> CallId {
        (self.call_kind & CALL_BITS) as usize
    }

    /// What it records, its counts (a Task's) from `snapshots`.
    pub fn kind(&self, snapshots: &[Snapshot]) -> EventKind {
        let at = self.at as usize;
        match self.call_kind >> KIND_SHIFT {
            TASK => {
                let [history, messages, artifacts] = snapshots[at];
                EventKind::Task {
                    history: history as usize,
                    messages: messages as usize,
                    artifacts: artifacts as usize,
                }
            }
            STATUS => EventKind::Status(at),
            MESSAGE => EventKind::Message(at),
            _ => EventKind::Artifact(at),
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub enum EventKind {
    /// The task as it then was: the first and the last event of every call.
    Task {
        history: usize,
        messages: usize,
        artifacts: usize,
    },
    /// A status change: index into the task's history.
    Status(usize),
    /// An agent message that changed no state: index into the task's messages.
    Message(usize),
    /// Index into the task's artifacts.
    Artifact(usize),
}

/// One per driver step: 24 bytes.
#[derive(Debug, Clone)]
pub struct StepRecord {
    pub result: StepResult,
    /// See [`StepRecord::caller`].
    caller: Option<Ix>,
}

impl StepRecord {
    pub fn new(caller: Option<CallerIx>, result: StepResult) -> StepRecord {
        StepRecord {
            result,
            caller: caller.map(Ix::new),
        }
    }

    /// None for `wait`, which has no caller.
    pub fn caller(&self) -> Option<CallerIx> {
        self.caller.map(Ix::get)
    }
}

/// A step's result: 16 bytes, as every step keeps one. The lists of the rarer kinds sit behind
/// one pointer (a boxed slice is two words).
#[derive(Debug, Clone)]
pub enum StepResult {
    Ranking(Box<Box<[Ranked]>>),
    /// A task and its state when the operation ended; for `stream`, the [`CallId`] whose events
    /// to list.
    Task {
        task: TaskIx,
        state: TaskState,
        stream: Option<Ix>,
    },
    Denied(DenialCodes),
    /// A driver `wait`: the clock when it ended.
    Tick(u64),
    /// Nothing was done; `errors` says why.
    Nothing,
    /// A `matrix` step: each caller's row of each agent's denial codes (empty: admitted).
    Matrix(Box<Box<[Vec<Vec<DenialCode>>]>>),
}

impl StepResult {
    pub fn ranking(ranking: Vec<Ranked>) -> StepResult {
        StepResult::Ranking(Box::new(ranking.into_boxed_slice()))
    }

    pub fn matrix(grid: Vec<Vec<Vec<DenialCode>>>) -> StepResult {
        StepResult::Matrix(Box::new(grid.into_boxed_slice()))
    }
}

/// A refusal's codes, inline: each of the five checks refuses at most once.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct DenialCodes {
    len: u8,
    codes: [DenialCode; DenialCode::ALL.len()],
}

impl DenialCodes {
    /// The codes of these denials, in their order; at most one per check.
    pub fn of(denials: &[Denial]) -> DenialCodes {
        let mut codes = DenialCodes {
            len: 0,
            codes: DenialCode::ALL,
        };
        for (slot, d) in codes.codes.iter_mut().zip(denials) {
            *slot = d.code;
            codes.len += 1;
        }
        assert_eq!(
            usize::from(codes.len),
            denials.len(),
            "each check refuses at most once"
        );
        codes
    }
}

impl std::ops::Deref for DenialCodes {
    type Target = [DenialCode];

    fn deref(&self) -> &[DenialCode] {
        &self.codes[..usize::from(self.len)]
    }
}

impl std::fmt::Debug for DenialCodes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_and_denial_records_stay_compact_and_read_back() {
        assert_eq!(std::mem::size_of::<ErrorRecord>(), 32);
        assert_eq!(std::mem::size_of::<DenialRecord>(), 32);
        let e = ErrorRecord::new(7, ErrorCode::TaskNotFound, "why".into(), Some(0));
        assert_eq!((e.step(), e.task()), (7, Some(0)));
        assert_eq!(
            ErrorRecord::new(1, ErrorCode::TaskNotFound, "".into(), None).task(),
            None
        );
        let d = DenialRecord::new(3, 4, 5, Vec::new());
        assert_eq!((d.step(), d.caller, d.callee()), (3, 4, 5));
    }

    #[test]
    fn a_refusals_codes_read_back_in_their_order() {
        let denial = |code| Denial {
            code,
            detail: "".into(),
        };
        assert!(DenialCodes::of(&[]).is_empty());
        let some = [denial(DenialCode::Depth), denial(DenialCode::Scope)];
        assert_eq!(
            &*DenialCodes::of(&some),
            &[DenialCode::Depth, DenialCode::Scope]
        );
        let all = DenialCode::ALL.map(denial);
        assert_eq!(&*DenialCodes::of(&all), &DenialCode::ALL);
        assert_eq!(format!("{:?}", DenialCodes::of(&some)), "[Depth, Scope]");
    }

    #[test]
    fn an_event_gives_back_its_call_and_kind() {
        let mut snapshots = Vec::new();
        let calls = [0, 1, 80_000, CALL_BITS as usize];
        let kinds = [
            EventKind::Task {
                history: 3,
                messages: 2,
                artifacts: 1,
            },
            EventKind::Status(4),
            EventKind::Message(5),
            EventKind::Artifact(6),
        ];
        for call in calls {
            for kind in kinds {
                let e = Event::new(call, kind, &mut snapshots);
                assert_eq!(e.call(), call);
                assert_eq!(format!("{:?}", e.kind(&snapshots)), format!("{kind:?}"));
            }
        }
        assert_eq!(snapshots.len(), calls.len());
        assert_eq!(std::mem::size_of::<Event>(), 8);
    }

    #[test]
    fn a_step_record_stays_compact() {
        // One per driver step.
        assert_eq!(std::mem::size_of::<StepResult>(), 16);
        assert_eq!(std::mem::size_of::<StepRecord>(), 24);
        let r = StepRecord::new(Some(5), StepResult::Nothing);
        assert_eq!(r.caller(), Some(5));
        assert_eq!(StepRecord::new(None, StepResult::Tick(1)).caller(), None);
    }
}
