//! `explain --task`: a task's path through its compiled handler, matched against what it recorded
//! (status history, decisions, delegations, artifacts), with ticks.

use serde_json::{Value, json};

use crate::engine::World;
use crate::engine::record::{Branch, ErrorCode, Spec, TaskIx, task_id};
use crate::engine::scenario::HandlerStep;
use crate::engine::{Op, compile};
use crate::report::CondText;

pub fn explain(world: &World, ix: TaskIx) -> (Value, Vec<String>) {
    let s = world.scenario;
    let t = &world.tasks[ix];
    let agent = &s.agents[t.agent()];
    let ops = compile(&agent.handler);
    let chain: Vec<&str> = world
        .chains
        .to_vec(t.delegation_chain)
        .iter()
        .map(|&h| s.symbols.name(h))
        .collect();
    let mut text = vec![format!(
        "{} on `{}` ({}), chain [{}]{}",
        task_id(ix),
        agent.name(),
        t.state,
        chain.join(", "),
        t.parent()
            .map_or(String::new(), |p| format!(", parent {}", task_id(p)))
    )];
    let mut path = Vec::new();
    let push = |entry: Value, line: String, text: &mut Vec<String>, path: &mut Vec<Value>| {
        text.push(line);
        path.push(entry);
    };
    // History entries the script did not make itself, in place: a failure for a handler bug or a
    // failed delegation, a cancel, a pause taken on for a child, a resume by an escalated reply.
    let outside = |upto: usize, hist: &mut usize, path: &mut Vec<Value>, text: &mut Vec<String>| {
        while *hist < upto.min(t.history.len()) {
            let e = &t.history[*hist];
            *hist += 1;
            let why = e
                .message()
                .and_then(|m| t.messages.get(m))
                .map_or("", |m| m.text.as_ref());
            path.push(json!({"tick": e.tick, "event": "status", "state": e.state.as_str(), "outside_script": true, "message": why}));
            let why = if why.is_empty() {
                String::new()
            } else {
                format!(": {why}")
            };
            text.push(format!(
                "  tick {:>3}  {} (not a step of the script){why}",
                e.tick, e.state
            ));
        }
    };
    if let Some(first) = t.history.first() {
        push(
            json!({"tick": first.tick, "event": "submitted"}),
            format!("  tick {:>3}  submitted", first.tick),
            &mut text,
            &mut path,
        );
    }
    let delegations: Vec<usize> = (0..world.delegations.len())
        .filter(|&d| world.delegations[d].parent == ix)
        .collect();
    let (mut pc, mut hist, mut dec, mut del, mut art) = (0, 1, 0, 0, 0);
    let mut stopped = "the script ran to its end";
    // A task waiting in a pause, or terminal, has run no step beyond its last status entry.
    let settled = |hist: usize| {
        hist >= t.history.len()
            && t.history
                .last()
                .is_some_and(|e| e.state.is_terminal() || e.state.is_pause())
            && hist > 1
    };
    while pc < ops.len() {
        match ops[pc] {
            Op::Jump(to) => {
                pc = to;
                continue;
            }
            Op::Branch { n, when, otherwise } => {
                let Some(d) = t.decisions().get(dec).filter(|d| d.handler_step == n) else {
                    stopped = "the task never reached this `when`";
                    break;
                };
                dec += 1;
                let before = (hist..t.history.len())
                    .find(|&h| t.history[h].tick >= d.tick)
                    .unwrap_or(t.history.len());
                outside(before, &mut hist, &mut path, &mut text);
                let cond = CondText {
                    cond: &when.cond,
                    results: &agent.results,
                }
                .to_string();
                let held = d.branch == Branch::Then;
                push(
                    json!({"tick": d.tick, "handler_step": n, "event": "when", "condition": cond, "held": held, "branch": d.branch.as_str()}),
                    format!(
                        "  tick {:>3}  step {n}: when {cond} → {} → {}",
                        d.tick,
                        if held { "true" } else { "false" },
                        d.branch.as_str()
                    ),
                    &mut text,
                    &mut path,
                );
                pc = if held { pc + 1 } else { otherwise };
                continue;
            }
            Op::Step { n, step } => {
                if settled(hist) && !matches!(step, HandlerStep::Status(..)) {
                    stopped = "the task stopped before this step";
                    break;
                }
                match step {
                    HandlerStep::Status(state, _) => {
                        let Some(at) =
                            (hist..t.history.len()).find(|&h| t.history[h].state == *state)
                        else {
                            // A handler bug: the server refused the transition and failed the task.
                            let marker = format!(" at handler step {n} of {}", task_id(ix));
                            let illegal = world.errors.iter().any(|e| {
                                e.task() == Some(ix)
                                    && e.code == ErrorCode::IllegalTransition
                                    && e.detail.contains(&marker)
                            });
                            if illegal {
                                push(
                                    json!({"handler_step": n, "event": "status", "state": state.as_str(), "illegal": true}),
                                    format!(
                                        "            step {n}: {state} refused: illegal from {}",
                                        t.history.get(hist - 1).map_or("?", |e| e.state.as_str())
                                    ),
                                    &mut text,
                                    &mut path,
                                );
                                stopped = "an illegal transition failed the task";
                            } else {
                                stopped = "the task did not take this step's status";
                            }
                            break;
                        };
                        outside(at, &mut hist, &mut path, &mut text);
                        let e = &t.history[at];
                        hist = at + 1;
                        push(
                            json!({"tick": e.tick, "handler_step": n, "event": "status", "state": state.as_str()}),
                            format!("  tick {:>3}  step {n}: {state}", e.tick),
                            &mut text,
                            &mut path,
                        );
                        if state.is_terminal() {
                            stopped = "a terminal state ends the script";
                            break;
                        }
                        if state.is_pause() && hist >= t.history.len() {
                            stopped = "the task waits in this pause";
                            break;
                        }
                    }
                    HandlerStep::Message(m) => {
                        push(
                            json!({"handler_step": n, "event": "message", "text": m.as_str()}),
                            format!("            step {n}: message {:?}", m.as_str()),
                            &mut text,
                            &mut path,
                        );
                    }
                    HandlerStep::Artifact(_) => {
                        let id = t.artifacts.get(art).map(|a| format!("artifact-{}", a.id));
                        art += 1;
                        push(
                            json!({"handler_step": n, "event": "artifact", "artifact": id}),
                            format!(
                                "            step {n}: artifact {}",
                                id.as_deref().unwrap_or("(none drawn)")
                            ),
                            &mut text,
                            &mut path,
                        );
                    }
                    HandlerStep::Wait(k) => push(
                        json!({"handler_step": n, "event": "wait", "ticks": k}),
                        format!("            step {n}: wait {k}"),
                        &mut text,
                        &mut path,
                    ),
                    HandlerStep::Delegate(_) | HandlerStep::FanOut(_) => {
                        let Some(&d) = delegations
                            .get(del)
                            .filter(|&&d| world.delegations[d].handler_step == n)
                        else {
                            stopped = "the task never reached this delegation";
                            break;
                        };
                        del += 1;
                        let dl = &world.delegations[d];
                        let kind = match dl.spec {
                            Spec::Delegate(_) => "delegate",
                            Spec::FanOut(_) => "fan_out",
                        };
                        let kids: Vec<TaskIx> = (0..world.tasks.len())
                            .filter(|&c| world.created_by_delegation(c) == Some(d))
                            .collect();
                        let tick = kids
                            .first()
                            .and_then(|&c| world.tasks[c].history.first())
                            .map(|e| e.tick);
                        let children: Vec<String> = kids
                            .iter()
                            .copied()
                            .map(|c| {
                                format!(
                                    "{} on {} ({}, attempt {})",
                                    task_id(c),
                                    s.agents[world.tasks[c].agent()].name(),
                                    world.tasks[c].state,
                                    world.tasks[c].attempt
                                )
                            })
                            .collect();
                        // The attempts that made no task, each where it happened, first.
                        for r in world.refused_attempts.iter().filter(|r| r.delegation == d) {
                            let why = world.refused_why(&r.why);
                            let callee = s.agents[r.callee].name();
                            let member = match dl.spec {
                                Spec::FanOut(_) => format!(" member {}", r.member + 1),
                                Spec::Delegate(_) => String::new(),
                            };
                            push(
                                json!({"tick": r.tick, "handler_step": n, "event": "refused", "attempt": r.attempt, "member": r.member + 1, "callee": callee, "why": why}),
                                format!(
                                    "  tick {:>3}  step {n}: {kind}{member} attempt {} → {callee} refused: {why}",
                                    r.tick, r.attempt
                                ),
                                &mut text,
                                &mut path,
                            );
                        }
                        let outcome = dl.outcome.map(|o| o.as_str());
                        let on_error = match dl.on_error() {
                            crate::engine::scenario::OnError::Fail => "fail",
                            crate::engine::scenario::OnError::Continue => "continue",
                        };
                        push(
                            json!({"tick": tick, "handler_step": n, "event": kind, "children": children, "outcome": outcome, "on_error": on_error}),
                            format!(
                                "  {}  step {n}: {kind} → [{}] outcome {} (on_error: {on_error})",
                                tick.map_or("        ".to_string(), |t| format!("tick {t:>3}")),
                                children.join("; "),
                                outcome.unwrap_or("unresolved")
                            ),
                            &mut text,
                            &mut path,
                        );
                    }
                    HandlerStep::When(_) => {}
                }
            }
        }
        pc += 1;
    }
    // What the script did not do itself, after its last step.
    outside(t.history.len(), &mut hist, &mut path, &mut text);
    let errors: Vec<Value> = world
        .errors
        .iter()
        .filter(|e| e.task() == Some(ix))
        .map(|e| json!({"step": e.step(), "code": e.code.as_str(), "detail": e.detail}))
        .collect();
    for e in world.errors.iter().filter(|e| e.task() == Some(ix)) {
        text.push(format!("  error {}: {}", e.code.as_str(), e.detail));
    }
    text.push(format!("  end: {stopped}; final state {}", t.state));
    let doc = json!({
        "task": task_id(ix),
        "agent": agent.name(),
        "state": t.state.as_str(),
        "delegation_chain": chain,
        "parent": t.parent().map(task_id),
        "path": path,
        "errors": errors,
        "end": stopped,
    });
    (doc, text)
}
