//! Checks a run against the scenario's `expect:` entries. Matching is exact.

use crate::engine::World;
use crate::engine::record::{
    Delegation, DeliveryOutcome, DenialCode, StepResult, TaskIx, TaskState, task_id,
};
use crate::engine::scenario::{
    DeliveriesExpectation, Expectation, Expected, Outcome, PathHop, Step, TaskExpectation, TaskPath,
};
use crate::engine::scenario::{text_holds, value_holds};

use super::wording::{data_misses, text_test, value_test};

/// A failed expectation: its index in `expect:` and what differed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmet {
    pub index: usize,
    pub message: String,
}

pub fn check(world: &World) -> Vec<Unmet> {
    let s = world.scenario;
    let mut unmet = Vec::new();
    let mut fail = |index: usize, message: String| unmet.push(Unmet { index, message });
    for (i, e) in s.expectations.iter().enumerate() {
        match e {
            Expectation::Task(te) => {
                for message in task_expectation(world, te) {
                    fail(i, message);
                }
            }
            Expectation::Denied { step, codes } => {
                let got: Vec<&str> = match world.steps.get(step - 1).map(|r| &r.result) {
                    Some(StepResult::Denied(c)) => c.iter().map(|c| c.as_str()).collect(),
                    _ => Vec::new(),
                };
                let want: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
                if got != want {
                    fail(
                        i,
                        format!("step {step}: expected denial codes {want:?}, got {got:?}"),
                    );
                }
            }
            Expectation::DeniedPath { path, codes } => {
                let name = path_name(world, path);
                match resolve(world, path) {
                    Err(why) => fail(i, format!("`{name}`: {why}")),
                    Ok(node) => {
                        let got: Vec<&str> = node
                            .denial
                            .map(|d| {
                                world.denials[d]
                                    .denials
                                    .iter()
                                    .map(|x| x.code.as_str())
                                    .collect()
                            })
                            .unwrap_or_default();
                        let want: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
                        if got != want {
                            fail(
                                i,
                                format!("`{name}`: expected denial codes {want:?}, got {got:?}"),
                            );
                        }
                    }
                }
            }
            Expectation::Ranking { step, agents } => {
                let got: Vec<&str> = match world.steps.get(step - 1).map(|r| &r.result) {
                    Some(StepResult::Ranking(r)) => {
                        r.iter().map(|x| s.agents[x.agent].name()).collect()
                    }
                    _ => Vec::new(),
                };
                if got != *agents {
                    fail(
                        i,
                        format!("step {step}: expected the ranking {agents:?}, got {got:?}"),
                    );
                }
            }
            Expectation::Matrix { step, grid } => {
                let got = match world.steps.get(step - 1).map(|r| &r.result) {
                    Some(StepResult::Matrix(g)) => &g[..],
                    _ => &[],
                };
                if let Some(Step::Matrix { callers, agents }) = s.steps.get(step - 1) {
                    for (r, &c) in callers.iter().enumerate() {
                        for (k, &a) in agents.iter().enumerate() {
                            let cell = |g: &[Vec<Vec<DenialCode>>]| -> Vec<&'static str> {
                                g.get(r)
                                    .and_then(|row| row.get(k))
                                    .map(|v| v.iter().map(|c| c.as_str()).collect())
                                    .unwrap_or_default()
                            };
                            let (want, have) = (cell(grid), cell(got));
                            if want != have {
                                fail(
                                    i,
                                    format!(
                                        "step {step}: `{}` → `{}`: expected denial codes {want:?}, got {have:?}",
                                        s.callers[c].id,
                                        s.agents[a].name()
                                    ),
                                );
                            }
                        }
                    }
                }
            }
            Expectation::Pushes(want) => {
                let got: Vec<&str> = world.pushes.iter().map(|p| p.state.as_str()).collect();
                compare(&mut fail, i, "pushes", want, &got, |st| st.as_str());
            }
            Expectation::Errors(want) => {
                let got: Vec<&str> = world.errors.iter().map(|e| e.code.as_str()).collect();
                compare(&mut fail, i, "errors", want, &got, |c| c.as_str());
            }
            Expectation::Deliveries(d) => {
                if let Err(message) = deliveries(world, d) {
                    fail(i, message);
                }
            }
            Expectation::Received(r) => {
                for message in super::received::check(world, r) {
                    fail(i, message);
                }
            }
            Expectation::DeadLetters { count, given } => {
                if unless(world, given.as_deref()) {
                    continue;
                }
                let n = world
                    .deliveries
                    .iter()
                    .filter(|d| d.outcome == DeliveryOutcome::DeadLetter)
                    .count();
                if !value_holds(count, Some(&serde_json::Value::from(n))) {
                    fail(
                        i,
                        format!("expected {} dead letters, got {n}", value_test(count)),
                    );
                }
            }
            Expectation::LastPush {
                task,
                states,
                given,
            } => {
                if unless(world, given.as_deref()) {
                    continue;
                }
                if let Err(message) = last_push(world, task, states) {
                    fail(i, message);
                }
            }
        }
    }
    unmet
}

