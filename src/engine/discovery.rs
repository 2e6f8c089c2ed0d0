//! `discover`: rank the cards a caller may use by how well their best skill matches the tags.

use std::cmp::Ordering;

use crate::engine::admission::CallerContext;
use crate::engine::scenario::{Agent, AgentIx};
use crate::engine::symbols::Sym;

/// One ranked card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranked {
    pub agent: AgentIx,
    pub score: u32,
}

/// The cards' discovery facts in flat arrays, built once per scenario: a query walks them in
/// order, touching no card, skill or string until a card matches, so its cost stays linear in
/// cards × skills however large the directory.
#[derive(Debug, Default)]
pub struct Directory {
    cards: Vec<Entry>,
    /// Each skill's tag set: a range of `tags`.
    skills: Vec<(u32, u32)>,
    tags: Vec<Sym>,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    sym: Sym,
    tenant: Sym,
    clearance: u32,
    /// Position in name order: ties break on it without touching the names.
    name_rank: u32,
    /// A range of `skills`.
    skills: (u32, u32),
}

impl Directory {
    pub fn new(agents: &[Agent]) -> Directory {
        let mut d = Directory::default();
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        for a in agents {
            let first = d.skills.len();
            for skill in &a.card.skills {
                let start = d.tags.len();
                d.tags.extend_from_slice(&skill.tag_set);
                d.skills.push((n(start), n(d.tags.len())));
            }
            d.cards.push(Entry {
                sym: a.sym,
                tenant: a.tenant,
                clearance: n(a.clearance),
                name_rank: 0,
                skills: (n(first), n(d.skills.len())),
            });
        }
        let mut by_name: Vec<usize> = (0..agents.len()).collect();
        by_name.sort_by(|&a, &b| agents[a].name().cmp(agents[b].name()));
        for (rank, ix) in by_name.into_iter().enumerate() {
            d.cards[ix].name_rank = n(rank);
        }
        d
    }

    /// The best single skill's overlap, not the sum: a specialist with one exact match outranks
    /// a generalist with many weak ones.
    fn score(&self, card: &Entry, tags: &[Sym]) -> u32 {
        self.skills[card.skills.0 as usize..card.skills.1 as usize]
            .iter()
            .map(|&(a, b)| overlap(&self.tags[a as usize..b as usize], tags))
            .max()
            .unwrap_or(0)
    }
}

/// Cards the caller may use, best first; ties by name. `tags` is a sorted set.
///
/// Exclusions (the caller itself, another tenant, cleared below the data) are applied while the
/// candidates are built: a card the caller may not use never enters the ranking, so it can neither
/// appear in a truncated result nor leak by its position.
pub fn discover(
    caller: &CallerContext,
    tags: &[Sym],
    limit: Option<usize>,
    directory: &Directory,
    agents: &[Agent],
) -> Vec<Ranked> {
    let cards = &directory.cards;
    let better = |a: &Ranked, b: &Ranked| -> Ordering {
        b.score
            .cmp(&a.score)
            .then_with(|| cards[a.agent].name_rank.cmp(&cards[b.agent].name_rank))
    };
    let candidates = directory.cards.iter().enumerate().filter_map(|(ix, card)| {
        let usable = card.sym != caller.agent_id
            && card.tenant == caller.tenant
            && card.clearance as usize >= caller.classification;
        let score = if usable {
            directory.score(card, tags)
        } else {
            0
        };
        (score > 0).then_some(Ranked { agent: ix, score })
    });
    let mut ranked: Vec<Ranked> = match limit {
        // Keep only the best `k` while scanning: memory is bounded by the limit, not the directory.
        Some(k) => {
            let mut best: Vec<Ranked> = Vec::with_capacity(k.min(agents.len()));
            for r in candidates {
                if best.len() == k {
                    match best.last() {
                        Some(worst) if better(&r, worst) == Ordering::Less => {
                            best.pop();
                        }
                        _ => continue,
                    }
                }
                let at = best.partition_point(|x| better(x, &r) == Ordering::Less);
                best.insert(at, r);
            }
            best
        }
        None => candidates.collect(),
    };
    if limit.is_none() {
        ranked.sort_unstable_by(better);
    }
    ranked
}

/// The best one: what `to: {discover: [tags]}` delegates to.
pub fn top(
    caller: &CallerContext,
    tags: &[Sym],
    directory: &Directory,
    agents: &[Agent],
) -> Option<AgentIx> {
    discover(caller, tags, Some(1), directory, agents)
        .first()
        .map(|r| r.agent)
}

fn overlap(a: &[Sym], b: &[Sym]) -> u32 {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}
