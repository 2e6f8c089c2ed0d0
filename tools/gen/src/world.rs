//! The agents and callers of a synthetic scenario, drawn from the seed before any step.

use std::collections::BTreeSet;

use crate::Config;
use crate::rng::Rng;
use crate::vocab::{
    CLASSIFICATION_WEIGHTS, CLEARANCE_WEIGHTS, DELEGATE_LOOKAHEAD, MAX_CALLER_CHAIN, QUESTIONS,
    SCOPES, TAGS, VERBS,
};
use crate::yaml::{DataMap, DataValue};

pub struct Skill {
    pub id: String,
    pub name: String,
    pub tags: Vec<&'static str>,
}

/// The shape of an agent's handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    Plain,
    /// Pauses once (`input_required`, or `auth_required` when `auth`), then completes.
    MultiTurn {
        auth: bool,
    },
    Failing,
    /// Delegates to agent `to` (same tenant, higher index).
    Nested {
        to: usize,
    },
}

impl Script {
    pub fn pauses(self) -> bool {
        matches!(self, Script::MultiTurn { .. })
    }
}

pub enum HandlerStep {
    Status(&'static str, Option<String>),
    Message(String),
    Artifact {
        name: String,
        text: Option<String>,
        data: Option<DataMap>,
    },
    Delegate {
        to: usize,
        text: String,
        on_error_continue: bool,
    },
}

pub struct Agent {
    pub name: String,
    pub description: String,
    pub version: String,
    pub tenant: usize,
    pub clearance: usize,
    pub required_scopes: Vec<&'static str>,
    pub scopes: Vec<&'static str>,
    pub push_notifications: bool,
    pub skills: Vec<Skill>,
    pub script: Script,
    /// Nested delegations one task of this agent makes, transitively.
    pub chain_len: usize,
    pub handler: Vec<HandlerStep>,
}

pub struct Caller {
    pub id: String,
    pub tenant: usize,
    pub classification: usize,
    pub scopes: Vec<&'static str>,
    pub delegation_chain: Vec<String>,
}

/// The agents and callers of a synthetic scenario.
pub struct World {
    pub agents: Vec<Agent>,
    pub callers: Vec<Caller>,
    /// Agent indices per tenant, ascending.
    pub tenant_agents: Vec<Vec<usize>>,
    pub max_depth: usize,
}

pub fn tenant_name(t: usize) -> String {
    format!("tenant-{t}")
}

pub fn push_unique(list: &mut Vec<&'static str>, item: &'static str) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// 1 to `max` distinct tags from the 6 tags after `home`: neighbouring agents share tags, so
/// discovery scores differ and ties happen.
pub fn tags_near(rng: &mut Rng, home: usize, max: usize) -> Vec<&'static str> {
    let n = 1 + rng.below(max);
    let mut tags = Vec::with_capacity(n);
    while tags.len() < n {
        push_unique(&mut tags, TAGS[(home + rng.below(6)) % TAGS.len()]);
    }
    tags
}

impl World {
    pub fn build(config: &Config, rng: &mut Rng) -> World {
        let mut agents: Vec<Agent> = (0..config.agents)
            .map(|i| Self::agent(config, rng, i))
            .collect();
        let mut tenant_agents = vec![Vec::new(); config.tenants];
        for (i, agent) in agents.iter().enumerate() {
            tenant_agents[agent.tenant].push(i);
        }
        Self::resolve_delegations(config, rng, &mut agents);
        for i in 0..agents.len() {
            agents[i].handler = Self::handler(rng, &agents, i);
        }
        let callers = (0..config.callers)
            .map(|j| Self::caller(config, rng, &agents, &tenant_agents, j))
            .collect();
        World {
            agents,
            callers,
            tenant_agents,
            // A driver task's chain is the caller's chain plus the caller; each nested hop adds
            // one; `depth` refuses a new chain of `max_depth`.
            max_depth: config.nesting_depth + MAX_CALLER_CHAIN + 2,
        }
    }

