//! `explain --discover`: why each card of the directory was left out, or how it scored.

use serde_json::{Value, json};

use crate::engine::scenario::{CallerIx, Sym};
use crate::engine::{World, discover};

pub fn explain(
    world: &World,
    n: usize,
    caller: CallerIx,
    tags: &[Sym],
    limit: Option<usize>,
) -> (Value, Vec<String>) {
    let s = world.scenario;
    let names = &s.symbols;
    let ctx = world.driver_context(caller);
    // The ranking is the engine's own, so ranks here are the ranks the run used.
    let full = discover(&ctx, tags, None, &s.directory, &s.agents);
    let kept = limit.map_or(full.len(), |k| k.min(full.len()));
    let tag_names: Vec<&str> = tags.iter().map(|&t| names.name(t)).collect();
    let mut text = vec![format!(
        "step {n}: discovery of [{}] by `{}` (tenant `{}`, data `{}`){}",
        tag_names.join(", "),
        s.callers[caller].id,
        names.name(ctx.tenant),
        s.levels[ctx.classification],
        limit.map_or(String::new(), |k| format!(", limit {k}"))
    )];
    let mut agents = Vec::new();
    for (ix, a) in s.agents.iter().enumerate() {
        let exclusion = if a.sym == ctx.agent_id {
            Some(("self", format!("`{}` is the caller", a.name())))
        } else if a.tenant != ctx.tenant {
            Some((
                "tenant",
                format!(
                    "card tenant `{}` ≠ caller tenant `{}`",
                    names.name(a.tenant),
                    names.name(ctx.tenant)
                ),
            ))
        } else if a.clearance < ctx.classification {
            Some((
                "clearance",
                format!(
                    "card cleared `{}` < data `{}`",
                    s.levels[a.clearance], s.levels[ctx.classification]
                ),
            ))
        } else {
            None
        };
        if let Some((why, detail)) = exclusion {
            text.push(format!("  {}: excluded ({why}): {detail}", a.name()));
            agents.push(json!({"agent": a.name(), "excluded": why, "detail": detail}));
            continue;
        }
        let skills: Vec<Value> = a
            .card
            .skills
            .iter()
            .map(|sk| {
                let hit: Vec<&str> = sk
                    .tag_set
                    .iter()
                    .filter(|t| tags.contains(t))
                    .map(|&t| names.name(t))
                    .collect();
                json!({"skill": sk.id, "matched": hit, "overlap": hit.len()})
            })
            .collect();
        let score = skills
            .iter()
            .filter_map(|v| v["overlap"].as_u64())
            .max()
            .unwrap_or(0);
        let pos = full.iter().position(|r| r.agent == ix);
        let (rank, status) = match pos {
            Some(p) if p < kept => (Some(p + 1), "returned".to_string()),
            Some(p) => (Some(p + 1), format!("cut by the limit (rank {})", p + 1)),
            None => (None, "score 0: not returned".to_string()),
        };
        let per_skill: Vec<String> = skills
            .iter()
            .map(|v| {
                format!(
                    "{} {}",
                    v["skill"].as_str().unwrap_or_default(),
                    v["overlap"]
                )
            })
            .collect();
        text.push(format!(
            "  {}: score {score} (best skill of: {}){}: {status}",
            a.name(),
            per_skill.join(", "),
            rank.map_or(String::new(), |r| format!(", rank {r}"))
        ));
        agents.push(json!({
            "agent": a.name(),
            "skills": skills,
            "score": score,
            "rank": rank,
            "returned": pos.is_some_and(|p| p < kept),
        }));
    }
    let result: Vec<&str> = full[..kept]
        .iter()
        .map(|r| s.agents[r.agent].name())
        .collect();
    text.push(format!("result: [{}]", result.join(", ")));
    let doc = json!({
        "step": n,
        "caller": s.callers[caller].id,
        "tags": tag_names,
        "limit": limit,
        "agents": agents,
        "result": result,
    });
    (doc, text)
}
