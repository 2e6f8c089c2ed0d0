//! One member of a delegation: its child task, its outcome, and why it has none.

use crate::codes::Outcome;
use crate::ids::{AgentIx, TaskIx};
use crate::ix::Ix;

/// One member of a delegation: a fan-out's child, or a delegate's current attempt. 32 bytes:
/// its rarer indices are kept in 32 bits, read through [`Member::denial`], [`Member::callee`]
/// and [`Member::refused`].
#[derive(Debug, Clone, Copy)]
pub struct Member {
    /// The child task; none when it was denied or had no candidate.
    pub task: Option<TaskIx>,
    pub outcome: Option<Outcome>,
    denial: Option<Ix>,
    callee: Option<Ix>,
    refused: Option<Ix>,
}

impl Member {
    /// A member whose child task was created, on `callee`.
    pub(crate) fn created(task: TaskIx, callee: AgentIx) -> Member {
        Member {
            task: Some(task),
            outcome: None,
            denial: None,
            callee: Some(Ix::new(callee)),
            refused: None,
        }
    }

    /// A member that made no task and ended with `outcome`: on `callee`, once one was found.
    pub(crate) fn unresolved(outcome: Outcome, callee: Option<AgentIx>) -> Member {
        Member {
            task: None,
            outcome: Some(outcome),
            denial: None,
            callee: callee.map(Ix::new),
            refused: None,
        }
    }

    /// The same, refused by admission: `denial` indexes the world's denials.
    pub(crate) fn denied_by(self, denial: usize) -> Member {
        Member {
            denial: Some(Ix::new(denial)),
            ..self
        }
    }

    /// The same, refused by the callee's token check: `refused` indexes the world's refusals.
    pub(crate) fn refused_by(mut self, refused: usize) -> Member {
        self.set_refused(refused);
        self
    }

    /// Index into the world's denials, when admission refused it.
    pub fn denial(&self) -> Option<usize> {
        self.denial.map(Ix::get)
    }

    /// The agent asked, once discovery found one.
    pub fn callee(&self) -> Option<AgentIx> {
        self.callee.map(Ix::get)
    }

    /// Index into the world's token refusals, when the callee refused the platform's token for
    /// this hop's creation or for a reply sent down to it.
    pub fn refused(&self) -> Option<usize> {
        self.refused.map(Ix::get)
    }

    pub(crate) fn set_refused(&mut self, refused: usize) {
        self.refused = Some(Ix::new(refused));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_gives_back_its_indices_in_32_bytes() {
        assert_eq!(std::mem::size_of::<Member>(), 32);
        let mut m = Member::created(7, 199).denied_by(0);
        assert_eq!(
            (m.task, m.denial(), m.callee(), m.refused()),
            (Some(7), Some(0), Some(199), None)
        );
        m.set_refused(3);
        assert_eq!(m.refused(), Some(3));
        let none = Member::unresolved(Outcome::NoCandidate, None);
        assert_eq!(
            (none.denial(), none.callee(), none.refused()),
            (None, None, None)
        );
    }
}
