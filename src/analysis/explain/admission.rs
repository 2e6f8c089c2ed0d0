//! The five admission checks and the push-URL check, each with the values it compared.

use serde_json::{Value, json};
use url::{Host, Url};

use crate::engine::CallerContext;
use crate::engine::record::Chains;
use crate::engine::record::DenialCode;
use crate::engine::scenario::{Agent, HostPattern, Scenario};

/// One check: what it compared and its verdict.
pub struct Check {
    pub name: &'static str,
    pub compared: String,
    pub passed: bool,
}

impl Check {
    pub fn json(&self) -> Value {
        json!({
            "check": self.name,
            "compared": self.compared,
            "verdict": verdict(self.passed),
        })
    }

    pub fn line(&self) -> String {
        format!(
            "{:<15} {} → {}",
            format!("{}:", self.name),
            self.compared,
            verdict(self.passed)
        )
    }
}

pub fn verdict(passed: bool) -> &'static str {
    if passed { "admitted" } else { "denied" }
}

fn list(items: impl IntoIterator<Item = impl AsRef<str>>) -> String {
    let v: Vec<String> = items.into_iter().map(|s| s.as_ref().to_string()).collect();
    format!("[{}]", v.join(", "))
}

/// The checks of `check_delegation`, in its report order, restated with their operands.
/// `denied_codes` of the result always equals the codes `check_delegation` returns (a test pins it).
pub fn admission(
    caller: &CallerContext,
    card: &Agent,
    scenario: &Scenario,
    chains: &Chains,
) -> Vec<Check> {
    let names = &scenario.symbols;
    let callee = card.name();
    let chain: Vec<&str> = chains
        .to_vec(caller.delegation_chain)
        .iter()
        .map(|&s| names.name(s))
        .collect();
    let me = names.name(caller.agent_id);
    let is_self = card.sym == caller.agent_id;
    let in_chain = chains.contains(caller.delegation_chain, card.sym);
    let cycle = if is_self {
        format!("`{callee}` is the caller itself")
    } else if in_chain {
        format!("`{callee}` is in the caller's chain {}", list(&chain))
    } else {
        format!(
            "`{callee}` is neither the caller `{me}` nor in its chain {}",
            list(&chain)
        )
    };
    let len = u64::from(chains.len(caller.delegation_chain));
    let max = scenario.policy.max_depth;
    let depth_ok = len + 1 < max;
    let depth = format!(
        "chain of {len} + 1 hop = {} {} max_depth {max}",
        len + 1,
        if depth_ok { "<" } else { "≥" }
    );
    let tenant_ok = card.tenant == caller.tenant;
    let tenant = format!(
        "card tenant `{}` {} caller tenant `{}`",
        names.name(card.tenant),
        if tenant_ok { "=" } else { "≠" },
        names.name(caller.tenant)
    );
    let class_ok = card.clearance >= caller.classification;
    let class = format!(
        "card cleared `{}` (rank {}) {} data `{}` (rank {})",
        scenario.levels[card.clearance],
        card.clearance,
        if class_ok { "≥" } else { "<" },
        scenario.levels[caller.classification],
        caller.classification
    );
    let missing: Vec<&str> = card
        .required_scopes
        .iter()
        .filter(|s| !caller.scopes.contains(s))
        .map(|&s| names.name(s))
        .collect();
    let required: Vec<&str> = card
        .required_scopes
        .iter()
        .map(|&s| names.name(s))
        .collect();
    let held: Vec<&str> = caller.scopes.iter().map(|&s| names.name(s)).collect();
    let scope = if missing.is_empty() {
        format!("requires {}, caller holds {}", list(&required), list(&held))
    } else {
        format!(
            "requires {}, caller holds {}: missing {}",
            list(&required),
            list(&held),
            list(&missing)
        )
    };
    vec![
        Check {
            name: DenialCode::Cycle.as_str(),
            compared: cycle,
            passed: !is_self && !in_chain,
        },
        Check {
            name: DenialCode::Depth.as_str(),
            compared: depth,
            passed: depth_ok,
        },
        Check {
            name: DenialCode::Tenant.as_str(),
            compared: tenant,
            passed: tenant_ok,
        },
        Check {
            name: DenialCode::Classification.as_str(),
            compared: class,
            passed: class_ok,
        },
        Check {
            name: DenialCode::Scope.as_str(),
            compared: scope,
            passed: missing.is_empty(),
        },
    ]
}

pub fn denied_codes(checks: &[Check]) -> Vec<&'static str> {
    checks
        .iter()
        .filter(|c| !c.passed)
        .map(|c| c.name)
        .collect()
}

pub fn pattern_text(p: &HostPattern) -> String {
    match p {
        HostPattern::Exact(h) => h.clone(),
        HostPattern::AnySubdomainOf(s) => format!("*.{s}"),
    }
}

/// The push-URL check of `set_push_config` (semantics §6): the host the parser produced and
/// the rule that decided. Agrees with `check_push_url` (a test pins it).
pub struct UrlCheck {
    pub host: Option<String>,
    pub rule: String,
    pub passed: bool,
}

pub fn push_url(raw: &str, allowed: &[HostPattern]) -> UrlCheck {
    let fail = |host: Option<String>, rule: String| UrlCheck {
        host,
        rule,
        passed: false,
    };
    let url = match Url::parse(raw) {
        Ok(u) => u,
        Err(e) => return fail(None, format!("the URL does not parse ({e})")),
    };
    let host = url.host().map(|h| h.to_string());
    if url.scheme() != "https" {
        return fail(host, format!("scheme `{}` is not https", url.scheme()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return fail(host, "the URL carries a user name or password".into());
    }
    match url.host() {
        Some(Host::Domain(_)) => {}
        Some(_) => return fail(host, "the host is an IP address, not a host name".into()),
        None => return fail(host, "the URL has no host".into()),
    }
    let h = host.clone().unwrap_or_default();
    match allowed.iter().find(|p| p.matches(&h)) {
        Some(p) => UrlCheck {
            host,
            rule: match p {
                HostPattern::Exact(_) => {
                    format!("`{h}` equals the allowed host `{}`", pattern_text(p))
                }
                HostPattern::AnySubdomainOf(_) => {
                    format!("`{h}` is a subdomain of the allowed `{}`", pattern_text(p))
                }
            },
            passed: true,
        },
        None => fail(
            host,
            format!(
                "`{h}` matches no entry of policy.push_allowed_hosts {}",
                list(allowed.iter().map(pattern_text))
            ),
        ),
    }
}
