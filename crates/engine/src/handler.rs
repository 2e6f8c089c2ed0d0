//! One turn of a task's scripted handler: at most one step that does something, after any
//! decisions (`when`) and the consequence of a delegation that resolved.

use std::borrow::Cow;

use crate::conditions::{self, Facts, Subject};
use crate::delegation::Pending;
use crate::ix::ix32;
use crate::lifecycle::IllegalTransition;
use crate::parts::Parts;
use crate::program::Op;
use crate::record::*;
use crate::scenario::*;
use crate::task::*;
use crate::world::{Next, World};

impl<'s> World<'s> {
    /// Runs one turn of `task`.
    pub(crate) fn turn(&mut self, task: TaskIx) -> Next {
        let agent = self.record.tasks[task].agent();
        if self.record.scenario.agents[agent].external.is_some() {
            return self.external_turn(task);
        }
        if self.record.tasks[task].state.is_terminal() {
            return Next::Stop;
        }
        match self.state.runs[task].take_pending() {
            Pending::None => {}
            Pending::Outcome(d) => {
                // A failure is this turn's status change; otherwise the next step runs in it.
                if let Some(next) = self.take_outcome(task, d as usize) {
                    return next;
                }
            }
            Pending::Retry(d) => return self.attempt(task, d as usize),
            Pending::ChildPaused(d) => return self.answer_pause(task, d as usize),
        }
        if self.state.runs[task].waiting_on.is_some() {
            return Next::Stop;
        }
        self.step(task)
    }

    /// Runs the task's next step; decisions before it take no turn of their own.
    fn step(&mut self, task: TaskIx) -> Next {
        let agent = self.record.tasks[task].agent();
        loop {
            let pc = self.state.runs[task].pc as usize;
            let Some(op) = self.state.programs[agent].get(pc).copied() else {
                return self.script_ran_out(task);
            };
            match op {
                Op::Jump(to) => self.state.runs[task].pc = ix32(to),
                Op::Branch { n, when, otherwise } => {
                    let taken = conditions::holds(&when.cond, &mut |s| self.facts(task, s));
                    let branch = if taken { Branch::Then } else { Branch::Else };
                    self.state.runs[task].pc = ix32(if taken { pc + 1 } else { otherwise });
                    let tick = self.clock();
                    self.record.tasks[task].decisions_mut().push(Decision {
                        handler_step: n,
                        branch,
                        tick,
                    });
                }
                Op::Step { n, step } => {
                    self.state.runs[task].pc = ix32(pc + 1);
                    return self.run_step_of(task, n, step);
                }
            }
        }
    }

    fn run_step_of(&mut self, task: TaskIx, n: usize, step: &'s HandlerStep) -> Next {
        match step {
            HandlerStep::Status(state, text) => {
                let message = text.as_ref().map(|t| self.render(task, t));
                match self.set_status(task, *state, message) {
                    Ok(()) if state.is_terminal() || state.is_pause() => Next::Stop,
                    Ok(()) => Next::Again,
                    Err(IllegalTransition { from, to }) => {
                        self.illegal_transition(task, n, from, to);
                        Next::Stop
                    }
                }
            }
            HandlerStep::Message(text) => {
                let text = self.render(task, text);
                let message = self.message(Role::Agent, text, None);
                let t = &mut self.record.tasks[task];
                t.messages.push(message);
                let ix = t.messages.len() - 1;
                self.event(task, EventKind::Message(ix));
                Next::Again
            }
            HandlerStep::Artifact(spec) if spec.from.is_empty() => {
                let data =
                    match self.render_data(task, spec.data.as_ref(), spec.data_template.as_ref()) {
                        Ok(data) => data,
                        Err(missing) => return self.template_missing(task, n, &missing),
                    };
                self.record.ids.artifact += 1;
                let text = spec.text.as_ref().map(|t| self.render(task, t));
                let artifact = Artifact::new(
                    self.record.ids.artifact,
                    spec.name.as_deref(),
                    text,
                    data.map(DataRef::from),
                );
                self.add_artifact(task, artifact);
                Next::Again
            }
            HandlerStep::Artifact(spec) => {
                let (text, data) = self.merged_results(task, &spec.from);
                // An empty merge takes the turn and draws no artifact id.
                if text.is_some() || data.is_some() {
                    self.record.ids.artifact += 1;
                    let artifact = Artifact::new(
                        self.record.ids.artifact,
                        spec.name.as_deref(),
                        text,
                        data.map(DataRef::from),
                    );
                    self.add_artifact(task, artifact);
                }
                Next::Again
            }
            HandlerStep::Wait(ticks) => Next::At(self.clock().saturating_add(*ticks)),
            HandlerStep::Delegate(d) => self.delegate(task, n, d),
            HandlerStep::FanOut(f) => self.fan_out(task, n, f),
            // Compiled into branches; never a step of its own.
            HandlerStep::When(_) => Next::Again,
        }
    }

