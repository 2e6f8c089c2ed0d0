//! The scenario's rules for the whole run: its policy (depth, push hosts, tokens, authority) and
//! its clock.

use crate::push::HostPattern;

#[derive(Debug)]
pub struct Policy {
    pub max_depth: u64,
    pub push_allowed_hosts: Vec<HostPattern>,
    /// `policy.authority`: the scopes a nested delegation carries (authority.md §1).
    pub authority: Authority,
    /// Whether the file has any `authority` key: only then does the report show `scopes` and
    /// `amplified` (the compatibility rule).
    pub authority_keys: bool,
    /// `serve --allow-loopback-push`: push URLs on 127.0.0.1 / localhost (http or https) are
    /// admitted without the allow-list. Never set by a scenario file.
    pub loopback_push: bool,
}

/// Which scopes a nested caller context carries (authority.md §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Authority {
    /// The delegating agent's own scopes: a service identity (the default, and the rule before
    /// authority was modelled).
    #[default]
    Own,
    /// The delegating agent's scopes ∩ the incoming context's: authority only shrinks.
    Attenuate,
}

#[derive(Debug, Clone, Copy)]
pub struct Clock {
    /// Milliseconds since the Unix epoch of tick 0.
    pub epoch_ms: i64,
    pub tick_ms: u64,
}

impl Clock {
    pub fn millis(&self, tick: u64) -> i64 {
        self.epoch_ms
            .saturating_add((tick.saturating_mul(self.tick_ms)).min(i64::MAX as u64) as i64)
    }
}
