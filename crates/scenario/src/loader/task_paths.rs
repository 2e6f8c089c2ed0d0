//! Task paths in `expect` entries, `ALIAS/NAME/2/...`: an alias, then `as` names and fan-out
//! member numbers, each name checked against the handler of the agent it is in.

use crate::diagnostic::with_hint;
use crate::yaml::Seg;
use engine::scenario::*;

use super::state::{NamedResult, ResultKind};
use super::{Loader, Names};

/// What a path segment names the next one in: an agent's handler, a fan-out's members, or (after
/// a discovery) any agent's.
enum Hop<'a> {
    Agent(AgentIx),
    Group(Option<&'a [Option<AgentIx>]>),
    Any,
}

impl Loader<'_> {
    /// `ALIAS/NAME/2/...`: an alias, then `as` names, a number after a fan-out's name picking
    /// its member. Names are checked against the handler of the agent they are in, when the file
    /// says which agent that is (a discovery could pick any: then some agent must define it).
    pub(super) fn task_path(
        &mut self,
        at: Vec<Seg>,
        written: &str,
        names: &Names,
        alias_steps: &[u32],
        steps: &[Step],
    ) -> Option<TaskPath> {
        let mut segments = written.split('/');
        let first = segments.next().unwrap_or_default();
        if written.split('/').any(str::is_empty) {
            self.problem(
                at,
                format!("`{written}` has an empty segment: a task path is an alias, then `as` names and member numbers, joined by single `/`"),
            );
            return None;
        }
        let before = self.problems.len();
        let alias = self.alias_ref(at.clone(), first, names);
        if self.problems.len() > before {
            return None;
        }
        let results = std::mem::take(&mut self.results);
        let mut hop = match alias_steps
            .get(alias)
            .and_then(|&s| steps.get(s as usize - 1))
        {
            Some(Step::Send(Send {
                to: Target::Agent(a),
                ..
            })) => Hop::Agent(*a),
            _ => Hop::Any,
        };
        let mut hops = Vec::new();
        let mut prev = first;
        let mut problem = None;
        for seg in segments {
            let member = seg.bytes().all(|b| b.is_ascii_digit());
            let next = match (&hop, member) {
                (Hop::Group(members), true) => match seg.parse::<usize>() {
                    Ok(n) if n >= 1 => {
                        hops.push(PathHop::Member(n));
                        match members {
                            Some(m) if n > m.len() => Err(format!(
                                "`{prev}` has {} members, so there is no member {n}",
                                m.len()
                            )),
                            Some(m) => Ok(m[n - 1].map_or(Hop::Any, Hop::Agent)),
                            None => Ok(Hop::Any),
                        }
                    }
                    _ => Err(format!(
                        "`{seg}` is not a member number: members are numbered from 1"
                    )),
                },
                (Hop::Any, true) => match seg.parse::<usize>() {
                    Ok(n) if n >= 1 => {
                        hops.push(PathHop::Member(n));
                        Ok(Hop::Any)
                    }
                    _ => Err(format!(
                        "`{seg}` is not a member number: members are numbered from 1"
                    )),
                },
                (Hop::Agent(_), true) => Err(format!(
                    "`{seg}` picks a fan-out member, but `{prev}` is not a fan-out"
                )),
                (Hop::Group(_), false) => Err(format!(
                    "`{prev}` is a fan-out: pick one of its members by number, e.g. `{prev}/1/{seg}`"
                )),
                (Hop::Agent(a), false) => {
                    hops.push(PathHop::Result(seg.to_string()));
                    match results
                        .get(*a)
                        .and_then(|rs| rs.iter().find(|r| r.name == seg))
                    {
                        Some(r) => Ok(hop_of(r)),
                        None => {
                            let agent = names
                                .agents
                                .iter()
                                .find(|(_, ix)| **ix == *a)
                                .map_or("", |(n, _)| n.as_str());
                            let candidates = results
                                .get(*a)
                                .into_iter()
                                .flatten()
                                .map(|r| r.name.as_str());
                            Err(with_hint(
                                format!(
                                    "unknown result `{seg}`: the handler of `{agent}` has no delegation or fan-out with `as: {seg}`"
                                ),
                                seg,
                                candidates,
                            ))
                        }
                    }
                }
                (Hop::Any, false) => {
                    hops.push(PathHop::Result(seg.to_string()));
                    let all = results.iter().flatten();
                    match all.clone().find(|r| r.name == seg) {
                        // After a discovery the agent is not known; keep accepting what follows.
                        Some(r) if r.kind.is_group() => Ok(Hop::Any),
                        Some(r) => Ok(hop_of(r)),
                        None => Err(with_hint(
                            format!(
                                "unknown result `{seg}`: no agent's handler has a delegation or fan-out with `as: {seg}`"
                            ),
                            seg,
                            all.map(|r| r.name.as_str()),
                        )),
                    }
                }
            };
            match next {
                Ok(h) => hop = h,
                Err(e) => {
                    problem = Some(e);
                    break;
                }
            }
            prev = seg;
        }
        self.results = results;
        if let Some(e) = problem {
            self.problem(at, format!("task path `{written}`: {e}"));
            return None;
        }
        Some(TaskPath { alias, hops })
    }
}

fn hop_of(r: &NamedResult) -> Hop<'_> {
    match &r.kind {
        ResultKind::Delegate(a) => a.map_or(Hop::Any, Hop::Agent),
        ResultKind::FanOut(members) => Hop::Group(members.as_deref()),
    }
}