    fn add_artifact(&mut self, task: TaskIx, artifact: Artifact<'s>) {
        let t = &mut self.record.tasks[task];
        t.artifacts.push(artifact);
        let ix = t.artifacts.len() - 1;
        self.event(task, EventKind::Artifact(ix));
    }

    /// A reference of a data template without a value: the error `template_missing`, and the task
    /// fails (its handler cannot go on as written).
    fn template_missing(&mut self, task: TaskIx, n: usize, missing: &str) -> Next {
        let detail = format!(
            "`{missing}` in the data of handler step {n} of `{}` has no value ({})",
            self.agent_name(task),
            task_id(task),
        );
        self.error(ErrorCode::TemplateMissing, detail, Some(task));
        self.fail(
            task,
            format!("handler bug: `{missing}` has no value (handler step {n})"),
        );
        Next::Stop
    }

    /// The script is over: a task not paused or terminal is a handler bug, failed so that nobody
    /// waits on it forever.
    fn script_ran_out(&mut self, task: TaskIx) -> Next {
        let state = self.record.tasks[task].state;
        let detail = format!(
            "the handler of `{}` ran out of steps with {} in {state}; a script must end in a terminal state or pause",
            self.agent_name(task),
            task_id(task),
        );
        self.error(ErrorCode::HandlerIncomplete, detail, Some(task));
        self.fail(
            task,
            "handler bug: the script ended without a terminal state".into(),
        );
        Next::Stop
    }

    pub(crate) fn illegal_transition(
        &mut self,
        task: TaskIx,
        n: usize,
        from: crate::lifecycle::TaskState,
        to: crate::lifecycle::TaskState,
    ) {
        let detail = format!(
            "the handler of `{}` asked for {from} -> {to} at handler step {n} of {}",
            self.agent_name(task),
            task_id(task)
        );
        self.error(ErrorCode::IllegalTransition, detail, Some(task));
        let why = format!("handler bug: illegal transition {from} -> {to} (handler step {n})");
        self.fail(task, why);
    }

    /// What a condition sees of one subject, for this task.
    /// A handler text of `task` as it reads now: plain text as written, a template with each
    /// reference filled in (a result as `artifact: {from}` merges it).
    pub(crate) fn render(&self, task: TaskIx, text: &'s Text) -> Cow<'s, str> {
        if text.parts().is_empty() {
            return Cow::Borrowed(text.as_str());
        }
        let rendered = text.render(|s| match s {
            Subject::Result(r) => self.merged_results(task, &[r]),
            _ => {
                let f = self.facts(task, s);
                (f.text, f.data)
            }
        });
        Cow::Owned(rendered.into_owned())
    }

    /// Data as written, or with its templates filled in from what `task` knows; the first
    /// reference without a value, as written, when one has none.
    pub(crate) fn render_data(
        &self,
        task: TaskIx,
        data: Option<&'s DataMap>,
        template: Option<&'s crate::template::DataTemplate>,
    ) -> Result<Option<Cow<'s, DataMap>>, String> {
        let (Some(data), Some(template)) = (data, template) else {
            return Ok(data.map(Cow::Borrowed));
        };
        template
            .render(data, |s| match s {
                Subject::Result(r) => self.merged_results(task, &[r]),
                _ => {
                    let f = self.facts(task, s);
                    (
                        f.text.map(|t| Cow::Owned(t.into_owned())),
                        f.data.map(|d| Cow::Owned(d.into_owned())),
                    )
                }
            })
            .map(|d| Some(Cow::Owned(d)))
    }

    fn facts(&self, task: TaskIx, subject: Subject) -> Facts<'_> {
        let t = &self.record.tasks[task];
        let message = |ix: usize| {
            let m = &t.messages[ix];
            Facts {
                text: Some(Cow::Borrowed(m.text.as_ref())),
                data: self.message_data(m).map(Cow::Borrowed),
                ..Facts::default()
            }
        };
        match subject {
            Subject::Input => message(0),
            Subject::Reply => self.state.runs[task]
                .last_reply
                .map(|i| message(i.get()))
                .unwrap_or_default(),
            Subject::Result(r) => match self.result_of(task, r) {
                Some(d) => self.delegation_facts(d),
                None => Facts::default(),
            },
            Subject::Member(r, m) => match self.result_of(task, r) {
                Some(d) => self.member_facts(d, m as usize),
                None => Facts::default(),
            },
        }
    }

    /// The parts of the named results, in order: a delegation's last attempt, a group's completed
    /// members in creation order.
    fn merged_results(
        &self,
        task: TaskIx,
        from: &[ResultIx],
    ) -> (Option<Cow<'s, str>>, Option<Cow<'s, DataMap>>) {
        let mut parts = Parts::default();
        for &r in from {
            let Some(d) = self.result_of(task, r) else {
                continue;
            };
            for child in d.result_tasks() {
                parts.add_task(&self.record.tasks[child]);
            }
        }
        parts.finish()
    }
}
