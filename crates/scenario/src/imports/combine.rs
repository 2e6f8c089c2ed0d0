//! Joining the parsed files into one, imports first: names defined twice and keys set
//! differently in two files are problems naming both files, and only one file gives the steps.

use crate::diagnostic::Diagnostic;
use crate::file::{
    AgentFile, CallerFile, ClockFile, ExpectFile, FaultFile, ScenarioFile, StepList,
};
use crate::overrides::Override;
use crate::source::Source;
use crate::yaml::Seg;

use super::merged::{Merged, Origins};

/// Joins the files, imports first (sources 1..) then the root (source 0).
pub(super) fn combine(
    mut files: Vec<Option<ScenarioFile>>,
    mut order: Vec<usize>,
    sources: Vec<Source>,
    overrides: Vec<(Override, usize, Vec<Seg>)>,
) -> Result<Merged, Vec<Diagnostic>> {
    // A key the command line set in the importing file wins over the imports' values.
    let overridden = |key: &[&str]| {
        overrides.iter().any(|(_, src, path)| {
            *src == 0
                && path.iter().zip(key).all(|(s, k)| *s == Seg::from(*k))
                && path.len() >= key.len()
        })
    };
    let mut problems = Vec::new();
    let at = |src: usize, path: &[Seg], message: String| sources[src].diagnostic(path, message);
    order.push(0);
    let Some(mut root) = files[0].take() else {
        return Err(problems);
    };
    let mut origins = Origins::default();
    let mut agents: Vec<AgentFile> = Vec::new();
    let mut agent_from: Vec<(String, usize)> = Vec::new();
    let mut callers: Vec<CallerFile> = Vec::new();
    let mut caller_from: Vec<(String, usize)> = Vec::new();
    let mut max_depth: Option<(i64, usize)> = None;
    let mut hosts: Option<(Vec<String>, usize)> = None;
    // The card keys, paths already relative to the importing file (see walk.rs).
    let mut card_keys: [Option<(String, usize)>; 2] = [None, None];
    let mut levels: Option<(Vec<String>, usize)> = None;
    let mut clock: Option<(ClockFile, usize)> = None;
    let mut steps: Option<(StepList, usize)> = None;
    let mut expect: Vec<ExpectFile> = Vec::new();
    let mut faults: Vec<FaultFile> = Vec::new();
    let mut name: Option<String> = None;
    let (mut any_expect, mut any_faults) = (false, false);
    let mut any_agents = false;
    let mut any_callers = false;
    for &src in &order {
        let f = if src == 0 {
            &mut root
        } else {
            match files[src].as_mut() {
                Some(f) => f,
                None => continue,
            }
        };
        any_agents |= f.agents.is_some();
        any_callers |= f.callers.is_some();
        if let Some(s) = f.steps.take() {
            match &steps {
                Some((_, first)) => {
                    let msg = format!(
                        "`steps` already come from {}: a file that imports a scenario adds `faults` and `expect`, and only one file gives the steps",
                        sources[*first].display
                    );
                    problems.push(at(src, &[Seg::from("steps")], msg));
                }
                None => {
                    steps = Some((s, src));
                    // The imported scenario's name, unless the importing file names itself.
                    if src != 0 {
                        name = f.name.take();
                    }
                }
            }
        }
        // Claims and faults add up: the imported ones first, in import order.
        if let Some(e) = f.expect.take() {
            any_expect = true;
            origins.expect.extend((0..e.len()).map(|j| (src, j)));
            expect.extend(e);
        }
        if let Some(x) = f.faults.take() {
            any_faults = true;
            origins.faults.extend((0..x.len()).map(|j| (src, j)));
            faults.extend(x);
        }
        for (j, a) in f.agents.take().unwrap_or_default().into_iter().enumerate() {
            if let Some(name) = &a.name
                && let Some((_, first)) = agent_from.iter().find(|(n, _)| n == name)
                && *first != src
            {
                let msg = format!(
                    "duplicate agent name `{name}`: already defined in {}; agent names are unique across imports",
                    sources[*first].display
                );
                problems.push(at(
                    src,
                    &[Seg::from("agents"), Seg::Index(j), Seg::from("name")],
                    msg,
                ));
                continue;
            }
            if let Some(name) = &a.name {
                agent_from.push((name.clone(), src));
            }
            origins.agents.push((src, j));
            agents.push(a);
        }
        for (j, c) in f.callers.take().unwrap_or_default().into_iter().enumerate() {
            // A token caller's handle is its `name`; any other caller's, its `id`.
            let handle = c.name.clone().or_else(|| c.id.clone()).unwrap_or_default();
            if let Some((_, first)) = caller_from.iter().find(|(n, _)| *n == handle)
                && *first != src
            {
                let msg = format!(
                    "duplicate caller id `{}`: already defined in {}; caller ids are unique across imports",
                    handle, sources[*first].display
                );
                problems.push(at(
                    src,
                    &[Seg::from("callers"), Seg::Index(j), Seg::from("id")],
                    msg,
                ));
                continue;
            }
            caller_from.push((handle, src));
            origins.callers.push((src, j));
            callers.push(c);
        }
        // Key by key: a key set in two files must be set alike.
        let mut conflict = |key: &[&str], first: usize| {
            let path: Vec<Seg> = key.iter().map(|k| Seg::from(*k)).collect();
            let msg = format!(
                "`{}` is already set differently in {}; a key shared through imports is set once, or alike",
                key.join("."),
                sources[first].display
            );
            problems.push(at(src, &path, msg));
        };
        if let Some(d) = f.policy.max_depth.take() {
            match &max_depth {
                _ if src == 0 && overridden(&["policy", "max_depth"]) => max_depth = Some((d, src)),
                Some((v, first)) if *v != d => conflict(&["policy", "max_depth"], *first),
                Some(_) => {}
                None => max_depth = Some((d, src)),
            }
        }
        if let Some(h) = f.policy.push_allowed_hosts.take() {
            match &hosts {
                _ if src == 0 && overridden(&["policy", "push_allowed_hosts"]) => {
                    hosts = Some((h, src))
                }
                Some((v, first)) if *v != h => conflict(&["policy", "push_allowed_hosts"], *first),
                Some(_) => {}
                None => hosts = Some((h, src)),
            }
        }
        for (slot, (key, value)) in card_keys.iter_mut().zip([
            ("card_signing_key", f.policy.card_signing_key.take()),
            ("card_keys", f.policy.card_keys.take()),
        ]) {
            let Some(v) = value else { continue };
            match slot {
                Some((first_v, first)) if *first_v != v => conflict(&["policy", key], *first),
                Some(_) => {}
                None => *slot = Some((v, src)),
            }
        }
        if let Some(l) = f.classification_levels.take() {
            match &levels {
                Some((v, first)) if *v != l => conflict(&["classification_levels"], *first),
                Some(_) => {}
                None => levels = Some((l, src)),
            }
        }
        if let Some(c) = f.clock.take() {
            match &clock {
                _ if src == 0 && overridden(&["clock"]) => clock = Some((c, src)),
                Some((v, first)) if (&v.epoch, v.tick_ms) != (&c.epoch, c.tick_ms) => {
                    conflict(&["clock"], *first)
                }
                Some(_) => {}
                None => clock = Some((c, src)),
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    root.agents = any_agents.then_some(agents);
    root.callers = any_callers.then_some(callers);
    root.steps = steps.map(|(s, src)| {
        origins.steps = src;
        s
    });
    root.expect = any_expect.then_some(expect);
    root.faults = any_faults.then_some(faults);
    if root.name.is_none() {
        root.name = name;
    }
    root.policy.max_depth = max_depth.map(|(d, s)| {
        origins.max_depth = s;
        d
    });
    root.policy.push_allowed_hosts = hosts.map(|(h, s)| {
        origins.push_allowed_hosts = s;
        h
    });
    let [signing, keys] = card_keys;
    root.policy.card_signing_key = signing.map(|(k, s)| {
        origins.card_signing_key = s;
        k
    });
    root.policy.card_keys = keys.map(|(k, s)| {
        origins.card_keys = s;
        k
    });
    root.classification_levels = levels.map(|(l, s)| {
        origins.classification_levels = s;
        l
    });
    root.clock = clock.map(|(c, s)| {
        origins.clock = s;
        c
    });
    Ok(Merged {
        file: root,
        sources,
        origins,
        overrides,
    })
}
