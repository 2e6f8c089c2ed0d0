//! `external:` on an agent: a real A2A agent, started from a command or reached at a URL. Only
//! checked here; starting and calling it is the edge's work.

use crate::file::ExternalFile;
use crate::yaml::Seg;
use engine::scenario::{Agent, Caller, External, FanTargets, HandlerStep, Target};

use super::{Loader, Names};

/// The seconds to wait for a started agent's card when the file does not say.
pub const READY_TIMEOUT_S: u64 = 30;
/// The longest `settle_ms`: a second added to every call is already far more than parallel calls need.
pub const MAX_SETTLE_MS: u64 = 1000;

impl Loader<'_> {
    pub(super) fn external(
        &mut self,
        i: usize,
        e: ExternalFile,
        has_handler: bool,
        names: &Names,
    ) -> External {
        let at = |key: &str| at!["agents", i, "external", key];
        if has_handler {
            self.problem(
                at!["agents", i, "handler"],
                "an agent with `external` is played by the real agent: drop `handler` (or `external`)",
            );
        }
        match (&e.command, &e.url) {
            (Some(_), Some(_)) => self.problem(
                at!["agents", i, "external"],
                "`external` takes `command` (a2a-sim starts the agent) or `url` (it is already running), not both",
            ),
            (None, None) => self.problem(
                at!["agents", i, "external"],
                "`external` needs `command` (e.g. [python3, agent.py, --port, \"{port}\"]) or `url`",
            ),
            (Some(c), None) if c.first().is_none_or(|p| p.is_empty()) => self.problem(
                at("command"),
                "`command` needs the program to run first, then its arguments",
            ),
            (None, Some(u)) => {
                if !e.env.is_empty() {
                    self.problem(
                        at("env"),
                        "`env` is for a started agent (`command`); an agent at a `url` is not started by a2a-sim",
                    );
                }
                match url::Url::parse(u) {
                    Ok(url) if matches!(url.scheme(), "http" | "https") => {}
                    _ => self.problem(
                        at("url"),
                        format!("`{u}` is not an absolute http(s) URL: give the agent's base URL, e.g. http://127.0.0.1:9000/"),
                    ),
                }
            }
            _ => {}
        }
        if e.ready_timeout_s == Some(0) {
            self.problem(
                at("ready_timeout_s"),
                "`ready_timeout_s` must be at least 1",
            );
        }
        if e.settle_ms.is_some_and(|ms| ms > MAX_SETTLE_MS) {
            self.problem(
                at("settle_ms"),
                format!("`settle_ms` is at most {MAX_SETTLE_MS} (it is added to every call the agent makes)"),
            );
        }
        let templated = e.command.iter().flatten().map(|a| (None, a));
        let in_env = e.env.iter().map(|(k, v)| (Some(k), v));
        for (key, text) in templated.chain(in_env).collect::<Vec<_>>() {
            if let Err(why) = check_template(text, names, self.no_agent_token) {
                let path = match key {
                    Some(k) => at!["agents", i, "external", "env", k.as_str()],
                    None => at("command"),
                };
                self.problem(path, why);
            }
        }
        External {
            command: e.command.unwrap_or_default(),
            url: e.url,
            env: e.env.into_iter().collect(),
            ready_timeout_s: e.ready_timeout_s.unwrap_or(READY_TIMEOUT_S),
            settle_ms: e.settle_ms.unwrap_or(0),
            token: None,
            // A file named without a folder is in the current one.
            dir: match self.base.as_os_str().is_empty() {
                true => std::path::PathBuf::from("."),
                false => self.base.to_path_buf(),
            },
        }
    }

    /// With `keys` and a platform key, each real agent gets a token for its own calls, minted
    /// from its platform metadata (`sub` its name; its tenant, clearance and scopes) and valid
    /// from tick 0 for the whole run: the served agents take its calls only with it (`{token}`).
    pub(super) fn agent_tokens(
        &mut self,
        agents: &mut [Agent],
        tokens: &dyn engine::scenario::Tokens,
        levels: &[String],
        clock: &engine::scenario::Clock,
    ) {
        if self.no_agent_token.is_some() {
            return;
        }
        for (i, a) in agents.iter_mut().enumerate() {
            let Some(external) = a.external.as_mut() else {
                continue;
            };
            let grant = engine::scenario::Grant {
                sub: a.card.name.as_str(),
                tenant: self.symbols.name(a.tenant),
                classification: levels.get(a.clearance).map_or("", String::as_str),
                scope: a.scopes.iter().map(|&s| self.symbols.name(s)).collect(),
                act_chain: Vec::new(),
                lifetime_s: engine::scenario::AGENT_LIFETIME_S,
            };
            match tokens.mint(&grant, clock.epoch_ms) {
                Ok(t) => external.token = Some(t),
                Err(why) => {
                    let why = format!("cannot mint the agent's token: {why}");
                    self.problem(at!["agents", i, "external"], why);
                }
            }
        }
    }

    /// An external agent calls scripted agents under its own name: no caller may take it. Only
    /// scripted agents are served to it (`{agents.NAME.url}`), and only the driver's steps reach
    /// it (a scripted handler's delegation to it is refused here).
    pub(super) fn external_names(&mut self, agents: &[Agent], callers: &[Caller]) {
        let external = |ix: usize| agents[ix].external.is_some();
        for (i, a) in agents.iter().enumerate() {
            if let Some(e) = &a.external {
                let command = e.command.iter().map(|t| (None, t));
                let env = e.env.iter().map(|(k, v)| (Some(k), v));
                for (key, text) in command.chain(env) {
                    let Ok(found) = placeholders(text) else {
                        continue;
                    };
                    for p in found {
                        let named = p
                            .strip_prefix("agents.")
                            .and_then(|r| r.strip_suffix(".url"))
                            .and_then(|n| agents.iter().position(|a| a.name() == n));
                        if let Some(ix) = named.filter(|&ix| external(ix)) {
                            let path = match key {
                                Some(k) => at!["agents", i, "external", "env", k.as_str()],
                                None => at!["agents", i, "external", "command"],
                            };
                            self.problem(
                                path,
                                format!(
                                    "`{{{p}}}`: `{}` is a real agent, which a2a-sim does not serve; only scripted agents have a URL here",
                                    agents[ix].name()
                                ),
                            );
                        }
                    }
                }
            }
            let mut found = Vec::new();
            let handler = at!["agents", i, "handler"];
            delegations_to(&a.handler, &handler, &mut found);
            for (path, ix) in found.into_iter().filter(|&(_, ix)| external(ix)) {
                self.problem(
                    path,
                    format!(
                        "`{}` is a real agent: a scripted handler cannot delegate to it yet (only the driver's steps reach a real agent)",
                        agents[ix].name()
                    ),
                );
            }
        }
        for (i, c) in callers.iter().enumerate() {
            if agents
                .iter()
                .any(|a| a.external.is_some() && a.name() == c.id)
            {
                self.problem(
                    at!["callers", i],
                    format!(
                        "caller `{}` has the name of an external agent, which calls the scripted agents under that name; rename one of them",
                        c.id
                    ),
                );
            }
        }
    }
}

