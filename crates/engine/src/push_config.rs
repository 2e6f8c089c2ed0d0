//! Push configs: the four refusals in their order, and the one config a task may hold.

use crate::push::{check_push_url_host, loopback_push_url};
use crate::record::*;
use crate::scenario::*;
use crate::task::*;
use crate::world::World;

impl<'s> World<'s> {
    pub(crate) fn driver_set_push_config(
        &mut self,
        caller: CallerIx,
        task: &TaskRef,
        agent: Option<AgentIx>,
        push: &'s PushSpec,
    ) -> StepResult {
        let visible = self.lookup_task(caller, task);
        // With no agent named, the agent asked is the one holding the task as the caller sees it.
        let Some(agent) = agent.or_else(|| visible.map(|t| self.record.tasks[t].agent())) else {
            self.report_not_found(task);
            return StepResult::Nothing;
        };
        if !self.set_push_config_checked(agent, visible, Some(task), push, Some(caller)) {
            return StepResult::Nothing;
        }
        let ix = visible.unwrap_or_default();
        StepResult::Task {
            task: ix,
            state: self.record.tasks[ix].state,
            stream: None,
        }
    }

    /// A send's own push config: part of the send, judged with it.
    pub(crate) fn set_push_config(
        &mut self,
        agent: AgentIx,
        visible: Option<TaskIx>,
        named: Option<&TaskRef>,
        push: &'s PushSpec,
    ) -> bool {
        self.set_push_config_checked(agent, visible, named, push, None)
    }

    /// The last two refusals, of the config itself: its URL's host (the allow-list, or a loopback
    /// host when the session admits them), then its token. The URL as recorded and its host.
    pub fn check_push_target(
        &self,
        push: &PushSpec,
    ) -> Result<(String, String), (ErrorCode, String)> {
        let loopback = self
            .scenario
            .policy
            .loopback_push
            .then(|| loopback_push_url(&push.url))
            .flatten();
        let found = loopback
            .map_or_else(
                || check_push_url_host(&push.url, &self.record.scenario.policy.push_allowed_hosts),
                Ok,
            )
            .map_err(|why| (ErrorCode::HostNotAllowed, why))?;
        if push.token.is_empty() && push.token_required {
            let why = "a push config needs a non-empty token".to_string();
            return Err((ErrorCode::MissingToken, why));
        }
        Ok(found)
    }

    /// The refusals, in order, first failure wins: capability first, so an agent without push
    /// never reveals whether a task id exists; an unavailable agent (a driver request, `caller`)
    /// after the task is found, so a fault never reveals that a task exists.
    fn set_push_config_checked(
        &mut self,
        agent: AgentIx,
        visible: Option<TaskIx>,
        named: Option<&TaskRef>,
        push: &'s PushSpec,
        caller: Option<CallerIx>,
    ) -> bool {
        let card = &self.record.scenario.agents[agent];
        // A real agent answers for itself: the config goes on to it (see `external_push`).
        if !card.card.push_notifications && card.external.is_none() {
            let detail = format!("`{}` does not support push notifications", card.name());
            self.error(ErrorCode::PushNotSupported, detail, None);
            return false;
        }
        let Some(task) = visible.filter(|&t| self.record.tasks[t].agent() == agent) else {
            let detail = match named {
                Some(TaskRef::Alias(a)) if self.alias_task(*a).is_none() => self.no_task(*a),
                Some(TaskRef::Alias(a)) => format!(
                    "task `{}` not found on `{}`",
                    task_id(self.alias_task(*a).unwrap_or_default()),
                    card.name()
                ),
                Some(TaskRef::Id(id)) => format!("task `{id}` not found on `{}`", card.name()),
                None => format!("the task is not on `{}`", card.name()),
            };
            self.error(ErrorCode::TaskNotFound, detail, None);
            return false;
        };
        if let Some(c) = caller
            && self.is_unavailable(agent)
        {
            self.unavailable(self.record.scenario.callers[c].sym, agent);
            return false;
        }
        let (url, host) = match self.check_push_target(push) {
            Ok(found) => found,
            Err((code, why)) => {
                self.error(code, why, Some(task));
                return false;
            }
        };
        self.record.push_urls.push(url);
        self.record.push_hosts.push(host);
        // At most one config per task: a new one replaces the old. On a terminal task it is
        // accepted and never fires, since nothing changes state any more.
        self.record.tasks[task].set_push(Some(PushConfig {
            url: self.record.push_urls.len() - 1,
            token: push.token.clone(),
        }));
        true
    }
}
