//! `check_delegation`: may this caller delegate to this card? Every denial, not the first.

pub use crate::caller_context::CallerContext;
use crate::chain::Chains;
pub use crate::codes::DenialCode;
use crate::scenario::{Agent, Scenario};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    pub code: DenialCode,
    /// Boxed to its length: a large run records tens of thousands, and a formatted `String`
    /// keeps room to spare.
    pub detail: Box<str>,
}

/// All applicable denials, in the order of [`DenialCode::ALL`]. Empty means admitted.
/// The checks are independent, so a caller learns every problem in one round trip.
pub fn check_delegation(
    caller: &CallerContext,
    card: &Agent,
    scenario: &Scenario,
    chains: &Chains,
) -> Vec<Denial> {
    let mut denials = Vec::new();
    let names = &scenario.symbols;
    let callee = card.sym;
    if callee == caller.agent_id || chains.contains(caller.delegation_chain, callee) {
        denials.push(Denial {
            code: DenialCode::Cycle,
            detail: format!(
                "`{}` is already in the delegation chain",
                names.name(callee)
            )
            .into(),
        });
    }
    // `>=`: the limit counts hops of the new task's chain, so max_depth 4 admits a chain of 3.
    let new_len = u64::from(chains.len(caller.delegation_chain)) + 1;
    if new_len >= scenario.policy.max_depth {
        denials.push(Denial {
            code: DenialCode::Depth,
            detail: format!(
                "the new task's chain would be {new_len} long; max_depth is {}",
                scenario.policy.max_depth
            )
            .into(),
        });
    }
    if card.tenant != caller.tenant {
        denials.push(Denial {
            code: DenialCode::Tenant,
            detail: format!(
                "`{}` serves tenant `{}`, the caller is of tenant `{}`",
                card.name(),
                names.name(card.tenant),
                names.name(caller.tenant)
            )
            .into(),
        });
    }
    // The card must be cleared at least as high as the data; `<` the other way round would invert it.
    if card.clearance < caller.classification {
        denials.push(Denial {
            code: DenialCode::Classification,
            detail: format!(
                "`{}` is cleared for `{}`, the data is `{}`",
                card.name(),
                scenario.levels[card.clearance],
                scenario.levels[caller.classification]
            )
            .into(),
        });
    }
    let lacks = |s: &&crate::symbols::Sym| !caller.scopes.contains(s);
    if card.required_scopes.iter().any(|s| lacks(&s)) {
        let missing: Vec<&str> = card
            .required_scopes
            .iter()
            .filter(lacks)
            .map(|&s| names.name(s))
            .collect();
        let list = missing
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ");
        denials.push(Denial {
            code: DenialCode::Scope,
            detail: format!("missing scope {list}").into(),
        });
    }
    denials
}
