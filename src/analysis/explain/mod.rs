//! `a2a-sim explain`: the operator's view of one step, one discovery or one task, with the values
//! each rule compared. Every explanation is built once as JSON and rendered for people from it.

mod admission;
mod discovery;
mod task;

use serde_json::{Value, json};

use crate::engine::World;
use crate::engine::record::StepResult;
use crate::engine::scenario::{Step, Target};
use crate::error::{Error, Status};

pub use admission::{admission as admission_checks, denied_codes, push_url};

/// An explanation: the JSON document and its human text.
pub struct Explanation {
    pub json: Value,
    pub text: String,
}

/// `--step N`: each admission check with its operands and verdict, and the push checks.
pub fn step(world: &World, n: usize) -> Result<Explanation, String> {
    let s = world.scenario;
    let step = step_at(world, n)?;
    let mut text = vec![format!("step {n}: {}", step.op())];
    let mut doc = serde_json::Map::new();
    doc.insert("step".into(), json!(n));
    doc.insert("op".into(), json!(step.op()));
    if let Some(c) = step.caller() {
        doc.insert("caller".into(), json!(s.callers[c].id));
        text[0].push_str(&format!(" by `{}`", s.callers[c].id));
    }
    match step {
        Step::Send(send) => {
            let ctx = world.driver_context(send.caller());
            let callee = match &send.to {
                Target::Agent(a) => Some(*a),
                Target::Discover(tags) => {
                    let top = crate::engine::top(&ctx, tags, &s.directory);
                    let names: Vec<&str> = tags.iter().map(|&t| s.symbols.name(t)).collect();
                    let found = top.map_or("no candidate".to_string(), |a| {
                        format!("top-ranked `{}`", s.agents[a].name())
                    });
                    text.push(format!(
                        "callee by discovery of [{}]: {found} (see --discover {n})",
                        names.join(", ")
                    ));
                    doc.insert(
                        "discovery".into(),
                        json!({"tags": names, "top": top.map(|a| s.agents[a].name())}),
                    );
                    top
                }
            };
            match callee {
                None => {
                    doc.insert("verdict".into(), json!("no_candidate"));
                    text.push("verdict: no candidate, nothing is created".into());
                }
                Some(a) => {
                    let agent = &s.agents[a];
                    text.push(format!("callee: `{}`", agent.name()));
                    doc.insert("callee".into(), json!(agent.name()));
                    let checks = admission::admission(&ctx, agent, s, &world.chains);
                    text.push("admission:".into());
                    text.extend(checks.iter().map(|c| format!("  {}", c.line())));
                    let codes = admission::denied_codes(&checks);
                    doc.insert(
                        "admission".into(),
                        Value::Array(checks.iter().map(|c| c.json()).collect()),
                    );
                    doc.insert("denied".into(), json!(codes));
                    let verdict = admission::verdict(codes.is_empty());
                    doc.insert("verdict".into(), json!(verdict));
                    text.push(if codes.is_empty() {
                        "verdict: admitted".into()
                    } else {
                        format!("verdict: denied ({})", codes.join(", "))
                    });
                    if send.push().is_some() && !codes.is_empty() {
                        doc.insert("push".into(), json!({"verdict": "not_checked", "rule": "a send that creates no task sets and checks no push config"}));
                        text.push("push config: not checked, the send created no task".into());
                    } else if let Some(push) = send.push() {
                        let (j, t) = push_checks(world, a, None, &push.url, push.token.is_empty());
                        doc.insert("push".into(), j);
                        text.extend(t);
                    }
                }
            }
        }
        Step::SetPushConfig {
            caller,
            task,
            agent,
            push,
        } => {
            // Which tasks exist depends on the time: ask the world as it was when the step ran.
            let before = before_step(world, n);
            let world = &before;
            let visible = world.lookup_task(*caller, task);
            let agent = agent.or_else(|| visible.map(|t| world.tasks[t].agent()));
            match agent {
                None => {
                    doc.insert("push".into(), json!({"verdict": "task_not_found", "rule": "the caller sees no such task, so no agent holds it"}));
                    text.push("push: task_not_found: the caller sees no such task".into());
                }
                Some(a) => {
                    let found = visible.is_some_and(|t| world.tasks[t].agent() == a);
                    let (j, t) =
                        push_checks(world, a, Some(found), &push.url, push.token.is_empty());
                    doc.insert("push".into(), j);
                    text.extend(t);
                }
            }
        }
        Step::Matrix { callers, agents } => {
            let mut pairs = Vec::new();
            for &c in callers {
                let ctx = world.driver_context(c);
                for &a in agents {
                    let checks = admission::admission(&ctx, &s.agents[a], s, &world.chains);
                    let codes = admission::denied_codes(&checks);
                    text.push(format!(
                        "`{}` → `{}`: {}",
                        s.callers[c].id,
                        s.agents[a].name(),
                        admission::verdict(codes.is_empty())
                    ));
                    text.extend(checks.iter().map(|c| format!("  {}", c.line())));
                    pairs.push(json!({
                        "caller": s.callers[c].id,
                        "agent": s.agents[a].name(),
                        "admission": checks.iter().map(|c| c.json()).collect::<Vec<_>>(),
                        "denied": codes,
                    }));
                }
            }
            doc.insert("pairs".into(), Value::Array(pairs));
        }
        Step::Discover { .. } => return discover(world, n),
        _ => {
            let r = &world.steps[n - 1].result;
            let summary = match r {
                StepResult::Task { task, state, .. } => {
                    format!("{} {state}", crate::engine::record::task_id(*task))
                }
                StepResult::Tick(t) => format!("tick {t}"),
                _ => "nothing done".into(),
            };
            let errors: Vec<Value> = world
                .errors
                .iter()
                .filter(|e| e.step() == n)
                .map(|e| json!({"code": e.code.as_str(), "detail": e.detail}))
                .collect();
            text.push(format!("result: {summary}"));
            for e in world.errors.iter().filter(|e| e.step() == n) {
                text.push(format!("  {}: {}", e.code.as_str(), e.detail));
            }
            doc.insert("result".into(), json!(summary));
            doc.insert("errors".into(), Value::Array(errors));
        }
    }
    Ok(Explanation {
        json: Value::Object(doc),
        text: lines(text),
    })
}

