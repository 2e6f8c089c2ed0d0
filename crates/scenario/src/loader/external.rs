//! `external:` on an agent: a real A2A agent, started from a command or reached at a URL. Only
//! checked here; starting and calling it is the edge's work.

use crate::file::ExternalFile;
use engine::scenario::{Agent, Caller, External};

use super::{Loader, Names};

/// The seconds to wait for a started agent's card when the file does not say.
pub const READY_TIMEOUT_S: u64 = 30;

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
        let templated = e.command.iter().flatten().map(|a| (None, a));
        let in_env = e.env.iter().map(|(k, v)| (Some(k), v));
        for (key, text) in templated.chain(in_env).collect::<Vec<_>>() {
            if let Err(why) = check_template(text, names) {
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
            // A file named without a folder is in the current one.
            dir: match self.base.as_os_str().is_empty() {
                true => std::path::PathBuf::from("."),
                false => self.base.to_path_buf(),
            },
        }
    }

    /// An external agent calls scripted agents under its own name: no caller may take it.
    pub(super) fn external_names(&mut self, agents: &[Agent], callers: &[Caller]) {
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

/// The placeholders of an external agent's command or env: `{port}`, `{token}` and
/// `{agents.NAME.url}` (NAME a scripted agent). `{{` and `}}` are literal braces.
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

fn check_template(text: &str, names: &Names) -> Result<(), String> {
    for p in placeholders(text)? {
        match p {
            "port" | "token" => {}
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
                            "unknown placeholder `{{{p}}}`: use {{port}}, {{token}} or {{agents.NAME.url}}"
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
        assert_eq!(placeholders("{{literal}} {token}").unwrap(), ["token"]);
        assert!(placeholders("{port").is_err());
        assert!(placeholders("port}").is_err());
    }
}
