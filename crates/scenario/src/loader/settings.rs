//! The scenario-wide settings: classification levels, `policy` (depth, push hosts, authority)
//! and the clock, each with its default when the file gives none.

use crate::file::*;
use engine::parse_rfc3339;
use engine::scenario::*;

use super::{Loader, agents};

impl Loader<'_> {
    pub(super) fn levels(&mut self, levels: Option<Vec<String>>) -> Vec<String> {
        let Some(levels) = levels else {
            return DEFAULT_LEVELS.map(String::from).to_vec();
        };
        if levels.is_empty() {
            self.problem(
                at!["classification_levels"],
                "classification_levels needs at least one level",
            );
        }
        for (i, l) in levels.iter().enumerate() {
            if l.is_empty() {
                self.problem(
                    at!["classification_levels", i],
                    "a classification level needs a name",
                );
            } else if levels[..i].contains(l) {
                self.problem(
                    at!["classification_levels", i],
                    format!("duplicate classification level `{l}`"),
                );
            }
        }
        levels
    }

    pub(super) fn policy(&mut self, p: PolicyFile) -> Policy {
        let max_depth = match p.max_depth {
            None => DEFAULT_MAX_DEPTH,
            Some(d) if d >= 1 => d as u64,
            Some(d) => {
                self.problem(
                    at!["policy", "max_depth"],
                    format!("max_depth must be at least 1, not {d}"),
                );
                DEFAULT_MAX_DEPTH
            }
        };
        let mut push_allowed_hosts = Vec::new();
        for (i, h) in p.push_allowed_hosts.unwrap_or_default().iter().enumerate() {
            match HostPattern::parse(h) {
                Ok(pattern) => push_allowed_hosts.push(pattern),
                Err(e) => self.problem(at!["policy", "push_allowed_hosts", i], e),
            }
        }
        Policy {
            max_depth,
            push_allowed_hosts,
            authority: p.authority.map_or(Authority::Own, agents::authority),
            authority_keys: p.authority.is_some(),
            loopback_push: false,
        }
    }

    pub(super) fn clock(&mut self, c: Option<ClockFile>) -> Clock {
        let mut clock = Clock {
            epoch_ms: parse_rfc3339(DEFAULT_EPOCH).unwrap_or(0),
            tick_ms: DEFAULT_TICK_MS,
        };
        let Some(c) = c else { return clock };
        if let Some(e) = c.epoch {
            match parse_rfc3339(&e) {
                Some(ms) => clock.epoch_ms = ms,
                None => self.problem(
                    at!["clock", "epoch"],
                    format!("`{e}` is not an RFC 3339 timestamp such as 2026-01-01T00:00:00Z"),
                ),
            }
        }
        match c.tick_ms {
            None => {}
            Some(t) if t >= 0 => clock.tick_ms = t as u64,
            Some(t) => self.problem(
                at!["clock", "tick_ms"],
                format!("tick_ms must be 0 or more, not {t}"),
            ),
        }
        clock
    }
}