/// The four push-config refusals in their order; `found`: whether the task exists on the agent
/// as the caller sees it (`None`: not yet known — the task is created by this very send).
fn push_checks(
    world: &World,
    agent: usize,
    found: Option<bool>,
    url: &str,
    no_token: bool,
) -> (Value, Vec<String>) {
    let s = world.scenario;
    let card = &s.agents[agent];
    let mut text = vec![format!("push config on `{}`:", card.name())];
    let mut checks = Vec::new();
    let mut verdict = None;
    let mut add =
        |name: &str, compared: String, ok: bool, code: &'static str, text: &mut Vec<String>| {
            let shown = if ok { "ok" } else { code };
            text.push(format!("  {:<15} {compared} → {shown}", format!("{name}:")));
            checks.push(json!({"check": name, "compared": compared, "verdict": shown}));
            if !ok && verdict.is_none() {
                verdict = Some(code);
            }
        };
    let cap = card.card.push_notifications;
    add(
        "capability",
        format!("card pushNotifications = {cap}"),
        cap,
        "push_not_supported",
        &mut text,
    );
    let found = found.unwrap_or(true);
    add(
        "task",
        format!(
            "task {} on `{}` for this caller",
            if found { "found" } else { "not found" },
            card.name()
        ),
        found,
        "task_not_found",
        &mut text,
    );
    let u = admission::push_url(url, &s.policy.push_allowed_hosts);
    let host = u
        .host
        .clone()
        .map_or("none".to_string(), |h| format!("`{h}`"));
    add(
        "url",
        format!("parsed host {host}: {}", u.rule),
        u.passed,
        "host_not_allowed",
        &mut text,
    );
    add(
        "token",
        format!(
            "token {}",
            if no_token {
                "absent or empty"
            } else {
                "present ([redacted])"
            }
        ),
        !no_token,
        "missing_token",
        &mut text,
    );
    let v = verdict.unwrap_or("accepted");
    text.push(format!("  verdict: {v} (first failure wins)"));
    (
        json!({"host": u.host, "rule": u.rule, "checks": checks, "verdict": v}),
        text,
    )
}

