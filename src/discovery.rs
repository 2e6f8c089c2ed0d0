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
    let mut ranked: Vec<Ranked> = Vec::new();
    if limit == Some(0) {
        return ranked;
    }
    for (ix, card) in agents.iter().enumerate() {
        if card.sym == caller.agent_id
            || card.tenant != caller.tenant
            || card.clearance < caller.classification
        {
            continue;
        }
        let score = score(card, tags);
        if score > 0 {
            ranked.push(Ranked { agent: ix, score });
        }
    }
    let order = |a: &Ranked, b: &Ranked| -> Ordering {
        b.score
            .cmp(&a.score)
            .then_with(|| agents[a.agent].name().cmp(agents[b.agent].name()))
    };
    match limit {
        Some(k) if k < ranked.len() => {
            ranked.select_nth_unstable_by(k - 1, order);
            ranked.truncate(k);
        }
        _ => {}
    }
    ranked.sort_unstable_by(order);
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
