//! `check`'s laundering finder (authority.md §3): from every driver step that sends or streams,
//! every delegation a handler can make on some path — both branches of every `when`, every fan-out
//! member, the card a `{discover}` picks, every candidate of a fan-out's `{discover}` — admitted
//! by every rule decidable from the file, with the effective scopes of §1. A path that reaches an
//! agent requiring a scope its driver caller lacks is a finding.
//!
//! The walk is breadth-first and visits each (driver caller, agent, incoming scopes) once, by its
//! first (shortest) path, so it stays polynomial however deep `max_depth` is; each (caller,
//! callee, missing scopes) is reported once, by its shortest path.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use crate::diagnostic::Severity;
use crate::yaml::Seg;
use engine::record::{ChainRef, Chains};
use engine::scenario::*;
use engine::{CallerContext, check_delegation};

/// One laundering path, located at the delegating handler step.
#[derive(Debug)]
pub struct Finding {
    pub at: Vec<Seg>,
    pub severity: Severity,
    /// Caller id, then each agent, in order.
    pub path: Vec<String>,
    /// The callee's required scopes the driver caller lacks, in `required_scopes` order.
    pub scopes: Vec<String>,
    /// The finding's first line (the path), then its further lines: what it reaches, a hint.
    pub message: String,
    pub notes: Vec<String>,
}

/// Where a handler can delegate: the step's path into the file and its targets.
struct Site<'s> {
    at: Vec<Seg>,
    targets: Vec<SiteTarget<'s>>,
}

enum SiteTarget<'s> {
    One(&'s Target),
    /// A fan-out's `{discover}`: every candidate.
    Ranking(&'s [Sym], Option<usize>),
}

/// A task the walk reached: who created it with what, and how.
struct Reached {
    caller: CallerIx,
    agent: AgentIx,
    /// The scopes of the context that created it.
    scopes: Vec<Sym>,
    chain: ChainRef,
    /// Agents of the path after the caller.
    hops: Vec<AgentIx>,
    /// The nearest hop that delegated with its own scopes.
    last_own: Option<AgentIx>,
}

pub fn findings(scenario: &Scenario) -> Vec<Finding> {
    let sites: Vec<Vec<Site>> = scenario
        .agents
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mut out = Vec::new();
            let at = vec![Seg::from("agents"), Seg::Index(i), Seg::from("handler")];
            collect(&at, &a.handler, &mut out);
            out
        })
        .collect();
    if sites.iter().all(Vec::is_empty) {
        return Vec::new();
    }
    let mut chains = Chains::default();
    let mut seen: BTreeSet<(CallerIx, AgentIx, Vec<Sym>)> = BTreeSet::new();
    let mut reported: BTreeSet<(CallerIx, AgentIx, Vec<Sym>)> = BTreeSet::new();
    let mut out = Vec::new();

    // Level 1: what the driver steps reach, in step order. A file of many sends names few
    // (caller, target) pairs: each is resolved and checked once.
    let upstreams: Vec<ChainRef> = scenario
        .callers
        .iter()
        .map(|c| chains.from_slice(&c.delegation_chain))
        .collect();
    let mut entered: BTreeSet<(CallerIx, AgentIx)> = BTreeSet::new();
    let mut discovered: HashMap<(CallerIx, &[Sym]), Option<AgentIx>> = HashMap::new();
    let mut level = Vec::new();
    for step in &scenario.steps {
        let Step::Send(send) = step else { continue };
        let c = &scenario.callers[send.caller()];
        let upstream = upstreams[send.caller()];
        let ctx = CallerContext {
            agent_id: c.sym,
            tenant: c.tenant,
            classification: c.classification,
            scopes: Cow::Borrowed(&c.scopes),
            delegation_chain: upstream,
        };
        let callee = match &send.to {
            Target::Agent(a) => Some(*a),
            Target::Discover(tags) => *discovered
                .entry((send.caller(), &tags[..]))
                .or_insert_with(|| engine::top(&ctx, tags, &scenario.directory)),
        };
        let Some(callee) = callee else { continue };
        if !entered.insert((send.caller(), callee)) {
            continue;
        }
        if !check_delegation(&ctx, &scenario.agents[callee], scenario, &chains).is_empty() {
            continue;
        }
        let key = (send.caller(), callee, c.scopes.clone());
        if seen.insert(key) {
            let chain = chains.push(upstream, c.sym);
            level.push(Reached {
                caller: send.caller(),
                agent: callee,
                scopes: c.scopes.clone(),
                chain,
                hops: vec![callee],
                last_own: None,
            });
        }
    }

    while !level.is_empty() {
        let mut next = Vec::new();
        for r in &level {
            let agent = &scenario.agents[r.agent];
            let rule = agent.authority(&scenario.policy);
            let scopes: Vec<Sym> = match rule {
                Authority::Own => agent.scopes.clone(),
                Authority::Attenuate => agent
                    .scopes
                    .iter()
                    .filter(|s| r.scopes.contains(s))
                    .copied()
                    .collect(),
            };
            let last_own = if rule == Authority::Own {
                Some(r.agent)
            } else {
                r.last_own
            };
            let caller = &scenario.callers[r.caller];
            let ctx = CallerContext {
                agent_id: agent.sym,
                tenant: agent.tenant,
                classification: caller.classification,
                scopes: Cow::Borrowed(&scopes),
                delegation_chain: r.chain,
            };
            for site in &sites[r.agent] {
                for callee in site_callees(scenario, &ctx, site) {
                    let card = &scenario.agents[callee];
                    if !check_delegation(&ctx, card, scenario, &chains).is_empty() {
                        continue;
                    }
                    let missing: Vec<Sym> = card
                        .required_scopes
                        .iter()
                        .filter(|s| !caller.scopes.contains(s))
                        .copied()
                        .collect();
                    let mut hops = r.hops.clone();
                    hops.push(callee);
                    if !missing.is_empty() && reported.insert((r.caller, callee, missing.clone())) {
                        out.push(finding(scenario, r.caller, &hops, last_own, &missing, site));
                    }
                    if seen.insert((r.caller, callee, scopes.clone())) {
                        next.push(Reached {
                            caller: r.caller,
                            agent: callee,
                            scopes: scopes.clone(),
                            chain: chains.push(r.chain, agent.sym),
                            hops,
                            last_own,
                        });
                    }
                }
            }
        }
        level = next;
    }
    out
}