/// Whether an entry's `if` does not hold, so that the entry holds vacuously.
fn unless(world: &World, given: Option<&TaskExpectation>) -> bool {
    given.is_some_and(|g| !task_expectation(world, g).is_empty())
}

/// The task a path names, or why there is none.
fn task_of(world: &World, path: &TaskPath) -> Result<TaskIx, String> {
    let name = path_name(world, path);
    let node = resolve(world, path).map_err(|why| format!("task `{name}`: {why}"))?;
    node.task
        .filter(|_| !node.group)
        .ok_or_else(|| format!("task `{name}`: no task was created"))
}

/// `{deliveries: …}`: the matching attempts must pass the count.
fn deliveries(world: &World, d: &DeliveriesExpectation) -> Result<(), String> {
    if unless(world, d.given.as_deref()) {
        return Ok(());
    }
    let task = d.task.as_ref().map(|p| task_of(world, p)).transpose()?;
    let n = world
        .deliveries
        .iter()
        .filter(|x| task.is_none_or(|t| x.task == t))
        .filter(|x| d.url.as_ref().is_none_or(|u| world.push_urls[x.url] == *u))
        .filter(|x| d.outcomes.is_empty() || d.outcomes.contains(&x.outcome))
        .count();
    if value_holds(&d.count, Some(&serde_json::Value::from(n))) {
        return Ok(());
    }
    let mut what = String::from("delivery attempts");
    if let Some(p) = &d.task {
        what.push_str(&format!(" of `{}`", path_name(world, p)));
    }
    if let Some(u) = &d.url {
        what.push_str(&format!(" to {u}"));
    }
    if !d.outcomes.is_empty() {
        what.push_str(&format!(
            " {}",
            words(d.outcomes.iter().map(|o| o.as_str()))
        ));
    }
    Err(format!("expected {} {what}, got {n}", value_test(&d.count)))
}

/// `{pushes: {task: T}, last: {state: S}}`.
fn last_push(world: &World, path: &TaskPath, states: &[TaskState]) -> Result<(), String> {
    let task = task_of(world, path)?;
    let name = path_name(world, path);
    let last = world.pushes.iter().rev().find(|p| p.task == task);
    match last {
        Some(p) if states.contains(&p.state) => Ok(()),
        Some(p) => Err(format!(
            "task `{name}`: expected its last push to carry {}, got {}",
            words(states.iter().map(|s| s.as_str())),
            p.state.as_str()
        )),
        None => Err(format!("task `{name}`: no push was made for it")),
    }
}

/// What a task path names: a delegation's member (or a send), with its task if one was created.
struct Node {
    task: Option<TaskIx>,
    outcome: Option<Outcome>,
    /// Index into the world's denials, when admission refused it.
    denial: Option<usize>,
    /// A whole fan-out: it names no single task.
    group: bool,
}

fn path_name(world: &World, path: &TaskPath) -> String {
    let mut name = world.scenario.aliases[path.alias].to_string();
    for hop in &path.hops {
        match hop {
            PathHop::Result(r) => name = format!("{name}/{r}"),
            PathHop::Member(m) => name = format!("{name}/{m}"),
        }
    }
    name
}

fn resolve(world: &World, path: &TaskPath) -> Result<Node, String> {
    let s = world.scenario;
    let step = s.alias_steps[path.alias] as usize;
    let mut node = match world.alias_task(path.alias) {
        Some(t) => Node {
            task: Some(t),
            outcome: Some(Outcome::of_state(world.tasks[t].state)),
            denial: None,
            group: false,
        },
        None => {
            let denied = matches!(
                world.steps.get(step - 1).map(|r| &r.result),
                Some(StepResult::Denied(_))
            );
            let denial = world
                .denials
                .iter()
                .position(|d| d.step() == step)
                .filter(|_| denied);
            Node {
                task: None,
                outcome: Some(if denied {
                    Outcome::Denied
                } else if world.errors.iter().any(|e| {
                    e.step() == step && e.code == crate::engine::record::ErrorCode::AgentUnavailable
                }) {
                    Outcome::Unavailable
                } else {
                    Outcome::NoCandidate
                }),
                denial,
                group: false,
            }
        }
    };
    let mut group: Option<&Delegation> = None;
    for hop in &path.hops {
        match hop {
            PathHop::Result(name) => {
                let Some(t) = node.task else {
                    return Err(format!("no task was created, so it has no `{name}`"));
                };
                let agent = &s.agents[world.tasks[t].agent()];
                let Some(r) = agent.results.iter().position(|n| n == name) else {
                    return Err(format!(
                        "the handler of `{}` names no delegation `{name}`",
                        agent.name()
                    ));
                };
                let Some(d) = world.result_of(t, r) else {
                    return Err(format!("{}'s delegation `{name}` never ran", task_id(t)));
                };
                if d.is_group() {
                    group = Some(d);
                    node = Node {
                        task: None,
                        outcome: d.outcome,
                        denial: None,
                        group: true,
                    };
                } else {
                    group = None;
                    let m = d.members.first();
                    node = Node {
                        task: m.and_then(|m| m.task),
                        outcome: d.outcome.or(m.and_then(|m| m.outcome)),
                        denial: m.and_then(|m| m.denial()),
                        group: false,
                    };
                }
            }
            PathHop::Member(k) => {
                let Some(d) = group.take() else {
                    return Err(format!("member {k} names no fan-out"));
                };
                let Some(m) = k.checked_sub(1).and_then(|i| d.members.get(i)) else {
                    return Err(format!(
                        "the fan-out has {} members, not {k}",
                        d.members.len()
                    ));
                };
                node = Node {
                    task: m.task,
                    outcome: m.outcome,
                    denial: m.denial(),
                    group: false,
                };
            }
        }
    }
    Ok(node)
}

