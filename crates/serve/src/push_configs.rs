//! The push configs a session set, as clients read them back (get, list) and delete them. The
//! world holds the one config a task may have; this keeps its id and the URL as the client gave it
//! (the world records URLs redacted), and answers in each version's shapes. The token is never
//! sent back.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::failure::{Failure, FailureKind};
use super::job::{Answer, PushOp, PushQuery};
use super::ownership::owns;
use engine::World;
use engine::record::{ErrorCode, TaskIx, parse_task_id, task_id};
use engine::scenario::{Step, Target};
use output::protocol::A2aVersion;

/// A task's config as its client set it.
pub struct Config {
    pub id: String,
    pub url: String,
}

#[derive(Default)]
pub struct PushConfigs {
    by_task: BTreeMap<TaskIx, Config>,
}

impl PushConfigs {
    /// Records the config a request just set on `task`; a config with no id takes the task's
    /// id (as the SDKs' stores do). Its answer.
    pub fn set(&mut self, task: TaskIx, id: &str, url: &str, v: A2aVersion) -> Value {
        let id = if id.is_empty() {
            task_id(task)
        } else {
            id.to_string()
        };
        let config = Config {
            id,
            url: url.to_string(),
        };
        let answer = shape(task, &config, v);
        self.by_task.insert(task, config);
        answer
    }

    pub fn answer(&mut self, world: &mut World, q: &PushQuery) -> Answer {
        let agent = &world.scenario.agents[q.agent];
        // Capability first, as for setting one: an agent without push reveals no task ids.
        if let Some(f) = no_push(world, q.agent) {
            return Answer::Error(f);
        }
        let Some(task) = parse_task_id(&q.task).filter(|&ix| {
            ix < world.tasks.len()
                && owns(world, q.caller, ix)
                && world.tasks[ix].agent() == q.agent
        }) else {
            return Answer::Error(Failure::new(
                FailureKind::TaskNotFound,
                format!(
                    "task_not_found: task `{}` not found on `{}`",
                    q.task,
                    agent.name()
                ),
            ));
        };
        // A config the world dropped (a newer one replaced it elsewhere) is not listed.
        let held = world.tasks[task].push().is_some();
        let config = self.by_task.get(&task).filter(|_| held);
        let named = config.filter(|c| q.id.as_deref().is_none_or(|id| id == c.id));
        match q.op {
            PushOp::List => {
                let configs: Vec<Value> = config
                    .map(|c| shape(task, c, q.version))
                    .into_iter()
                    .collect();
                Answer::Value(match q.version {
                    A2aVersion::V1_0 => json!({"configs": configs, "nextPageToken": ""}),
                    A2aVersion::V0_3 => json!(configs),
                })
            }
            // Deleting what is not there is done already (idempotent, as the official SDK
            // server answers it).
            PushOp::Delete if named.is_none() && q.id.is_some() => Answer::Value(match q.version {
                A2aVersion::V1_0 => json!({}),
                A2aVersion::V0_3 => Value::Null,
            }),
            _ if named.is_none() => Answer::Error(Failure::new(
                FailureKind::InvalidParams,
                format!(
                    "{} has no push notification config{}",
                    task_id(task),
                    q.id.as_deref()
                        .map(|id| format!(" `{id}`"))
                        .unwrap_or_default()
                ),
            )),
            PushOp::Get => Answer::Value(named.map_or(Value::Null, |c| shape(task, c, q.version))),
            PushOp::Delete => {
                world.delete_push_config(task);
                self.by_task.remove(&task);
                Answer::Value(match q.version {
                    A2aVersion::V1_0 => json!({}),
                    A2aVersion::V0_3 => Value::Null,
                })
            }
        }
    }
}

/// A send's own push config that the agent would refuse (`run` records the refusal and sends on):
/// a served client is told, and nothing is sent. Capability, then the URL's host, then the token,
/// as for setting one.
pub fn refused_on_send(world: &World, step: &Step) -> Option<Failure> {
    let Step::Send(send) = step else { return None };
    let (Some(push), Target::Agent(agent)) = (send.push(), &send.to) else {
        return None;
    };
    if let Some(f) = no_push(world, *agent) {
        return Some(f);
    }
    let (code, why) = world.check_push_target(push).err()?;
    let kind = match code {
        ErrorCode::HostNotAllowed | ErrorCode::MissingToken => FailureKind::InvalidParams,
        _ => FailureKind::Internal,
    };
    Some(Failure::new(kind, format!("{}: {why}", code.as_str())))
}

/// The refusal of an agent whose card has no push capability (checked first: such an agent
/// reveals nothing of its tasks).
fn no_push(world: &World, agent: usize) -> Option<Failure> {
    let agent = &world.scenario.agents[agent];
    (!agent.card.push_notifications).then(|| {
        Failure::new(
            FailureKind::PushNotSupported,
            format!(
                "push_not_supported: `{}` does not support push notifications",
                agent.name()
            ),
        )
    })
}

/// A config in the version's shape, without its token.
fn shape(task: TaskIx, c: &Config, v: A2aVersion) -> Value {
    match v {
        A2aVersion::V1_0 => json!({"id": c.id, "taskId": task_id(task), "url": c.url}),
        A2aVersion::V0_3 => json!({
            "taskId": task_id(task),
            "pushNotificationConfig": {"id": c.id, "url": c.url},
        }),
    }
}