/// The agents a site can reach from `ctx`, in order; discovery depends only on the file.
fn site_callees(scenario: &Scenario, ctx: &CallerContext, site: &Site) -> Vec<AgentIx> {
    let mut out = Vec::new();
    for t in &site.targets {
        match t {
            SiteTarget::One(Target::Agent(a)) => out.push(*a),
            SiteTarget::One(Target::Discover(tags)) => {
                out.extend(engine::top(ctx, tags, &scenario.directory));
            }
            SiteTarget::Ranking(tags, limit) => out.extend(
                engine::discover(ctx, tags, *limit, &scenario.directory, &scenario.agents)
                    .iter()
                    .map(|r| r.agent),
            ),
        }
    }
    out
}

fn finding(
    scenario: &Scenario,
    caller: CallerIx,
    hops: &[AgentIx],
    last_own: Option<AgentIx>,
    missing: &[Sym],
    site: &Site,
) -> Finding {
    let names = &scenario.symbols;
    let caller_id = scenario.callers[caller].id.clone();
    let mut path = vec![caller_id.clone()];
    path.extend(hops.iter().map(|&a| scenario.agents[a].name().to_string()));
    let scopes: Vec<String> = missing.iter().map(|&s| names.name(s).to_string()).collect();
    let list = scopes
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let (lender, severity) = match last_own {
        Some(a) => {
            let agent = &scenario.agents[a];
            let explicit = agent.authority == Some(Authority::Own);
            let severity = if explicit {
                Severity::Note
            } else {
                Severity::Warning
            };
            (
                format!(" ({} delegates with its own scopes)", agent.name()),
                severity,
            )
        }
        None => (String::new(), Severity::Warning),
    };
    let notes = vec![
        format!("reaches {list}, which {caller_id} does not hold{lender}"),
        format!(
            "hint: set `policy.authority: attenuate`, or give {caller_id} the scope, or mark the hop `authority: own` on purpose"
        ),
    ];
    Finding {
        at: site.at.clone(),
        severity,
        message: path.join(" → "),
        path,
        scopes,
        notes,
    }
}

/// Every delegation site of a handler, in document order (`then` before `else`).
fn collect<'s>(at: &[Seg], steps: &'s [HandlerStep], out: &mut Vec<Site<'s>>) {
    for (j, step) in steps.iter().enumerate() {
        let here = [at, &[Seg::Index(j)]].concat();
        match step {
            HandlerStep::Delegate(d) => out.push(Site {
                at: here,
                targets: vec![SiteTarget::One(&d.to)],
            }),
            HandlerStep::FanOut(f) => {
                let targets = match &f.to {
                    FanTargets::List(list) => list.iter().map(SiteTarget::One).collect(),
                    FanTargets::Ranking { tags, limit } => {
                        vec![SiteTarget::Ranking(tags, *limit)]
                    }
                };
                out.push(Site { at: here, targets });
            }
            HandlerStep::When(w) => {
                collect(&[&here[..], &[Seg::from("then")]].concat(), &w.then, out);
                collect(
                    &[&here[..], &[Seg::from("else")]].concat(),
                    &w.otherwise,
                    out,
                );
            }
            _ => {}
        }
    }
}