    /// Everything but the handler; `Nested` is only a wish until `resolve_delegations`.
    fn agent(config: &Config, rng: &mut Rng, i: usize) -> Agent {
        let tenant = i % config.tenants;
        let home = rng.below(TAGS.len());
        let mut skills: Vec<Skill> = Vec::with_capacity(config.skills_per_agent);
        for k in 0..config.skills_per_agent {
            let tags = tags_near(rng, home, 3);
            let verb = rng.choose(&VERBS);
            let mut id = format!("{verb}-{}", tags[0]);
            if skills.iter().any(|s| s.id == id) {
                id = format!("{id}-{k}");
            }
            let name = format!("{} {}", capitalize(verb), tags[0]);
            skills.push(Skill { id, name, tags });
        }
        let mut required_scopes = Vec::new();
        let roll = rng.below(100);
        if roll < 45 {
            push_unique(&mut required_scopes, rng.choose(&SCOPES));
        }
        if roll < 10 {
            push_unique(&mut required_scopes, rng.choose(&SCOPES));
        }
        let script = match rng.weighted(&[45, 22, 4, 29]) {
            0 => Script::Plain,
            1 => Script::MultiTurn {
                auth: rng.percent(15),
            },
            2 => Script::Failing,
            _ => Script::Nested { to: usize::MAX },
        };
        Agent {
            name: format!("agent-{i:03}"),
            description: format!(
                "Handles {} requests for {}",
                skills[0].tags.join(", "),
                tenant_name(tenant)
            ),
            version: format!("1.{}.{}", rng.below(5), rng.below(10)),
            tenant,
            clearance: rng.weighted(&CLEARANCE_WEIGHTS),
            required_scopes,
            scopes: Vec::new(),
            push_notifications: rng.percent(50),
            skills,
            script,
            chain_len: 0,
            handler: Vec::new(),
        }
    }

    /// Picks each delegating agent's callee among the next few agents of its tenant that neither
    /// pause nor fail and whose own chain leaves room: higher indices only, so no cycles. Runs
    /// from the last agent down so every callee's chain length is final when it is looked at.
    fn resolve_delegations(config: &Config, rng: &mut Rng, agents: &mut [Agent]) {
        let step = config.tenants;
        for i in (0..agents.len()).rev() {
            if agents[i].script != (Script::Nested { to: usize::MAX }) {
                continue;
            }
            let candidates: Vec<usize> = (1..=DELEGATE_LOOKAHEAD)
                .map(|m| i + m * step)
                .take_while(|&j| j < agents.len())
                .filter(|&j| {
                    matches!(agents[j].script, Script::Plain | Script::Nested { .. })
                        && agents[j].chain_len < config.nesting_depth
                })
                .collect();
            if candidates.is_empty() {
                agents[i].script = Script::Plain;
                continue;
            }
            let to = rng.choose(&candidates);
            agents[i].script = Script::Nested { to };
            agents[i].chain_len = agents[to].chain_len + 1;
            // The nested caller context carries the delegating agent's own scopes.
            let needed = agents[to].required_scopes.clone();
            for scope in needed {
                push_unique(&mut agents[i].scopes, scope);
            }
        }
        for agent in agents.iter_mut() {
            if rng.percent(25) {
                push_unique(&mut agent.scopes, rng.choose(&SCOPES));
            }
        }
    }

    fn handler(rng: &mut Rng, agents: &[Agent], i: usize) -> Vec<HandlerStep> {
        let agent = &agents[i];
        let tag = agent.skills[0].tags[0];
        let mut steps = Vec::new();
        let working_text = rng
            .percent(70)
            .then(|| format!("Working on the {tag} request"));
        steps.push(HandlerStep::Status("working", working_text));
        match agent.script {
            Script::Plain => {
                if rng.percent(20) {
                    steps.push(progress_message(rng, tag));
                }
                steps.push(artifact(rng, agent, tag));
            }
            Script::MultiTurn { auth } => {
                let pause = if auth {
                    HandlerStep::Status(
                        "auth_required",
                        Some("Please sign in to the records system".into()),
                    )
                } else {
                    HandlerStep::Status("input_required", Some(rng.choose(&QUESTIONS).into()))
                };
                steps.push(pause);
                steps.push(HandlerStep::Status("working", None));
                if rng.percent(50) {
                    steps.push(artifact(rng, agent, tag));
                }
            }
            Script::Failing => {
                steps.push(HandlerStep::Status(
                    "failed",
                    Some(format!("The {tag} backend is unavailable")),
                ));
                return steps;
            }
            Script::Nested { to } => {
                if rng.percent(20) {
                    steps.push(progress_message(rng, tag));
                }
                steps.push(HandlerStep::Delegate {
                    to,
                    text: format!(
                        "Sub-request from {}: {} for {tag}",
                        agent.name, agents[to].skills[0].id
                    ),
                    on_error_continue: rng.percent(15),
                });
                if rng.percent(50) {
                    steps.push(artifact(rng, agent, tag));
                }
            }
        }
        let done = rng.percent(60).then(|| "Done".to_string());
        steps.push(HandlerStep::Status("completed", done));
        steps
    }

