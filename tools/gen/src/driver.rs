//! Driver steps, written one by one.

use std::fmt::{self, Write as _};

use crate::rng::Rng;
use crate::vocab::{ALLOWED_PUSH_URLS, REFUSED_PUSH_URLS, TAGS, VERBS};
use crate::world::{Caller, World, push_unique, tags_near};
use crate::yaml::{DataMap, DataValue, Q, QList};

/// What the generator knows about an alias it defined.
pub struct AliasInfo {
    pub caller: usize,
    /// The agent the send went to (after discovery), if any.
    pub agent: Option<usize>,
    /// The send created a task that is paused and not yet replied to or canceled.
    pub pending: bool,
}

/// How a task step names its task.
pub enum TaskRef {
    Alias(usize),
    Id(usize),
}

/// Writes driver steps one by one, tracking enough of the run to make them meaningful: which
/// aliases exist, who owns them, and which tasks wait for a reply.
pub struct Driver<'w> {
    pub world: &'w World,
    pub rng: Rng,
    /// Alias `t{k + 1}` is `aliases[k]`.
    pub aliases: Vec<AliasInfo>,
    /// Candidates for `reply`; entries no longer pending are dropped lazily.
    pub pending: Vec<usize>,
    /// Task ids the run has probably drawn so far (admitted sends and their nested tasks).
    pub tasks: usize,
}

