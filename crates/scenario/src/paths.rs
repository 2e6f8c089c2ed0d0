//! `check`'s walk of every path through each handler (behaviour.md §7): both branches of every
//! `when`, any outcome of every delegation and fan-out. It keeps, per program point, the small
//! set of states the task may be in, and warns where the lifecycle table ([`TRANSITIONS`]) forbids
//! a step on some path, where an escalation would be illegal, and where a script can end without
//! a terminal state or a pause. Warnings are not errors: a scenario may test handler bugs.
//!
//! [`TRANSITIONS`]: engine::record::TRANSITIONS

use crate::problem::Problem;
use crate::yaml::Seg;
use engine::record::TaskState;
use engine::scenario::Part;
use engine::scenario::Subject;
use engine::scenario::{
    Agent, AgentIx, FanTargets, HandlerStep, OnError, OnPause, Scenario, Step, Target, Text,
};

/// A state the task may be in, with the first path found to it (the choices made on the way).
type States = Vec<(TaskState, Vec<String>)>;

/// The warnings of every agent's handler, by path into the file.
pub fn warnings(scenario: &Scenario) -> Vec<Problem> {
    let mut out = Vec::new();
    let named = named_targets(scenario);
    for (i, agent) in scenario.agents.iter().enumerate() {
        // An agent without a script that nothing names is only there to be discovered (or
        // not): its empty handler is no bug worth a warning.
        if agent.handler.is_empty() && !named.contains(&i) || agent.external.is_some() {
            // A real agent (`external`) has no script: the agent itself decides.
            continue;
        }
        let at = vec![Seg::from("agents"), Seg::Index(i), Seg::from("handler")];
        let mut walk = Walk {
            out: &mut out,
            step: 0,
        };
        let end = walk.steps(
            &at,
            &agent.handler,
            vec![(TaskState::Submitted, Vec::new())],
        );
        let mut defined = vec![false; agent.results.len()];
        let mut n = 0;
        template_results(&at, &agent.handler, &mut defined, &mut n, agent, &mut out);
        let open: Vec<&(TaskState, Vec<String>)> = end
            .iter()
            .filter(|(s, _)| !s.is_terminal() && !s.is_pause())
            .collect();
        if open.is_empty() {
            continue;
        }
        let states = open
            .iter()
            .map(|(s, _)| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(" or ");
        let path = match agent.handler.len() {
            0 => vec![Seg::from("agents"), Seg::Index(i)],
            n => [at, vec![Seg::Index(n - 1)]].concat(),
        };
        out.push(Problem {
            path,
            message: format!(
                "the handler of `{}` can end in {states}{} without a terminal state or a pause: the task would fail with `handler_incomplete`",
                agent.name(),
                on_path(&open[0].1),
            ),
        });
    }
    out
}

/// The agents some step or handler names as a target (`to: NAME`).
fn named_targets(scenario: &Scenario) -> Vec<AgentIx> {
    fn handler(steps: &[HandlerStep], out: &mut Vec<AgentIx>) {
        for step in steps {
            match step {
                HandlerStep::Delegate(d) => target(&d.to, out),
                HandlerStep::FanOut(f) => {
                    if let FanTargets::List(list) = &f.to {
                        list.iter().for_each(|t| target(t, out));
                    }
                }
                HandlerStep::When(w) => {
                    handler(&w.then, out);
                    handler(&w.otherwise, out);
                }
                _ => {}
            }
        }
    }
    fn target(t: &Target, out: &mut Vec<AgentIx>) {
        if let Target::Agent(a) = t {
            out.push(*a);
        }
    }
    let mut out = Vec::new();
    for step in &scenario.steps {
        if let Step::Send(s) = step {
            target(&s.to, &mut out);
        }
    }
    for agent in &scenario.agents {
        handler(&agent.handler, &mut out);
    }
    out
}

struct Walk<'o> {
    out: &'o mut Vec<Problem>,
    /// The handler step last seen, counted 1-based in pre-order like the engine's messages.
    step: usize,
}

