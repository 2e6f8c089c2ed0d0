//! Push configs on a real agent's tasks: the config a driver step sets goes on to the agent
//! with a2a-sim's own webhook URL for the task (`BASE/webhooks/TASK`), and each webhook the agent
//! sends there is recorded as one of the task's pushes (and handed on to the config's URL, as a
//! scripted agent's push is). The agent answers for its capability: a refusal is the step's
//! error.

use engine::record::{ErrorCode, TaskIx};
use serde_json::Value;

use super::pump::Pump;
use super::wire;

impl Pump {
    /// Passes the push config of the step just run on to the agent of `task`.
    pub(super) fn set_push(&mut self, task: TaskIx, token: &str) {
        let agent = self.world.tasks[task].agent();
        let name = self.world.scenario.agents[agent].name();
        let (Some(l), Some(base)) = (
            self.live_of(agent),
            self.starter.as_ref().map(|s| s.base.clone()),
        ) else {
            return;
        };
        let Some(their_id) = self.theirs.get(&task).and_then(|t| t.task_id.clone()) else {
            let detail = format!("agent `{name}` gave the task no id to set a push config on");
            self.world
                .external_push_refused(task, ErrorCode::ProtocolError, detail);
            return;
        };
        self.rpc_id += 1;
        let endpoint = self.live[l].endpoint.clone();
        let url = format!("{base}/webhooks/{task}");
        let body = wire::push_config_request(&endpoint, self.rpc_id, &their_id, &url, token);
        let refused = match self.exchange(task, &endpoint, body) {
            Err(why) => Some((ErrorCode::ProtocolError, format!("agent `{name}`: {why}"))),
            Ok(answer) => {
                let v = serde_json::from_slice::<Value>(&answer.body).unwrap_or_default();
                match wire::rpc_error(&v) {
                    _ if v.get("result").is_some() => None,
                    Some((code, message)) => {
                        // -32003: A2A's PushNotificationNotSupportedError.
                        let kind = match code {
                            -32003 => ErrorCode::PushNotSupported,
                            _ => ErrorCode::ProtocolError,
                        };
                        let detail =
                            format!("agent `{name}` refused the push config: {code} {message}");
                        Some((kind, detail))
                    }
                    None => Some((
                        ErrorCode::ProtocolError,
                        format!(
                            "agent `{name}` answered the push config with no JSON-RPC result or error (HTTP {})",
                            answer.status
                        ),
                    )),
                }
            }
        };
        if let Some((code, detail)) = refused {
            self.world.external_push_refused(task, code, detail);
        }
    }

    /// A webhook the agent sent to `BASE/webhooks/TASK`: recorded as a push of that task when
    /// it is a real agent's task with a push config and the body says a state. `Err`: why not.
    pub(super) fn webhook(&mut self, task: TaskIx, body: &Value) -> Result<(), String> {
        if task >= self.world.tasks.len() || !self.world.is_external(self.world.tasks[task].agent())
        {
            return Err(format!(
                "no real agent's task has the webhook URL of task {task}"
            ));
        }
        let state = wire::pushed_state(body)
            .and_then(wire::state_of)
            .ok_or("a webhook's body is a task or a status update with a state")?;
        match self.world.external_push(task, state) {
            true => Ok(()),
            false => Err("the task has no push config".into()),
        }
    }
}