    fn caller(
        config: &Config,
        rng: &mut Rng,
        agents: &[Agent],
        tenant_agents: &[Vec<usize>],
        j: usize,
    ) -> Caller {
        let tenant = j % config.tenants;
        let needed: BTreeSet<&'static str> = tenant_agents[tenant]
            .iter()
            .flat_map(|&a| agents[a].required_scopes.iter().copied())
            .collect();
        // Usually every scope its tenant's agents require, so a missing scope is the exception.
        let mut scopes: Vec<&'static str> =
            needed.into_iter().filter(|_| rng.percent(85)).collect();
        if rng.percent(15) {
            push_unique(&mut scopes, rng.choose(&SCOPES));
        }
        // Free ids: upstream agents need not be in the file.
        let delegation_chain = match rng.below(100) {
            0..75 => Vec::new(),
            75..95 => vec![format!("upstream-{}", 1 + rng.below(5))],
            _ => vec![
                format!("gateway-{}", 1 + rng.below(3)),
                format!("upstream-{}", 1 + rng.below(5)),
            ],
        };
        Caller {
            id: format!("caller-{j}"),
            tenant,
            classification: rng.weighted(&CLASSIFICATION_WEIGHTS),
            scopes,
            delegation_chain,
        }
    }

    /// Whether `check_delegation` admits a driver send from `caller` to `agent`. Cycle and depth
    /// never deny here: callers are not agents and `max_depth` leaves room for every chain.
    pub fn admits(&self, caller: usize, agent: usize) -> bool {
        let (c, a) = (&self.callers[caller], &self.agents[agent]);
        c.tenant == a.tenant
            && a.clearance >= c.classification
            && a.required_scopes.iter().all(|s| c.scopes.contains(s))
    }

    /// The agent `to: {discover: tags}` picks for `caller` (semantics.md §5), if any.
    pub fn discover_top(&self, caller: usize, tags: &[&str]) -> Option<usize> {
        let c = &self.callers[caller];
        let mut best: Option<(usize, usize)> = None;
        for &a in &self.tenant_agents[c.tenant] {
            let agent = &self.agents[a];
            if agent.clearance < c.classification {
                continue;
            }
            let score = agent
                .skills
                .iter()
                .map(|s| tags.iter().filter(|t| s.tags.contains(t)).count())
                .max()
                .unwrap_or(0);
            let better = match best {
                _ if score == 0 => false,
                None => true,
                Some((best_score, b)) => {
                    score > best_score || (score == best_score && agent.name < self.agents[b].name)
                }
            };
            if better {
                best = Some((score, a));
            }
        }
        best.map(|(_, a)| a)
    }
}

pub fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

pub fn progress_message(rng: &mut Rng, tag: &str) -> HandlerStep {
    HandlerStep::Message(format!("Found {} {tag} records so far", 1 + rng.below(40)))
}

/// Mostly both a text and a data part (as the seed's screening result has), sometimes one.
pub fn artifact(rng: &mut Rng, agent: &Agent, tag: &str) -> HandlerStep {
    let items = 1 + rng.below(500) as u64;
    let flagged = rng.below(items as usize + 1) as u64;
    let (text, data) = match rng.below(100) {
        0..15 => (true, false),
        15..25 => (false, true),
        _ => (true, true),
    };
    HandlerStep::Artifact {
        name: format!("{tag}-result"),
        text: text.then(|| format!("{items} {tag} items processed, {flagged} flagged")),
        data: data.then(|| {
            DataMap(vec![
                ("items", DataValue::Int(items)),
                ("flagged", DataValue::Int(flagged)),
                ("source", DataValue::Str(agent.name.clone())),
                ("final", DataValue::Bool(rng.percent(80))),
            ])
        }),
    }
}
