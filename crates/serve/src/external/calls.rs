//! The real agents' calls to the scripted agents, as the pump answers them: taken in batches
//! (parallel calls in a canonical order, see [`settle`]), each tied to one of the calling
//! agent's tasks — by the trace id a2a-sim gave that task's request, else the task with
//! a2a-sim's request in flight, else none (a warning in the report) — and admitted as that
//! task's delegation.

use engine::World;
use engine::record::TaskIx;
use engine::scenario::Step;

use super::pump::{Pump, task_of_trace};
use super::settle;
use crate::failure::{Failure, FailureKind};
use crate::job::{Answer, Job, Reply, Req};

impl Pump {
    /// The requests already waiting (an agent's calls made after it answered).
    pub(super) fn drain(&mut self) {
        while let Ok(job) = self.rx.try_recv() {
            for job in self.batch(job) {
                if !matches!(job.req, Req::Agent(_)) {
                    self.answer(job);
                }
            }
        }
    }

    /// `first` and what comes with it, the agents' calls in a canonical order (see [`settle`]).
    pub(super) fn batch(&self, first: Job) -> Vec<Job> {
        let agents = &self.world.scenario.agents;
        settle::gather(&self.rx, first, self.settle, |job| match &job.req {
            Req::Step { step, agent, .. } => match &**step {
                Step::Send(s) if s.caller() >= self.first_agent_caller => Some((
                    agents[*agent].name().to_string(),
                    s.text.to_string(),
                    s.data()
                        .map(|d| {
                            crate::message::canonical(serde_json::Value::Object(d.clone()))
                                .to_string()
                        })
                        .unwrap_or_default(),
                )),
                _ => None,
            },
            _ => None,
        })
    }

    /// A request to a scripted agent: a real agent's call is attributed to one of its tasks
    /// (by the trace id a2a-sim gave that task's request, else the task with a2a-sim's request
    /// in flight) and admitted as that task's delegation.
    pub(super) fn answer(&mut self, mut job: Job) {
        if let Req::Shutdown = job.req {
            // A signal: the server stops taking requests; the steps stop here.
            self.stopping = true;
            return;
        }
        if let Req::Webhook { task, body } = &job.req {
            let answer = match self.webhook(*task, body) {
                Ok(()) => Answer::Value(serde_json::json!({})),
                Err(why) => Answer::Error(Failure::new(FailureKind::TaskNotFound, why)),
            };
            self.desk.notify(&self.world, None);
            let _ = job.reply.send(Reply {
                answer,
                delay: std::time::Duration::ZERO,
            });
            return;
        }
        let mut unattributed = None;
        if let Req::Step {
            step,
            agent: callee,
            ..
        } = &mut job.req
            && let Step::Send(s) = &mut **step
            && s.caller() >= self.first_agent_caller
        {
            if let Some(data) = s.data_mut() {
                let value =
                    crate::message::canonical(serde_json::Value::Object(std::mem::take(data)));
                if let serde_json::Value::Object(o) = value {
                    *data = o;
                }
            }
            let agent_sym = self.world.scenario.callers[s.caller()].sym;
            let agent = self
                .world
                .scenario
                .agents
                .iter()
                .position(|a| a.sym == agent_sym);
            let of_agent =
                |t: TaskIx, w: &World<'static>| (Some(w.tasks[t].agent()) == agent).then_some(t);
            let parent = job
                .trace
                .and_then(task_of_trace)
                .filter(|&t| t < self.world.tasks.len())
                .and_then(|t| of_agent(t, &self.world))
                .or_else(|| self.in_flight.and_then(|t| of_agent(t, &self.world)));
            self.world.attribute_next_send(parent);
            if parent.is_none()
                && let Some(agent) = agent
            {
                unattributed = Some((agent, *callee));
            }
        }
        let tasks = self.world.tasks.len();
        let reply = self.desk.answer(&mut self.world, job.req);
        self.world.attribute_next_send(None);
        if let Some((agent, callee)) = unattributed {
            let created = (self.world.tasks.len() > tasks).then_some(tasks);
            self.world.unattributed_call(agent, callee, created);
        }
        if let Some(reply) = reply {
            let _ = job.reply.send(reply);
        }
    }
}