/// Every agent a handler names as a delegation target, with where it is named.
fn delegations_to(steps: &[HandlerStep], at: &[Seg], out: &mut Vec<(Vec<Seg>, usize)>) {
    for (k, step) in steps.iter().enumerate() {
        let here = [at, &[Seg::Index(k)]].concat();
        match step {
            HandlerStep::Delegate(d) => {
                if let Target::Agent(ix) = d.to {
                    let to = [Seg::from("delegate"), Seg::from("to")];
                    out.push(([&here[..], &to].concat(), ix));
                }
            }
            HandlerStep::FanOut(f) => {
                if let FanTargets::List(list) = &f.to {
                    for (j, t) in list.iter().enumerate() {
                        if let Target::Agent(ix) = t {
                            let to = [Seg::from("fan_out"), Seg::from("to"), Seg::Index(j)];
                            let path = [&here[..], &to].concat();
                            out.push((path, *ix));
                        }
                    }
                }
            }
            HandlerStep::When(w) => {
                delegations_to(&w.then, &[&here[..], &[Seg::from("then")]].concat(), out);
                delegations_to(
                    &w.otherwise,
                    &[&here[..], &[Seg::from("else")]].concat(),
                    out,
                );
            }
            _ => {}
        }
    }
}

/// The placeholders of an external agent's command or env: `{port}` and `{agents.NAME.url}`
/// (NAME a scripted agent). `{{` and `}}` are literal braces.
pub fn placeholders(text: &str) -> Result<Vec<&str>, String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(['{', '}']) {
        let after = &rest[open + 1..];
        if rest[open..].starts_with("{{") || rest[open..].starts_with("}}") {
            rest = &after[1..];
            continue;
        }
        if rest.as_bytes()[open] == b'}' {
            return Err(format!(
                "`{text}`: a `}}` without its `{{` (write `}}}}` for a literal brace)"
            ));
        }
        let Some(close) = after.find('}') else {
            return Err(format!(
                "`{text}`: a `{{` without its `}}` (write `{{{{` for a literal brace)"
            ));
        };
        found.push(&after[..close]);
        rest = &after[close + 1..];
    }
    Ok(found)
}

fn check_template(text: &str, names: &Names, no_token: Option<&str>) -> Result<(), String> {
    for p in placeholders(text)? {
        match p {
            "port" => {}
            "token" => {
                if let Some(why) = no_token {
                    return Err(why.into());
                }
            }
            _ => {
                let agent = p
                    .strip_prefix("agents.")
                    .and_then(|r| r.strip_suffix(".url"));
                match agent {
                    Some(name) if names.agents.contains_key(name) => {}
                    Some(name) => {
                        return Err(format!("`{{{p}}}` names no agent `{name}` of the scenario"));
                    }
                    None => {
                        return Err(format!(
                            "unknown placeholder `{{{p}}}`: use {{port}} or {{agents.NAME.url}}"
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::placeholders;

    #[test]
    fn placeholders_are_found_and_double_braces_are_literal() {
        assert_eq!(
            placeholders("http://x/{agents.kyc.url}?p={port}").unwrap(),
            ["agents.kyc.url", "port"]
        );
        assert_eq!(placeholders("{{literal}} {port}").unwrap(), ["port"]);
        assert!(placeholders("{port").is_err());
        assert!(placeholders("port}").is_err());
    }
}