impl Walk<'_> {
    fn steps(&mut self, at: &[Seg], steps: &[HandlerStep], mut states: States) -> States {
        for (j, step) in steps.iter().enumerate() {
            // Unreachable steps are walked too, so the numbering after them stays right.
            self.step += 1;
            let n = self.step;
            let here = [at, &[Seg::Index(j)]].concat();
            states = match step {
                HandlerStep::Status(to, _) => self.status(here, n, *to, states),
                HandlerStep::Message(_) | HandlerStep::Artifact(_) | HandlerStep::Wait(_) => states,
                HandlerStep::Delegate(d) => {
                    let resumed = match d.on_pause {
                        OnPause::Cancel => Vec::new(),
                        OnPause::Escalate => self.escalate(&here, n, &states),
                    };
                    self.failure(&here, n, d.on_error, &states);
                    merge(states, resumed)
                }
                HandlerStep::FanOut(f) => {
                    self.failure(&here, n, f.on_error, &states);
                    states
                }
                HandlerStep::When(w) => {
                    let branch = |name: &str| {
                        states
                            .iter()
                            .map(|(s, trail)| {
                                let mut t = trail.clone();
                                t.push(format!("the `{name}` branch of step {n}"));
                                (*s, t)
                            })
                            .collect()
                    };
                    let then = self.steps(
                        &[&here[..], &[Seg::from("then")]].concat(),
                        &w.then,
                        branch("then"),
                    );
                    let otherwise = self.steps(
                        &[&here[..], &[Seg::from("else")]].concat(),
                        &w.otherwise,
                        branch("else"),
                    );
                    merge(then, otherwise)
                }
            };
        }
        states
    }

    /// A status step: legal from some states (the task moves on), forbidden from others (the
    /// task would fail there, ending that path).
    fn status(&mut self, at: Vec<Seg>, n: usize, to: TaskState, states: States) -> States {
        let (legal, forbidden): (States, States) = states
            .into_iter()
            .partition(|(from, _)| from.can_move_to(to));
        if let Some((_, trail)) = forbidden.first() {
            self.out.push(Problem {
                path: at,
                message: format!(
                    "handler step {n} moves the task from {} to `{to}`{}, which the lifecycle table forbids: the task would fail with `illegal_transition`",
                    list(&forbidden),
                    on_path(trail),
                ),
            });
        }
        match legal.into_iter().next() {
            // A terminal state ends the script; a pause resumes, after a reply, from that state.
            Some((_, trail)) if !to.is_terminal() => vec![(to, trail)],
            _ => Vec::new(),
        }
    }

    /// `on_pause: escalate`: the task takes its child's pause itself, and a reply moves it back to
    /// `working`. The states it comes back in.
    fn escalate(&mut self, at: &[Seg], n: usize, states: &States) -> States {
        let mut resumed = Vec::new();
        let mut forbidden = Vec::new();
        for pause in [TaskState::InputRequired, TaskState::AuthRequired] {
            for (from, trail) in states {
                if !from.can_move_to(pause) {
                    forbidden.push((*from, pause, trail));
                } else if pause.can_move_to(TaskState::Working) {
                    let mut t = trail.clone();
                    t.push(format!("an escalated `{pause}` at step {n}"));
                    resumed = merge(resumed, vec![(TaskState::Working, t)]);
                }
            }
        }
        if let Some((from, pause, trail)) = forbidden.first() {
            self.out.push(Problem {
                path: [at, &[Seg::from("delegate"), Seg::from("on_pause")]].concat(),
                message: format!(
                    "handler step {n} escalates a child's pause, but a task in `{from}`{} may not move to `{pause}`: the child would be canceled and the task fail with `illegal_transition`",
                    on_path(trail),
                ),
            });
        }
        resumed
    }

    /// `on_error: fail`: a delegation that does not succeed fails the task (ending that path);
    /// the table allows it from every non-terminal state, but it is the table that says so.
    fn failure(&mut self, at: &[Seg], n: usize, on_error: OnError, states: &States) {
        if on_error == OnError::Continue {
            return;
        }
        let forbidden: States = states
            .iter()
            .filter(|(from, _)| !from.can_move_to(TaskState::Failed))
            .cloned()
            .collect();
        if let Some((_, trail)) = forbidden.first() {
            self.out.push(Problem {
                path: at.to_vec(),
                message: format!(
                    "handler step {n} fails the task when its delegation does not succeed, but the lifecycle table forbids {} to `failed`{}",
                    list(&forbidden),
                    on_path(trail),
                ),
            });
        }
    }
}

/// Warns where a template renders a `result` whose step may not have run on some path to it
/// (defined in one branch of a `when`, used after it or in the other): there it renders empty.
/// The templated strings of a step's `data` (under `key`), each at its place in the mapping.
fn data_slots<'a>(
    key: &[Seg],
    template: Option<&'a engine::scenario::DataTemplate>,
    texts: &mut Vec<(Vec<Seg>, &'a Text)>,
) {
    for (path, text) in template.iter().flat_map(|t| t.slots.iter()) {
        let mut p = [key, &[Seg::from("data")]].concat();
        p.extend(path.iter().map(|s| Seg::from(s.as_str())));
        texts.push((p, text));
    }
}