/// Every test of a `task:` expectation that does not hold, as messages.
fn task_expectation(world: &World, te: &TaskExpectation) -> Vec<String> {
    // `if`: holds vacuously when the condition does not.
    if let Some(given) = &te.given
        && !task_expectation(world, given).is_empty()
    {
        return Vec::new();
    }
    let s = world.scenario;
    let name = path_name(world, &te.path);
    let node = match resolve(world, &te.path) {
        Ok(node) => node,
        Err(why) => return vec![format!("task `{name}`: {why}")],
    };
    let mut out = Vec::new();
    if let Some(want) = &te.outcome {
        let got = node.outcome;
        if !got.is_some_and(|o| want.contains(&o)) {
            let got = got.map_or("unresolved", |o| o.as_str());
            out.push(format!(
                "task `{name}`: expected outcome {}, got {got}",
                words(want.iter().map(|o| o.as_str()))
            ));
        }
    }
    let needs_task = te.state.is_some()
        || te.delegation_chain.is_some()
        || te.history.is_some()
        || te.text.is_some()
        || !te.data.is_empty()
        || te.attempt.is_some();
    if !needs_task {
        return out;
    }
    let Some(t) = node.task else {
        let why = if node.group {
            "names a fan-out, not a task (add a member number, e.g. `/1`)".to_string()
        } else {
            let outcome = node.outcome.map_or("unresolved", |o| o.as_str());
            format!("created no task (outcome {outcome})")
        };
        out.push(format!("task `{name}`: {why}"));
        return out;
    };
    let task = &world.tasks[t];
    let label = format!("task `{name}` ({})", task_id(t));
    if let Some(want) = &te.state
        && !want.contains(&task.state)
    {
        out.push(format!(
            "{label}: expected state {}, got {}",
            words(want.iter().map(|s| s.as_str())),
            task.state
        ));
    }
    if let Some(want) = &te.delegation_chain {
        let got: Vec<&str> = world
            .chains
            .to_vec(task.delegation_chain)
            .iter()
            .map(|&h| s.symbols.name(h))
            .collect();
        if got != *want {
            out.push(format!(
                "{label}: expected delegation_chain {want:?}, got {got:?}"
            ));
        }
    }
    if let Some(want) = &te.history {
        let got: Vec<TaskState> = task.history.iter().map(|h| h.state).collect();
        if got != *want {
            let got: Vec<&str> = got.iter().map(|s| s.as_str()).collect();
            let want: Vec<&str> = want.iter().map(|s| s.as_str()).collect();
            out.push(format!("{label}: expected history {want:?}, got {got:?}"));
        }
    }
    if let Some(want) = te.attempt
        && want != task.attempt
    {
        out.push(format!(
            "{label}: expected attempt {want}, got {}",
            task.attempt
        ));
    }
    if te.text.is_some() || !te.data.is_empty() {
        let (text, data) = world.task_parts(t);
        if let Some(test) = &te.text
            && !text_holds(test, text.as_deref())
        {
            let got = text
                .as_deref()
                .map_or("no text".to_string(), |t| format!("{t:?}"));
            out.push(format!(
                "{label}: expected text {}, got {got}",
                text_test(test)
            ));
        }
        data_misses(&label, &te.data, data.as_deref(), &mut out);
    }
    out
}

fn words<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let items: Vec<&str> = items.collect();
    if items.len() == 1 {
        items[0].to_string()
    } else {
        format!("one of {}", items.join(", "))
    }
}

fn compare<T>(
    fail: &mut impl FnMut(usize, String),
    i: usize,
    what: &str,
    want: &Expected<T>,
    got: &[&str],
    name: impl Fn(&T) -> &'static str,
) {
    match want {
        Expected::Count(n) if *n != got.len() => fail(
            i,
            format!("expected {n} {what}, got {}: {got:?}", got.len()),
        ),
        Expected::List(list) => {
            let want: Vec<&str> = list.iter().map(name).collect();
            if want != got {
                fail(i, format!("expected {what} {want:?}, got {got:?}"));
            }
        }
        Expected::Count(_) => {}
    }
}
