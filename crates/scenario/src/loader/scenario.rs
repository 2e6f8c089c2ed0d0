//! The whole scenario from its file, part by part in the order their references need: the
//! settings and keys, every agent's name before any handler is read, callers, steps (a chunk at a
//! time), `expect` entries and faults.

use crate::file::*;
use engine::scenario::*;

use super::{Loader, Names};

impl Loader<'_> {
    pub(super) fn scenario(&mut self, file: ScenarioFile, default_name: String) -> Scenario {
        let levels = self.levels(file.classification_levels);
        let delivery = self.push_delivery(file.policy.push_delivery.clone());
        let token_policy = file.policy.token;
        // A signing key named (even one that failed to load, which is its own error): the
        // faults that break a signature need one.
        let signing_named = file.policy.card_signing_key.is_some();
        let card_keys = self.card_keys(file.policy.card_signing_key, file.policy.card_keys);
        let mut policy = self.policy(PolicyFile {
            token: None,
            card_signing_key: None,
            card_keys: None,
            ..file.policy
        });
        policy.authority_keys |= file.agents.iter().flatten().any(|a| a.authority.is_some());
        self.no_agent_token = match (&file.keys, &token_policy) {
            (None, _) => Some(
                "`{token}` is the token a2a-sim mints for the agent's calls: the scenario needs `keys` and `policy.token` (with a `platform_key` to sign it)",
            ),
            (Some(_), Some(p)) if p.platform_key.is_some() => None,
            (Some(_), _) => Some(
                "`{token}` is signed with the platform's key: add `policy.token.platform_key` (a private Ed25519 JWK)",
            ),
        };
        let tokens = self.tokens(file.keys, token_policy);
        let clock = self.clock(file.clock);
        let names = Names::new(&levels);

        // Every agent's name first, so a handler may delegate to an agent declared after it.
        let mut names = names;
        let file_agents = file.agents.unwrap_or_default();
        let mut cards = Vec::with_capacity(file_agents.len());
        for (i, a) in file_agents.iter().enumerate() {
            let card = self.card(i, a);
            self.card_signatures(i, &card, &card_keys);
            if !card.name.is_empty() {
                if names.agents.contains_key(&card.name) {
                    let at = if a.name.is_some() {
                        at!["agents", i, "name"]
                    } else {
                        at!["agents", i, "card"]
                    };
                    self.problem(
                        at,
                        format!(
                            "duplicate agent name `{}`: agent names are unique",
                            card.name
                        ),
                    );
                } else {
                    names.agents.insert(card.name.clone(), i);
                }
            }
            cards.push(card);
        }
        let mut agents = Vec::with_capacity(cards.len());
        for ((i, a), card) in file_agents.into_iter().enumerate().zip(cards) {
            agents.push(self.agent(i, a, card, &names));
        }
        if let Some(tokens) = &tokens {
            self.agent_tokens(&mut agents, tokens.as_ref(), &levels, &clock);
        }

        let file_callers = file.callers.unwrap_or_default();
        let mut callers = Vec::with_capacity(file_callers.len());
        for (i, c) in file_callers.into_iter().enumerate() {
            let (key, id) = match (&c.name, &c.id) {
                (Some(n), _) if c.token.is_some() => ("name", n.clone()),
                (_, Some(id)) => ("id", id.clone()),
                _ => ("id", String::new()),
            };
            match names.callers.entry(id) {
                std::collections::hash_map::Entry::Occupied(e) => self.problem(
                    at!["callers", i, key],
                    format!(
                        "duplicate caller {key} `{}`: caller names are unique",
                        e.key()
                    ),
                ),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(i);
                }
            }
            callers.push(self.caller(i, c, &names, tokens.is_some()));
        }
        self.token_identities(&callers);
        self.external_names(&agents, &callers);

        let file_steps = file.steps.unwrap_or_default();
        // Sized once: growing a table of 50,000 aliases rehashes it 15 times.
        let defined = file_steps
            .iter()
            .filter(|s| matches!(s, StepFile::Send(x) | StepFile::Stream(x) if x.alias.is_some()))
            .count();
        names.aliases.reserve(defined);
        let mut aliases = engine::scenario::NameList::with_capacity(defined);
        let mut alias_steps = Vec::with_capacity(defined);
        let mut steps = Vec::with_capacity(file_steps.len());
        // Each chunk of the file's steps is freed once converted: the file's steps and the
        // engine's are never both whole at once (on 100,000 steps that was 24 MiB of the loading
        // peak).
        let mut i = 0;
        for chunk in file_steps.into_chunks() {
            for s in chunk {
                steps.push(self.step(i, s, &mut names, &mut aliases));
                i += 1;
                alias_steps.resize(aliases.len(), engine::scenario::ix32(i));
            }
        }
        aliases.shrink_to_fit();
        let expect = file.expect.unwrap_or_default();
        let golden = file.golden.unwrap_or(true);
        if !golden && expect.is_empty() {
            self.problem(
                at!["golden"],
                "`golden: false` means `test` checks the `expect` entries alone, so it needs at least one `expect` entry",
            );
        }
        let (expectations, always) = expect
            .into_iter()
            .enumerate()
            .filter_map(|(i, e)| self.expectation(i, e, &names, &alias_steps, &steps))
            .unzip();
        let faults = self.faults(file.faults, delivery, &policy, &names, signing_named);

        Scenario {
            directory: engine::scenario::Directory::new(&agents),
            name: file.name.unwrap_or(default_name),
            policy,
            levels,
            clock,
            agents,
            callers,
            steps,
            aliases,
            alias_steps,
            expectations,
            expectation_sites: Vec::new(),
            always,
            golden,
            faults,
            overrides: Vec::new(),
            symbols: std::mem::take(&mut self.symbols),
            tokens,
            card_signer: card_keys.signer.map(|key| {
                Box::new(token::card::CardSigner { key }) as Box<dyn engine::scenario::CardSigning>
            }),
        }
    }
}