fn template_results(
    at: &[Seg],
    steps: &[HandlerStep],
    defined: &mut [bool],
    n: &mut usize,
    agent: &Agent,
    out: &mut Vec<Problem>,
) {
    for (j, step) in steps.iter().enumerate() {
        *n += 1;
        let here = [at, &[Seg::Index(j)]].concat();
        let mut texts: Vec<(Vec<Seg>, &Text)> = Vec::new();
        // Data templates: each templated string, at its place in the `data` mapping.
        match step {
            HandlerStep::Artifact(a) => data_slots(
                &[&here[..], &[Seg::from("artifact")]].concat(),
                a.data_template.as_ref(),
                &mut texts,
            ),
            HandlerStep::Delegate(d) => data_slots(
                &[&here[..], &[Seg::from("delegate")]].concat(),
                d.message.template(),
                &mut texts,
            ),
            HandlerStep::FanOut(f) => data_slots(
                &[&here[..], &[Seg::from("fan_out")]].concat(),
                f.message.template(),
                &mut texts,
            ),
            _ => {}
        }
        match step {
            HandlerStep::Status(_, Some(t)) => texts.push((here.clone(), t)),
            HandlerStep::Message(t) => {
                texts.push(([&here[..], &[Seg::from("message")]].concat(), t))
            }
            HandlerStep::Artifact(a) => {
                if let Some(t) = &a.text {
                    texts.push((
                        [&here[..], &[Seg::from("artifact"), Seg::from("text")]].concat(),
                        t,
                    ));
                }
            }
            HandlerStep::Delegate(d) => {
                let key = [&here[..], &[Seg::from("delegate")]].concat();
                texts.push(([&key[..], &[Seg::from("text")]].concat(), &d.message.text));
                for (k, r) in d.replies.iter().enumerate() {
                    let p = [
                        &key[..],
                        &[Seg::from("replies"), Seg::Index(k), Seg::from("text")],
                    ];
                    texts.push((p.concat(), &r.text));
                }
            }
            HandlerStep::FanOut(f) => texts.push((
                [&here[..], &[Seg::from("fan_out"), Seg::from("text")]].concat(),
                &f.message.text,
            )),
            _ => {}
        }
        for (path, text) in texts {
            let mut warned = Vec::new();
            for part in text.parts() {
                if let Part::Ref(Subject::Result(r), _) = part
                    && !defined.get(*r).copied().unwrap_or(true)
                    && !warned.contains(r)
                {
                    warned.push(*r);
                    let name = agent.results.get(*r).map_or("?", String::as_str);
                    out.push(Problem {
                        path: path.clone(),
                        message: if path.iter().any(|s| *s == Seg::from("data")) {
                            format!(
                                "handler step {n} puts `result.{name}` in its data, but the step that defines `{name}` does not run on every path to it (a `when` branch): there the run fails with `template_missing`"
                            )
                        } else {
                            format!(
                                "handler step {n} renders `result.{name}`, but the step that defines `{name}` does not run on every path to it (a `when` branch): there the reference renders as empty"
                            )
                        },
                    });
                }
            }
        }
        match step {
            HandlerStep::Delegate(d) => mark(defined, d.result),
            HandlerStep::FanOut(f) => mark(defined, f.result),
            HandlerStep::When(w) => {
                let mut then = defined.to_vec();
                template_results(
                    &[&here[..], &[Seg::from("then")]].concat(),
                    &w.then,
                    &mut then,
                    n,
                    agent,
                    out,
                );
                let mut otherwise = defined.to_vec();
                template_results(
                    &[&here[..], &[Seg::from("else")]].concat(),
                    &w.otherwise,
                    &mut otherwise,
                    n,
                    agent,
                    out,
                );
                for (d, (t, e)) in defined.iter_mut().zip(then.into_iter().zip(otherwise)) {
                    *d = t && e;
                }
            }
            _ => {}
        }
    }
}

fn mark(defined: &mut [bool], result: Option<usize>) {
    if let Some(r) = result
        && let Some(d) = defined.get_mut(r)
    {
        *d = true;
    }
}

/// The union of two state sets; each state keeps the first path found to it.
fn merge(mut a: States, b: States) -> States {
    for (s, trail) in b {
        if !a.iter().any(|(t, _)| *t == s) {
            a.push((s, trail));
        }
    }
    a
}

fn list(states: &States) -> String {
    states
        .iter()
        .map(|(s, _)| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(" or ")
}

fn on_path(trail: &[String]) -> String {
    if trail.is_empty() {
        String::new()
    } else {
        format!(" (on the path through {})", trail.join(", "))
    }
}