impl Driver<'_> {
    pub fn step(&mut self, out: &mut String, step: usize) -> fmt::Result {
        // send, stream, discover, reply, set_push_config, get, cancel
        match self.rng.weighted(&[40, 15, 9, 12, 8, 9, 7]) {
            0 => self.send(out, "send", step),
            1 => self.send(out, "stream", step),
            2 => self.discover(out),
            3 => match self.take_pending() {
                Some(k) => self.reply(out, k, step),
                None => self.send(out, "send", step),
            },
            4 => self.set_push_config(out),
            5 => self.task_step(out, "get"),
            _ => self.task_step(out, "cancel"),
        }
    }

    fn alias(k: usize) -> String {
        format!("t{}", k + 1)
    }

    /// 1–2 tags a caller would search for: usually ones an agent of its tenant has.
    fn search_tags(&mut self, caller: usize, max: usize) -> Vec<&'static str> {
        let tenant = self.world.callers[caller].tenant;
        if self.rng.percent(70) {
            let agent = self.rng.choose(&self.world.tenant_agents[tenant]);
            let skill = self.rng.pick(&self.world.agents[agent].skills);
            let n = 1 + self.rng.below(max.min(skill.tags.len()));
            let mut tags = Vec::with_capacity(n);
            while tags.len() < n {
                push_unique(&mut tags, self.rng.choose(&skill.tags));
            }
            tags
        } else {
            let home = self.rng.below(TAGS.len());
            tags_near(&mut self.rng, home, max)
        }
    }

    fn send(&mut self, out: &mut String, op: &str, step: usize) -> fmt::Result {
        let world = self.world;
        let c = self.rng.below(world.callers.len());
        let caller = &world.callers[c];
        write!(out, "  - {op}: {{caller: {}, to: ", Q(&caller.id))?;
        let roll = self.rng.below(100);
        let target = if roll < 15 {
            let tags = self.search_tags(c, 2);
            write!(out, "{{discover: {}}}", QList(&tags))?;
            world.discover_top(c, &tags)
        } else {
            let tenant = if roll < 25 && world.tenant_agents.len() > 1 {
                // Another tenant's agent: a realistic `tenant` denial.
                let others = world.tenant_agents.len() - 1;
                (caller.tenant + 1 + self.rng.below(others)) % world.tenant_agents.len()
            } else {
                caller.tenant
            };
            let a = self.rng.choose(&world.tenant_agents[tenant]);
            write!(out, "{}", Q(&world.agents[a].name))?;
            Some(a)
        };
        let topic = match target {
            Some(a) => self.rng.pick(&world.agents[a].skills).tags[0],
            None => self.rng.choose(&TAGS),
        };
        let text = format!("Request {step}: please {} {topic}", self.rng.pick(&VERBS));
        write!(out, ", text: {}", Q(&text))?;
        if self.rng.percent(10) {
            let data = DataMap(vec![
                ("amount", DataValue::Int(1 + self.rng.below(100_000) as u64)),
                (
                    "currency",
                    DataValue::Str(self.rng.choose(&["EUR", "USD"]).into()),
                ),
                ("urgent", DataValue::Bool(self.rng.percent(30))),
            ]);
            write!(out, ", data: {data}")?;
        }
        let alias = self.rng.percent(85).then_some(self.aliases.len());
        if let Some(k) = alias {
            write!(out, ", as: {}", Q(&Self::alias(k)))?;
        }
        if self.rng.percent(10) {
            let url = self.push_url();
            write!(out, ", push: {{url: {}", Q(url))?;
            if let Some(token) = self.push_token() {
                write!(out, ", token: {}", Q(&token))?;
            }
            write!(out, "}}")?;
        }
        if !self.aliases.is_empty() && self.rng.percent(10) {
            // Any earlier task: a context id is a correlation key, not a credential.
            let k = self.rng.below(self.aliases.len());
            write!(out, ", context_of: {}", Q(&Self::alias(k)))?;
        } else if self.rng.percent(4) {
            let context = format!("case-{}", 1 + self.rng.below(20));
            write!(out, ", context: {}", Q(&context))?;
        }
        writeln!(out, "}}")?;

        let admitted = target.is_some_and(|a| world.admits(c, a));
        if let Some(a) = target.filter(|_| admitted) {
            self.tasks += 1 + world.agents[a].chain_len;
        }
        if let Some(k) = alias {
            let pending = admitted && target.is_some_and(|a| world.agents[a].script.pauses());
            self.aliases.push(AliasInfo {
                caller: c,
                agent: target,
                pending,
            });
            if pending {
                self.pending.push(k);
            }
        }
        Ok(())
    }

    /// A paused task to reply to, no longer pending afterwards.
    fn take_pending(&mut self) -> Option<usize> {
        while !self.pending.is_empty() {
            let k = self.pending.swap_remove(self.rng.below(self.pending.len()));
            if self.aliases[k].pending {
                self.aliases[k].pending = false;
                return Some(k);
            }
        }
        None
    }

    fn reply(&mut self, out: &mut String, k: usize, step: usize) -> fmt::Result {
        let caller = &self.world.callers[self.aliases[k].caller];
        write!(
            out,
            "  - reply: {{caller: {}, task: {}, text: {}",
            Q(&caller.id),
            Q(&Self::alias(k)),
            Q(&format!(
                "Answer {step}: {}",
                self.rng.pick(&["yes", "no", "use the default"])
            ))
        )?;
        if self.rng.percent(10) {
            let data = DataMap(vec![("confirmed", DataValue::Bool(self.rng.percent(50)))]);
            write!(out, ", data: {data}")?;
        }
        writeln!(out, "}}")
    }

    /// A caller and the task it names: mostly its own alias, sometimes another caller's (which it
    /// cannot see) or a literal id probed blindly.
    fn pick_task(&mut self) -> (usize, TaskRef) {
        let callers = self.world.callers.len();
        // Often a paused task: pushes then fire on its reply, and cancel has something to cancel.
        if !self.pending.is_empty() && self.rng.percent(35) {
            let k = self.rng.choose(&self.pending);
            if self.aliases[k].pending {
                return (self.aliases[k].caller, TaskRef::Alias(k));
            }
        }
        if !self.aliases.is_empty() && self.rng.percent(85) {
            let k = self.rng.below(self.aliases.len());
            let caller = if self.rng.percent(85) {
                self.aliases[k].caller
            } else {
                self.rng.below(callers)
            };
            (caller, TaskRef::Alias(k))
        } else {
            let id = 1 + self.rng.below(self.tasks + 3);
            (self.rng.below(callers), TaskRef::Id(id))
        }
    }

    fn write_task_ref(out: &mut String, caller: &Caller, task: &TaskRef) -> fmt::Result {
        match task {
            TaskRef::Alias(k) => write!(
                out,
                "{{caller: {}, task: {}",
                Q(&caller.id),
                Q(&Self::alias(*k))
            ),
            TaskRef::Id(n) => write!(
                out,
                "{{caller: {}, task_id: {}",
                Q(&caller.id),
                Q(&format!("task-{n}"))
            ),
        }
    }

    fn task_step(&mut self, out: &mut String, op: &str) -> fmt::Result {
        let (c, task) = self.pick_task();
        write!(out, "  - {op}: ")?;
        Self::write_task_ref(out, &self.world.callers[c], &task)?;
        writeln!(out, "}}")?;
        // The owner's cancel ends the pause: no reply to that task later.
        if let (TaskRef::Alias(k), "cancel") = (&task, op)
            && self.aliases[*k].caller == c
        {
            self.aliases[*k].pending = false;
        }
        Ok(())
    }

    fn set_push_config(&mut self, out: &mut String) -> fmt::Result {
        let (c, task) = self.pick_task();
        write!(out, "  - set_push_config: ")?;
        Self::write_task_ref(out, &self.world.callers[c], &task)?;
        if self.rng.percent(10) {
            let agent = match task {
                TaskRef::Alias(k) => self.aliases[k].agent,
                TaskRef::Id(_) => None,
            };
            let agent = agent.unwrap_or_else(|| self.rng.below(self.world.agents.len()));
            write!(out, ", agent: {}", Q(&self.world.agents[agent].name))?;
        }
        let url = self.push_url();
        write!(out, ", url: {}", Q(url))?;
        if let Some(token) = self.push_token() {
            write!(out, ", token: {}", Q(&token))?;
        }
        writeln!(out, "}}")
    }

    fn push_url(&mut self) -> &'static str {
        if self.rng.percent(65) {
            self.rng.choose(&ALLOWED_PUSH_URLS)
        } else {
            self.rng.choose(&REFUSED_PUSH_URLS)
        }
    }

    /// Mostly a token; sometimes none or an empty one (both are `missing_token`).
    fn push_token(&mut self) -> Option<String> {
        match self.rng.below(100) {
            0..15 => None,
            15..25 => Some(String::new()),
            _ => Some(format!("tok-{:08x}", self.rng.next_u64() as u32)),
        }
    }

    fn discover(&mut self, out: &mut String) -> fmt::Result {
        let c = self.rng.below(self.world.callers.len());
        let tags = self.search_tags(c, 3);
        write!(
            out,
            "  - discover: {{caller: {}, tags: {}",
            Q(&self.world.callers[c].id),
            QList(&tags)
        )?;
        if self.rng.percent(50) {
            write!(out, ", limit: {}", self.rng.below(6))?;
        }
        writeln!(out, "}}")
    }
}
