//! Tasks of a real agent (`external:` agents). The engine runs no handler for them: the edge that
//! talks to the agent reports what it answered, and these record it at the clock, one tick per
//! event, exactly as a handler's status changes and artifacts are recorded. The agent's own ids
//! and timestamps never get here; its calls to scripted agents are driver sends made on behalf of
//! one of its tasks ([`World::attribute_next_send`]).

use std::borrow::Cow;

use crate::data::DataMap;
use crate::ids::{AgentIx, TaskIx};
use crate::lifecycle::{IllegalTransition, TaskState};
use crate::record::{ErrorCode, StepResult};
use crate::task::{Artifact, DataRef, Role};
use crate::world::World;

impl<'s> World<'s> {
    /// A turn of a real agent's task: the agent works on it at the edge, so there is nothing to
    /// do — unless a scripted handler's delegation created it (a discovery that picked the real
    /// agent), which only the driver's steps can reach: that task fails, saying why.
    pub(crate) fn external_turn(&mut self, task: TaskIx) -> crate::world::Next {
        if self.state.runs[task].via.is_some() && !self.record.tasks[task].state.is_terminal() {
            let detail = format!(
                "`{}` is a real agent: a scripted handler's delegation cannot reach it (only the driver's steps do)",
                self.agent_name(task)
            );
            self.external_error(ErrorCode::ProtocolError, detail, Some(task));
        }
        crate::world::Next::Stop
    }

    /// Whether `agent` is played by a real agent.
    pub fn is_external(&self, agent: AgentIx) -> bool {
        self.record.scenario.agents[agent].external.is_some()
    }

    /// The next driver send is made for `parent`, a task of the real agent making it: admission
    /// checks that task's context (its chain plus the agent), and the new task is its child.
    pub fn attribute_next_send(&mut self, parent: Option<TaskIx>) {
        self.session.on_behalf = parent.filter(|&p| p < self.record.tasks.len());
    }

    /// A call of a real agent that could not be tied to one of its tasks (it forwarded no
    /// trace id of a2a-sim's and no request of a2a-sim's was in flight): recorded with no
    /// parent, and this warning saying so. `task` is the task the call created, if any.
    pub fn unattributed_call(&mut self, agent: AgentIx, callee: AgentIx, task: Option<TaskIx>) {
        let agents = &self.record.scenario.agents;
        let detail = format!(
            "a call of `{}` to `{}` is tied to none of its tasks (it carried no `traceparent` a2a-sim gave, and no request of a2a-sim's was in flight): recorded with no parent; forward the `traceparent` header to tie it",
            agents[agent].name(),
            agents[callee].name()
        );
        self.record.warnings.push(crate::record::Warning::new(
            self.step,
            detail.into_boxed_str(),
            task,
        ));
    }

    /// A status the real agent reported for its task, with the text and data of its message.
    pub fn external_status(
        &mut self,
        task: TaskIx,
        state: TaskState,
        text: Option<String>,
        data: Option<DataMap>,
    ) -> Result<(), IllegalTransition> {
        let messages = self.record.tasks[task].messages.len();
        let now = self.record.tasks[task].state;
        if state == now && !now.is_terminal() {
            // Another update in the same state (a second `working` with news): its message only.
            if let Some(text) = text {
                self.next_tick();
                let m = self.message(Role::Agent, Cow::Owned(text), None);
                self.record.tasks[task].messages.push(m);
            }
        } else {
            if !now.can_move_to(state)
                && now.can_move_to(TaskState::Working)
                && TaskState::Working.can_move_to(state)
            {
                // A real agent may answer done straight away (on a send, or on the reply to its
                // question): the lifecycle passes `working` on the way.
                self.set_status(task, TaskState::Working, None)?;
            }
            self.set_status(task, state, text.map(Cow::Owned))?;
        }
        if let Some(data) = data
            && self.record.tasks[task].messages.len() > messages
        {
            // The engine's data lives as long as the run; a report borrows it.
            self.record
                .message_data
                .push(crate::task::DataRef::Owned(Box::new(data)));
            let ix = crate::ix::Ix::new(self.record.message_data.len() - 1);
            self.record.tasks[task].messages[messages].data = Some(ix);
        }
        Ok(())
    }

    /// An artifact the real agent reported for its task.
    pub fn external_artifact(
        &mut self,
        task: TaskIx,
        name: Option<String>,
        text: Option<String>,
        data: Option<DataMap>,
    ) {
        self.next_tick();
        self.record.ids.artifact += 1;
        let name: Option<&'s str> = name.map(|n| &*Box::leak(n.into_boxed_str()));
        let artifact = Artifact::new(
            self.record.ids.artifact,
            name,
            text.map(Cow::Owned),
            data.map(|d| DataRef::Owned(Box::new(d))),
        );
        let t = &mut self.record.tasks[task];
        t.artifacts.push(artifact);
        let ix = t.artifacts.len() - 1;
        self.event(task, crate::record::EventKind::Artifact(ix));
    }

    /// What went wrong with the real agent (it exited, timed out or broke the protocol),
    /// recorded under the current step; its task, if any, fails so that nobody waits on it.
    pub fn external_error(&mut self, code: ErrorCode, detail: String, task: Option<TaskIx>) {
        self.error(code, detail.clone(), task);
        if let Some(t) = task
            && !self.record.tasks[t].state.is_terminal()
        {
            self.fail(t, detail);
        }
    }

    /// A webhook the real agent sent for its task, with the state it reports: recorded as a
    /// push to the task's config (and handed on to its URL, as a scripted agent's push is).
    /// `false`: the task has no push config, so the webhook is not one a2a-sim asked for.
    pub fn external_push(&mut self, task: TaskIx, state: TaskState) -> bool {
        let Some(url) = self.record.tasks[task].push().map(|p| p.url) else {
            return false;
        };
        let tick = self.next_tick();
        self.push(task, url, tick, state);
        true
    }

    /// The real agent refused the push config of the last step (`set_push_config`): the task
    /// keeps none, the step did nothing, and the error says why.
    pub fn external_push_refused(&mut self, task: TaskIx, code: ErrorCode, detail: String) {
        self.record.tasks[task].set_push(None);
        if let Some(last) = self.record.steps.last_mut() {
            last.result = StepResult::Nothing;
        }
        self.error(code, detail, None);
    }

    /// The last step, a request to a real agent, answered: its result shows the task as it is.
    pub fn external_step_answered(&mut self) {
        let Some(last) = self.record.steps.last_mut() else {
            return;
        };
        let StepResult::Task { task, state, .. } = &mut last.result else {
            return;
        };
        let task = *task;
        *state = self.record.tasks[task].state;
        if !state.is_terminal() && !state.is_pause() {
            // The agent answered before the task paused or ended (a non-blocking answer): its
            // call ends with the task as it now is.
            self.close_call(task);
        }
    }
}
