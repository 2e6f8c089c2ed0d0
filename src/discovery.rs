//! `discover`: rank the cards a caller may use by how well their best skill matches the tags.

use std::cmp::Ordering;

use crate::admission::CallerContext;
use crate::scenario::{Agent, AgentIx};
use crate::symbols::Sym;

/// One ranked card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranked {
    pub agent: AgentIx,
    pub score: u32,
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
    agents: &[Agent],
) -> Vec<Ranked> {
    let better = |a: &Ranked, b: &Ranked| -> Ordering {
        b.score
            .cmp(&a.score)
            .then_with(|| agents[a.agent].name().cmp(agents[b.agent].name()))
    };
    let candidates = agents.iter().enumerate().filter_map(|(ix, card)| {
        let usable = card.sym != caller.agent_id
            && card.tenant == caller.tenant
            && card.clearance >= caller.classification;
        let score = if usable { score(card, tags) } else { 0 };
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
pub fn top(caller: &CallerContext, tags: &[Sym], agents: &[Agent]) -> Option<AgentIx> {
    discover(caller, tags, Some(1), agents)
        .first()
        .map(|r| r.agent)
}

/// The best single skill's overlap, not the sum: a specialist with one exact match outranks a
/// generalist with many weak ones.
fn score(card: &Agent, tags: &[Sym]) -> u32 {
    card.card
        .skills
        .iter()
        .map(|s| overlap(&s.tag_set, tags))
        .max()
        .unwrap_or(0)
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
