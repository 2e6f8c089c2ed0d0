//! The scenario file: the world written out, then the driver's steps.

use std::fmt::{self, Write as _};

use crate::Config;
use crate::driver::Driver;
use crate::rng::Rng;
use crate::vocab::{LEVELS, PUSH_HOSTS};
use crate::world::{HandlerStep, World, tenant_name};
use crate::yaml::{Q, QList};

/// The whole synthetic scenario for `config`.
pub fn generate(config: &Config) -> Result<String, fmt::Error> {
    let mut rng = Rng::new(config.seed);
    let world = World::build(config, &mut rng);
    let mut out = String::with_capacity(4096 + config.agents * 700 + config.steps * 120);
    writeln!(
        out,
        "# a2a-sim-gen --seed {} --agents {} --steps {} --tenants {} --skills-per-agent {} \
         --callers {} --nesting-depth {}",
        config.seed,
        config.agents,
        config.steps,
        config.tenants,
        config.skills_per_agent,
        config.callers,
        config.nesting_depth
    )?;
    let name = format!(
        "synthetic seed {}: {} agents, {} tenants, {} steps",
        config.seed, config.agents, config.tenants, config.steps
    );
    writeln!(out, "name: {}", Q(&name))?;
    write_policy(&mut out, world.max_depth)?;
    write_agents(&mut out, &world)?;
    write_callers(&mut out, &world)?;
    if config.steps == 0 {
        writeln!(out, "steps: []")?;
    } else {
        writeln!(out, "steps:")?;
        let mut driver = Driver {
            world: &world,
            rng,
            aliases: Vec::new(),
            pending: Vec::new(),
            tasks: 0,
        };
        for step in 1..=config.steps {
            driver.step(&mut out, step)?;
        }
    }
    Ok(out)
}

pub fn write_policy(out: &mut String, max_depth: usize) -> fmt::Result {
    writeln!(out, "policy:")?;
    writeln!(out, "  max_depth: {max_depth}")?;
    writeln!(out, "  push_allowed_hosts: {}", QList(&PUSH_HOSTS))
}

pub fn write_agents(out: &mut String, world: &World) -> fmt::Result {
    writeln!(out, "agents:")?;
    for agent in &world.agents {
        writeln!(out, "  - name: {}", Q(&agent.name))?;
        writeln!(out, "    description: {}", Q(&agent.description))?;
        writeln!(out, "    version: {}", Q(&agent.version))?;
        writeln!(out, "    tenant: {}", Q(&tenant_name(agent.tenant)))?;
        writeln!(out, "    clearance: {}", Q(LEVELS[agent.clearance]))?;
        if !agent.required_scopes.is_empty() {
            writeln!(
                out,
                "    required_scopes: {}",
                QList(&agent.required_scopes)
            )?;
        }
        if !agent.scopes.is_empty() {
            writeln!(out, "    scopes: {}", QList(&agent.scopes))?;
        }
        writeln!(
            out,
            "    capabilities: {{streaming: true, push_notifications: {}}}",
            agent.push_notifications
        )?;
        writeln!(out, "    skills:")?;
        for skill in &agent.skills {
            writeln!(
                out,
                "      - {{id: {}, name: {}, tags: {}}}",
                Q(&skill.id),
                Q(&skill.name),
                QList(&skill.tags)
            )?;
        }
        writeln!(out, "    handler:")?;
        for step in &agent.handler {
            write_handler_step(out, world, step)?;
        }
    }
    Ok(())
}

pub fn write_handler_step(out: &mut String, world: &World, step: &HandlerStep) -> fmt::Result {
    out.push_str("      - ");
    match step {
        HandlerStep::Status(state, None) => writeln!(out, "{state}"),
        HandlerStep::Status(state, Some(text)) => writeln!(out, "{state}: {}", Q(text)),
        HandlerStep::Message(text) => writeln!(out, "message: {}", Q(text)),
        HandlerStep::Artifact { name, text, data } => {
            write!(out, "artifact: {{name: {}", Q(name))?;
            if let Some(text) = text {
                write!(out, ", text: {}", Q(text))?;
            }
            if let Some(data) = data {
                write!(out, ", data: {data}")?;
            }
            writeln!(out, "}}")
        }
        HandlerStep::Delegate {
            to,
            text,
            on_error_continue,
        } => {
            let to = &world.agents[*to].name;
            write!(out, "delegate: {{to: {}, text: {}", Q(to), Q(text))?;
            if *on_error_continue {
                write!(out, ", on_error: {}", Q("continue"))?;
            }
            writeln!(out, "}}")
        }
    }
}

pub fn write_callers(out: &mut String, world: &World) -> fmt::Result {
    writeln!(out, "callers:")?;
    for caller in &world.callers {
        write!(
            out,
            "  - {{id: {}, tenant: {}, classification: {}",
            Q(&caller.id),
            Q(&tenant_name(caller.tenant)),
            Q(LEVELS[caller.classification])
        )?;
        if !caller.scopes.is_empty() {
            write!(out, ", scopes: {}", QList(&caller.scopes))?;
        }
        if !caller.delegation_chain.is_empty() {
            write!(
                out,
                ", delegation_chain: {}",
                QList(&caller.delegation_chain)
            )?;
        }
        writeln!(out, "}}")?;
    }
    Ok(())
}

/// One agent that pauses `history` times, one caller, one send and `history` replies: the task's
/// status history grows to `2 * history + 3` entries.
pub fn generate_long_history(history: usize) -> Result<String, fmt::Error> {
    let mut out = String::with_capacity(512 + history * 100);
    writeln!(out, "# a2a-sim-gen --history {history}")?;
    let name = format!("long history: one task paused and resumed {history} times");
    writeln!(out, "name: {}", Q(&name))?;
    write_policy(&mut out, 4)?;
    writeln!(out, "agents:")?;
    writeln!(out, "  - name: {}", Q("long-talker"))?;
    writeln!(
        out,
        "    description: {}",
        Q("Asks for more, again and again")
    )?;
    writeln!(out, "    tenant: {}", Q(&tenant_name(0)))?;
    writeln!(out, "    clearance: {}", Q("restricted"))?;
    writeln!(
        out,
        "    capabilities: {{streaming: true, push_notifications: true}}"
    )?;
    writeln!(out, "    skills:")?;
    writeln!(
        out,
        "      - {{id: {}, tags: {}}}",
        Q("converse"),
        QList(&["conversation"])
    )?;
    writeln!(out, "    handler:")?;
    for _ in 0..history {
        writeln!(out, "      - working")?;
        writeln!(out, "      - input_required: {}", Q("more?"))?;
    }
    // input-required -> completed is not a transition: resume with `working` first.
    writeln!(out, "      - working")?;
    writeln!(out, "      - completed")?;
    writeln!(out, "callers:")?;
    writeln!(
        out,
        "  - {{id: {}, tenant: {}, classification: {}}}",
        Q("caller-0"),
        Q(&tenant_name(0)),
        Q("internal")
    )?;
    writeln!(out, "steps:")?;
    writeln!(
        out,
        "  - send: {{caller: {}, to: {}, text: {}, as: {}}}",
        Q("caller-0"),
        Q("long-talker"),
        Q("Start a long conversation"),
        Q("long")
    )?;
    for i in 1..=history {
        writeln!(
            out,
            "  - reply: {{caller: {}, task: {}, text: {}}}",
            Q("caller-0"),
            Q("long"),
            Q(&format!("more {i}"))
        )?;
    }
    Ok(out)
}