/// `--discover N`: every agent of the directory, excluded (with the values) or scored, and ranked.
pub fn discover(world: &World, n: usize) -> Result<Explanation, String> {
    let step = step_at(world, n)?;
    let (caller, tags, limit) = match step {
        Step::Discover {
            caller,
            tags,
            limit,
        } => (*caller, &tags[..], *limit),
        Step::Send(s) => match &s.to {
            Target::Discover(tags) => (s.caller(), &tags[..], Some(1)),
            Target::Agent(_) => {
                return Err(format!("step {n} names its callee, it makes no discovery"));
            }
        },
        _ => {
            return Err(format!(
                "step {n} is a {} step, not a discovery (a discover step, or a send to {{discover: [tags]}})",
                step.op()
            ));
        }
    };
    let (json, text) = discovery::explain(world, n, caller, tags, limit);
    Ok(Explanation {
        json,
        text: lines(text),
    })
}

/// `--task ID`: the task's path through its handler, with ticks and why each `when` went its way.
pub fn task(world: &World, id: &str) -> Result<Explanation, String> {
    let ix = crate::engine::record::parse_task_id(id)
        .filter(|&ix| ix < world.tasks.len())
        .ok_or_else(|| {
            format!(
                "no task `{id}` in this run (it has {} tasks: task-1 …)",
                world.tasks.len()
            )
        })?;
    let (json, text) = task::explain(world, ix);
    Ok(Explanation {
        json,
        text: lines(text),
    })
}

/// The world as it was when step `n` began: the steps before it replayed (the run is deterministic).
fn before_step<'s>(world: &World<'s>, n: usize) -> World<'s> {
    let mut w = World::new(world.scenario);
    for (i, step) in world.scenario.steps.iter().take(n - 1).enumerate() {
        w.step = i + 1;
        w.run_step(step);
    }
    w
}

fn step_at<'s>(world: &World<'s>, n: usize) -> Result<&'s Step, String> {
    let steps = &world.scenario.steps;
    n.checked_sub(1).and_then(|i| steps.get(i)).ok_or_else(|| {
        format!(
            "no step {n}: the scenario has {} steps, numbered from 1",
            steps.len()
        )
    })
}

/// The text output: one line each, names and texts in them shown escaped ([`crate::escape`]).
fn lines(v: Vec<String>) -> String {
    let mut s = String::new();
    for line in &v {
        s.push_str(&crate::escape::text(line));
        s.push('\n');
    }
    s
}

/// The `explain` command: exactly one of `--step`, `--discover`, `--task`.
pub fn command(
    file: &std::path::Path,
    step_n: Option<usize>,
    discover_n: Option<usize>,
    task_id: Option<&str>,
    as_json: bool,
) -> Result<Status, Error> {
    let scenario = crate::scenario::Load::file(file).scenario()?;
    let world = crate::engine::run(&scenario);
    let result = match (step_n, discover_n, task_id) {
        (Some(n), _, _) => step(&world, n),
        (_, Some(n), _) => discover(&world, n),
        (_, _, Some(id)) => task(&world, id),
        _ => Err("say what to explain: --step N, --discover N or --task ID".to_string()),
    };
    let e = result.map_err(|why| Error::Input(format!("{}: {why}", file.display())))?;
    let mut out = std::io::stdout().lock();
    crate::error::written(if as_json {
        crate::report::json::write_pretty(&e.json, &mut out)
    } else {
        std::io::Write::write_all(&mut out, e.text.as_bytes())
    })?;
    Ok(Status::Success)
}

/// The handler steps (pre-order numbers) a task's walk matched against its records: what
/// `coverage` counts as run.
pub fn steps_taken(world: &World, ix: crate::engine::record::TaskIx) -> Vec<usize> {
    let (doc, _) = task::explain(world, ix);
    doc["path"]
        .as_array()
        .map(|p| {
            p.iter()
                .filter_map(|e| e["handler_step"].as_u64())
                .map(|n| n as usize)
                .collect()
        })
        .unwrap_or_default()
}
