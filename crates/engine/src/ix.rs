//! Indices as the engine's records keep them: 32 bits, where a `usize` is 64. Every index counts
//! something held in memory (tasks, calls, events, messages, callers, aliases), so a run ends
//! long before any count reaches 2^32.

use std::num::NonZeroU32;

/// An index in 32 bits.
pub fn ix32(ix: usize) -> u32 {
    u32::try_from(ix).expect("a run's indices stay below 2^32")
}

/// An index in 32 bits whose `Option` is 32 bits too: it holds the index + 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ix(NonZeroU32);

impl Ix {
    pub fn new(ix: usize) -> Ix {
        Ix(ix32(ix)
            .checked_add(1)
            .and_then(NonZeroU32::new)
            .expect("a run's indices stay below 2^32 - 1"))
    }

    pub fn get(self) -> usize {
        self.0.get() as usize - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ix_gives_back_its_index_in_four_bytes_with_its_none() {
        assert_eq!(std::mem::size_of::<Option<Ix>>(), 4);
        for ix in [0, 1, 61_022, u32::MAX as usize - 1] {
            assert_eq!(Ix::new(ix).get(), ix);
        }
    }
}
