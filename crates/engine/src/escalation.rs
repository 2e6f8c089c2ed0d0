//! A paused child's answer: scripted replies from the delegating agent, or escalation to the
//! delegating task's owner, whose reply travels back down.

use std::borrow::Cow;

use crate::delegation::Spec;
use crate::ix::Ix;
use crate::lifecycle::IllegalTransition;
use crate::lifecycle::TaskState;
use crate::scenario::*;
use crate::scheduler::DelegationIx;
use crate::task::*;
use crate::world::{Next, World};

impl<'s> World<'s> {
    /// The delegating task's turn after its child paused: a scripted reply, else an escalation.
    pub(crate) fn answer_pause(&mut self, task: TaskIx, ix: DelegationIx) -> Next {
        let d = &self.record.delegations[ix];
        let Spec::Delegate(spec) = d.spec else {
            return Next::Stop;
        };
        let Some(child) = d.members.first().and_then(|m| m.task) else {
            return Next::Stop;
        };
        if d.outcome.is_some() || !self.record.tasks[child].state.is_pause() {
            return Next::Stop;
        }
        if let Some(reply) = spec.replies.get(d.replies_given) {
            self.record.delegations[ix].replies_given += 1;
            if let Err(refused) = self.reply_token(task, child) {
                self.reply_refused(task, ix, child, refused);
                return Next::Stop;
            }
            // A reply like any other: when the child took its own pause from a child of its own
            // (`escalate`), it travels down that chain too.
            let text = self.render(task, &reply.text);
            match self.render_data(task, reply.data(), reply.template()) {
                Ok(data) => self.reply_down(child, text, data),
                Err(missing) => {
                    let detail = format!(
                        "`{missing}` in the data of a scripted reply of `{}` has no value ({}): the reply was not sent",
                        self.agent_name(task),
                        task_id(task)
                    );
                    self.error(
                        crate::record::ErrorCode::TemplateMissing,
                        detail,
                        Some(task),
                    );
                    self.fail(task, format!("handler bug: `{missing}` has no value"));
                }
            }
            return Next::Stop;
        }
        // Escalate: take the child's pause, with its latest status message, and wait for the owner.
        let state = self.record.tasks[child].state;
        let message = self.latest_status_message(child);
        match self.set_status(task, state, message) {
            Ok(()) => {
                self.state.runs[task].escalated = true;
                Next::Stop
            }
            Err(IllegalTransition { from, to }) => {
                let n = self.record.delegations[ix].handler_step;
                self.record.delegations[ix].members[0].outcome = Some(Outcome::of_state(state));
                let why = format!(
                    "canceled by `{}`: the escalation was refused",
                    self.agent_name(task)
                );
                self.cancel_tree(child, Some(why));
                self.illegal_transition(task, n, from, to);
                Next::Stop
            }
        }
    }

    fn latest_status_message(&self, task: TaskIx) -> Option<Cow<'s, str>> {
        let t = &self.record.tasks[task];
        let entry = t.history.last()?;
        entry.message().map(|m| t.messages[m].text.to_cow())
    }

    /// A reply joins the task's messages (no state change, no tick) and opens a call for the
    /// resumed handler.
    fn deliver(&mut self, task: TaskIx, text: Cow<'s, str>, data: Option<Cow<'s, DataMap>>) {
        let message = self.message(Role::User, text, data);
        let t = &mut self.record.tasks[task];
        t.messages.push(message);
        self.state.runs[task].last_reply = Some(Ix::new(t.messages.len() - 1));
        self.open_call(task, false);
    }

    /// A reply to a paused task, from the driver or scripted by the delegating agent. When the
    /// task took its pause from a child (`escalate`), each escalated level moves back to
    /// `working`, top down, one tick each, and forwards the reply to its child as its own; then
    /// the handler of the task that paused by itself is queued.
    pub(crate) fn reply_down(
        &mut self,
        task: TaskIx,
        text: Cow<'s, str>,
        data: Option<Cow<'s, DataMap>>,
    ) {
        self.deliver(task, text.clone(), data.clone());
        let mut at = task;
        while std::mem::take(&mut self.state.runs[at].escalated) {
            let Some(ix) = self.state.runs[at].waiting_on.map(Ix::get) else {
                break;
            };
            let _ = self.set_status(at, TaskState::Working, None);
            let Some(child) = self.record.delegations[ix]
                .members
                .first()
                .and_then(|m| m.task)
            else {
                return;
            };
            // Forwarded as this level's own request on the child's task: verified like any other.
            if let Err(refused) = self.reply_token(at, child) {
                return self.reply_refused(at, ix, child, refused);
            }
            self.deliver(child, text.clone(), data.clone());
            at = child;
        }
        let clock = self.clock();
        self.wake(at, clock);
    }

    /// The child refused the token of a reply sent down to it: the reply is not delivered, the
    /// child is canceled and the delegation resolves as refused (`denied`, with the failed check).
    fn reply_refused(&mut self, task: TaskIx, ix: DelegationIx, child: TaskIx, refused: usize) {
        let member = &mut self.record.delegations[ix].members[0];
        member.outcome = Some(Outcome::Denied);
        member.set_refused(refused);
        let why = format!(
            "canceled by `{}`: the child refused the token of its reply",
            self.agent_name(task)
        );
        self.cancel_tree(child, Some(why));
        self.settle(ix, 0);
    }
}
