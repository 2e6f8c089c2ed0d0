//! The cards' discovery facts, flat and indexed by tag: part of the loaded scenario, built once
//! when it is loaded. Discovery ranks what a query of it returns.

use std::cmp::Ordering;

use smallvec::SmallVec;

use crate::caller_context::CallerContext;
use crate::ids::AgentIx;
use crate::symbols::Sym;

use super::agents::Agent;

/// Cards and their scores, in card order.
pub type Scores = SmallVec<[(usize, u32); 32]>;

/// One ranked card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranked {
    pub agent: AgentIx,
    pub score: u32,
}

/// The cards' discovery facts, built once per scenario: for each tag, the skills that carry it
/// (an inverted index), so a query touches only the skills that share one of its tags — a few
/// dozen postings rather than every card's every skill (a tenth of a 100,000-step run's time was
/// that scan, with 200 cards).
#[derive(Debug, Default)]
pub struct Directory {
    cards: Vec<Entry>,
    /// Each skill's card.
    skill_card: Vec<u32>,
    /// The tags that some skill carries, sorted, each with its range of `postings`.
    tags: Vec<(Sym, u32, u32)>,
    /// Skill indices, grouped by tag, ascending within a group.
    postings: Vec<u32>,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    sym: Sym,
    tenant: Sym,
    clearance: u32,
    /// Position in name order: ties break on it without touching the names.
    name_rank: u32,
}

impl Directory {
    pub fn new(agents: &[Agent]) -> Directory {
        Directory::with_skills(agents, &std::collections::BTreeMap::new())
    }

    /// [`Directory::new`], with the skills (as tag sets) of the agents in `live` instead of
    /// their cards': a real agent's, read from the card it serves.
    pub fn with_skills(
        agents: &[Agent],
        live: &std::collections::BTreeMap<usize, Vec<Vec<Sym>>>,
    ) -> Directory {
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        let mut d = Directory::default();
        let mut skills: Vec<(u32, &[Sym])> = Vec::new();
        for (card, a) in agents.iter().enumerate() {
            match live.get(&card) {
                Some(sets) => skills.extend(sets.iter().map(|t| (n(card), &t[..]))),
                None => skills.extend(a.card.skills.iter().map(|s| (n(card), &s.tag_set[..]))),
            }
            d.cards.push(Entry {
                sym: a.sym,
                tenant: a.tenant,
                clearance: n(a.clearance),
                name_rank: 0,
            });
        }
        d.index(skills);
        let mut by_name: Vec<usize> = (0..agents.len()).collect();
        by_name.sort_by(|&a, &b| agents[a].name().cmp(agents[b].name()));
        for (rank, ix) in by_name.into_iter().enumerate() {
            d.cards[ix].name_rank = n(rank);
        }
        d
    }

    /// The inverted index of `skills` (each with its card, in card order).
    fn index(&mut self, skills: Vec<(u32, &[Sym])>) {
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        // (tag, skill) for every distinct tag of every skill; sorted, they are the index.
        let mut pairs: Vec<(Sym, u32)> = Vec::new();
        for (ix, (card, tags)) in skills.into_iter().enumerate() {
            self.skill_card.push(card);
            let mut tags = tags.to_vec();
            tags.sort_unstable();
            tags.dedup();
            pairs.extend(tags.into_iter().map(|t| (t, n(ix))));
        }
        pairs.sort_unstable();
        for (tag, skill) in pairs {
            match self.tags.last_mut() {
                Some(last) if last.0 == tag => last.2 += 1,
                _ => {
                    let at = n(self.postings.len());
                    self.tags.push((tag, at, at + 1));
                }
            }
            self.postings.push(skill);
        }
    }

    /// Each card with a skill sharing a tag with `tags` (a sorted set), and its score: the best
    /// single skill's overlap, not the sum — a specialist with one exact match outranks a
    /// generalist with many weak ones. In card order.
    pub fn scores(&self, tags: &[Sym]) -> Scores {
        // On the stack: a query's hits are a few dozen (this ran once per discovery, 20,000 times
        // in a large run).
        let mut hits: SmallVec<[u32; 64]> = SmallVec::new();
        for tag in tags {
            if let Ok(i) = self.tags.binary_search_by_key(tag, |t| t.0) {
                let (_, a, b) = self.tags[i];
                hits.extend_from_slice(&self.postings[a as usize..b as usize]);
            }
        }
        // A skill's overlap is how often it was hit; a card's skills are consecutive, so after
        // sorting, each card's hits are one run.
        hits.sort_unstable();
        let mut scores = Scores::new();
        for run in hits.chunk_by(|a, b| a == b) {
            let card = self.skill_card[run[0] as usize] as usize;
            let overlap = u32::try_from(run.len()).unwrap_or(u32::MAX);
            match scores.last_mut() {
                Some(last) if last.0 == card => last.1 = last.1.max(overlap),
                _ => scores.push((card, overlap)),
            }
        }
        scores
    }
}

impl Directory {
    /// The scored cards the caller may use. Exclusions (the caller itself, another tenant,
    /// cleared below the data) are applied here, before any ranking.
    pub(crate) fn candidates<'a>(
        &'a self,
        caller: &CallerContext,
        scores: &'a [(usize, u32)],
    ) -> impl Iterator<Item = Ranked> + use<'a> {
        let (agent_id, tenant, level) = (caller.agent_id, caller.tenant, caller.classification);
        scores
            .iter()
            .filter(move |&&(ix, _)| {
                let card = &self.cards[ix];
                card.sym != agent_id && card.tenant == tenant && card.clearance as usize >= level
            })
            .map(|&(agent, score)| Ranked { agent, score })
    }

    /// Higher score first, then name order.
    pub(crate) fn better(&self, a: &Ranked, b: &Ranked) -> Ordering {
        b.score.cmp(&a.score).then_with(|| {
            self.cards[a.agent]
                .name_rank
                .cmp(&self.cards[b.agent].name_rank)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The scan the index replaced: every card's every skill, merged with the query.
    fn scanned(cards: &[Vec<Vec<Sym>>], tags: &[Sym]) -> Vec<(usize, u32)> {
        let overlap = |skill: &Vec<Sym>| {
            let mut set = skill.clone();
            set.sort_unstable();
            set.dedup();
            u32::try_from(set.iter().filter(|t| tags.contains(t)).count()).unwrap_or(0)
        };
        cards
            .iter()
            .enumerate()
            .map(|(ix, skills)| (ix, skills.iter().map(overlap).max().unwrap_or(0)))
            .filter(|&(_, score)| score > 0)
            .collect()
    }

    proptest! {
        #[test]
        fn the_index_scores_as_the_scan_did(
            cards in prop::collection::vec(
                prop::collection::vec(prop::collection::vec(0u32..12, 0..5), 0..4),
                0..12,
            ),
            query in prop::collection::btree_set(0u32..14, 0..5),
        ) {
            let tags: Vec<Sym> = query.into_iter().collect();
            let mut d = Directory::default();
            let skills = cards
                .iter()
                .enumerate()
                .flat_map(|(c, skills)| skills.iter().map(move |s| (c as u32, &s[..])))
                .collect();
            d.index(skills);
            prop_assert_eq!(d.scores(&tags).to_vec(), scanned(&cards, &tags));
        }
    }
}
