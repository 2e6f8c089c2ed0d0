//! `discover`: rank the cards a caller may use by how well their best skill matches the tags.

use std::cmp::Ordering;

use crate::caller_context::CallerContext;
use crate::ids::AgentIx;
use crate::scenario::Agent;
pub use crate::scenario::{Directory, Ranked};
use crate::symbols::Sym;

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
    rank(caller, &directory.scores(tags), limit, directory, agents)
}

/// [`discover`] from the query's [`Directory::scores`] (a world keeps them per tag set).
pub fn rank(
    caller: &CallerContext,
    scores: &[(usize, u32)],
    limit: Option<usize>,
    directory: &Directory,
    agents: &[Agent],
) -> Vec<Ranked> {
    let better = |a: &Ranked, b: &Ranked| directory.better(a, b);
    let candidates = directory.candidates(caller, scores);
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

/// The best one: what `to: {discover: [tags]}` delegates to (`discover` with a limit of 1,
/// without its list).
pub fn top(caller: &CallerContext, tags: &[Sym], directory: &Directory) -> Option<AgentIx> {
    best(caller, &directory.scores(tags), directory)
}

/// [`top`] from the query's [`Directory::scores`].
pub fn best(
    caller: &CallerContext,
    scores: &[(usize, u32)],
    directory: &Directory,
) -> Option<AgentIx> {
    directory
        .candidates(caller, scores)
        .min_by(|a, b| directory.better(a, b))
        .map(|r| r.agent)
}
