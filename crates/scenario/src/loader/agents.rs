//! Agents and callers: cards (inline or from a file), handlers' owners, caller contexts.

use crate::card_file;
use crate::file::*;
use engine::scenario::*;

use super::handlers::Scope;
use super::{Loader, Names};

impl Loader<'_> {
    /// The card of agent `i`: inline fields, or a card file's.
    pub(super) fn card(&mut self, i: usize, a: &AgentFile) -> Card {
        if let Some(card_path) = &a.card {
            for (key, present) in [
                ("description", a.description.is_some()),
                ("version", a.version.is_some()),
                ("url", a.url.is_some()),
                ("capabilities", a.capabilities.is_some()),
                ("skills", a.skills.is_some()),
            ] {
                if present {
                    self.problem(
                        at!["agents", i, key],
                        format!("`{key}` comes from the card file `{card_path}`; an agent with `card` adds only platform metadata and a handler"),
                    );
                }
            }
            let mut card = match card_file::read(&self.base.join(card_path)) {
                Ok(card) => card,
                Err(e) => {
                    self.problem(
                        at!["agents", i, "card"],
                        format!("card file `{card_path}`: {e}"),
                    );
                    return self.empty_card(a.name.clone().unwrap_or_default());
                }
            };
            if let Some(name) = &a.name
                && *name != card.name
            {
                self.problem(
                        at!["agents", i, "name"],
                        format!("agent `{name}` takes its card from `{card_path}`, whose name is `{}`; drop `name` or make them equal", card.name),
                    );
            }
            card.file = Some(card_path.clone());
            for skill in &mut card.skills {
                skill.tag_set = self.tag_set(&skill.tags);
            }
            return card;
        }
        let name = match &a.name {
            Some(n) if !n.is_empty() => n.clone(),
            Some(_) => {
                self.problem(at!["agents", i, "name"], "an agent name must not be empty");
                String::new()
            }
            None => {
                self.problem(at!["agents", i], "an agent needs `name` (or a `card` file)");
                String::new()
            }
        };
        let url = match &a.url {
            Some(u) => {
                if url::Url::parse(u).is_err() {
                    self.problem(
                        at!["agents", i, "url"],
                        format!("`{u}` is not an absolute URL"),
                    );
                }
                u.clone()
            }
            None => default_url(&name),
        };
        let caps = a.capabilities.as_ref();
        let mut skills = Vec::new();
        match &a.skills {
            // A real agent's card comes from the agent itself; skills here are for discovery.
            None if a.external.is_some() => {}
            None => self.problem(
                at!["agents", i],
                format!("agent `{name}` needs `skills` (at least one), or a `card` file"),
            ),
            Some(s) if s.is_empty() => self.problem(
                at!["agents", i, "skills"],
                "an agent needs at least one skill",
            ),
            Some(s) => {
                for (j, skill) in s.iter().enumerate() {
                    if skill.id.is_empty() {
                        self.problem(
                            at!["agents", i, "skills", j, "id"],
                            "a skill id must not be empty",
                        );
                    } else if s[..j].iter().any(|o| o.id == skill.id) {
                        self.problem(
                            at!["agents", i, "skills", j, "id"],
                            format!("duplicate skill id `{}` in agent `{name}`", skill.id),
                        );
                    }
                    if skill.tags.is_empty() {
                        self.problem(
                            at!["agents", i, "skills", j, "tags"],
                            "a skill needs at least one tag (A2A requires one, and discovery matches on them)",
                        );
                    }
                    let skill_name = skill.name.clone().unwrap_or_else(|| skill.id.clone());
                    skills.push(Skill {
                        id: skill.id.clone(),
                        description: skill
                            .description
                            .clone()
                            .unwrap_or_else(|| skill_name.clone()),
                        name: skill_name,
                        tags: skill.tags.clone(),
                        tag_set: self.tag_set(&skill.tags),
                    });
                }
            }
        }
        Card {
            name,
            description: a.description.clone().unwrap_or_default(),
            version: a.version.clone().unwrap_or_else(|| "1.0.0".to_string()),
            url,
            streaming: caps.and_then(|c| c.streaming).unwrap_or(true),
            push_notifications: caps.and_then(|c| c.push_notifications).unwrap_or(false),
            skills,
            source: None,
            file: None,
            bearer_scopes: None,
        }
    }

    fn empty_card(&self, name: String) -> Card {
        Card {
            url: default_url(&name),
            name,
            description: String::new(),
            version: String::new(),
            streaming: false,
            push_notifications: false,
            skills: Vec::new(),
            source: None,
            file: None,
            bearer_scopes: None,
        }
    }

    pub(super) fn agent(&mut self, i: usize, a: AgentFile, mut card: Card, names: &Names) -> Agent {
        let requires_token = a.requires_token.unwrap_or(false);
        // A card from a file says its own security; a generated card advertises the bearer JWT.
        if requires_token && card.source.is_none() {
            card.bearer_scopes = Some(a.required_scopes.clone());
        }
        let clearance = self.level(at!["agents", i, "clearance"], &a.clearance, names);
        let mut scope = Scope::default();
        self.templates = a.templates;
        let at = at!["agents", i, "handler"];
        let external = a
            .external
            .map(|e| Box::new(self.external(i, e, !a.handler.is_empty(), names)));
        let handler = self.handler(&at, a.handler, names, &mut scope);
        let results = scope.results.iter().map(|r| r.name.clone()).collect();
        self.results.push(scope.results);
        Agent {
            sym: self.symbols.intern(&card.name),
            card,
            tenant: self.symbols.intern(&a.tenant),
            clearance,
            required_scopes: self.syms(&a.required_scopes),
            scopes: self.syms(&a.scopes),
            authority: a.authority.map(authority),
            handler,
            results,
            requires_token,
            external,
        }
    }

    pub(super) fn caller(
        &mut self,
        i: usize,
        c: CallerFile,
        names: &Names,
        has_keys: bool,
    ) -> Caller {
        if let Some(token) = &c.token {
            return self.token_caller(i, &c, token, names, has_keys);
        }
        if c.name.is_some() {
            self.problem(
                at!["callers", i, "name"],
                "`name` is for a verified caller, with `token`; a caller given as parameters has `id`",
            );
        }
        let mut required = |key: &str, v: &Option<String>| {
            if v.is_none() {
                self.problem(
                    at!["callers", i],
                    format!("a caller needs `{key}` (or `name` and `token`: a verified caller)"),
                );
            }
        };
        required("id", &c.id);
        required("tenant", &c.tenant);
        required("classification", &c.classification);
        let id = c.id.clone().unwrap_or_default();
        let classification = match &c.classification {
            Some(l) => self.level(at!["callers", i, "classification"], l, names),
            None => 0,
        };
        for (j, id) in c.delegation_chain.iter().enumerate() {
            if id.is_empty() {
                self.problem(
                    at!["callers", i, "delegation_chain", j],
                    "a delegation chain entry must not be empty",
                );
            }
        }
        if c.id.as_deref() == Some("") {
            self.problem(at!["callers", i, "id"], "a caller id must not be empty");
        }
        Caller {
            sym: self.symbols.intern(&id),
            id,
            tenant: self.symbols.intern(c.tenant.as_deref().unwrap_or_default()),
            classification,
            scopes: self.syms(&c.scopes),
            delegation_chain: self.syms(&c.delegation_chain),
            token: None,
        }
    }
}

pub(super) fn authority(a: AuthorityFile) -> Authority {
    match a {
        AuthorityFile::Own => Authority::Own,
        AuthorityFile::Attenuate => Authority::Attenuate,
    }
}

/// The card URL of an agent that gives none: `https://a2a-sim.example/agents/NAME`.
pub fn default_url(name: &str) -> String {
    let mut url = url::Url::parse("https://a2a-sim.example/agents/").expect("a constant URL");
    if let Ok(mut segs) = url.path_segments_mut() {
        segs.pop_if_empty().push(name);
    }
    url.to_string()
}
