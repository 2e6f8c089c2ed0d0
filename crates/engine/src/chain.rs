//! Delegation chains, shared: a task's chain is its caller's chain plus one hop, so chains are
//! stored as a persistent list in an arena and each task adds one node. A chain of depth n costs
//! O(1) per task instead of O(n).

use crate::ix::Ix;
use crate::symbols::Sym;

/// A chain: the node of its last hop, or `None` for the empty chain (four bytes: one per task).
pub type ChainRef = Option<Ix>;

#[derive(Debug, Clone, Copy)]
struct Node {
    hop: Sym,
    rest: ChainRef,
    len: u32,
}

#[derive(Debug, Default)]
pub struct Chains {
    nodes: Vec<Node>,
}

impl Chains {
    /// `rest + [hop]`.
    pub fn push(&mut self, rest: ChainRef, hop: Sym) -> ChainRef {
        let len = self.len(rest) + 1;
        self.nodes.push(Node { hop, rest, len });
        Some(Ix::new(self.nodes.len() - 1))
    }

    pub fn from_slice(&mut self, hops: &[Sym]) -> ChainRef {
        hops.iter().fold(None, |rest, &hop| self.push(rest, hop))
    }

    pub fn len(&self, chain: ChainRef) -> u32 {
        chain.map_or(0, |n| self.nodes[n.get()].len)
    }

    pub fn contains(&self, chain: ChainRef, sym: Sym) -> bool {
        self.iter_rev(chain).any(|hop| hop == sym)
    }

    /// Hops from the last to the first.
    pub fn iter_rev(&self, chain: ChainRef) -> impl Iterator<Item = Sym> + '_ {
        let mut at = chain;
        std::iter::from_fn(move || {
            let node = self.nodes[at?.get()];
            at = node.rest;
            Some(node.hop)
        })
    }

    /// Hops from the first to the last.
    pub fn to_vec(&self, chain: ChainRef) -> Vec<Sym> {
        let mut hops: Vec<Sym> = self.iter_rev(chain).collect();
        hops.reverse();
        hops
    }
}
