//! The seam to verified callers: the engine asks a [`Tokens`] service to verify a caller's token
//! or to mint one for a nested hop, and reads the caller context from the claims it gets back.
//! No crypto here: the service lives at the edge (`crate::token`) and the loader hands it in.

use std::fmt;

/// What a verified token says, as the engine needs it. The token itself is never kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedToken {
    pub iss: String,
    pub sub: String,
    pub kid: String,
    /// Seconds since the Unix epoch.
    pub exp: i64,
    pub tenant: Option<String>,
    pub classification: Option<String>,
    /// The `scope` claim, split on spaces.
    pub scope: Vec<String>,
    /// The `act` claim (RFC 8693 §4.1) flattened, earliest actor first: the caller's own chain.
    pub act_chain: Vec<String>,
}

/// What a minted nested-hop token carries (RFC 8693 token exchange: `sub` delegates, `act` is the
/// chain so far).
#[derive(Debug, Clone)]
pub struct Grant<'a> {
    pub sub: &'a str,
    pub tenant: &'a str,
    pub classification: &'a str,
    pub scope: Vec<&'a str>,
    /// Earliest actor first.
    pub act_chain: Vec<&'a str>,
    /// Seconds from the moment it is minted until it expires.
    pub lifetime_s: i64,
}

/// The lifetime of a token the platform mints for a nested hop, in seconds.
pub const NESTED_LIFETIME_S: i64 = 300;

/// The lifetime of the token a real agent is given for its own calls (`{token}`): minted at
/// tick 0, it lasts the whole run (thirty days of scenario time).
pub const AGENT_LIFETIME_S: i64 = 30 * 86_400;

/// Verifies and mints tokens against the scenario clock (`now_ms`: milliseconds since the Unix
/// epoch of the request's moment). A refusal is a sentence saying which check failed; it never
/// contains the token.
pub trait Tokens: fmt::Debug + Send + Sync {
    fn verify(&self, token: &str, now_ms: i64) -> Result<VerifiedToken, String>;
    /// A token for a nested hop, or why none can be minted (no platform key).
    fn mint(&self, grant: &Grant, now_ms: i64) -> Result<String, String>;
}

/// Signs the agent cards a scenario with `policy.card_signing_key` serves and prints (A2A §8.4).
/// The key and the crypto live at the edge (`crate::token`'s caller hands it in); the engine only
/// carries it to the places that issue cards.
pub trait CardSigning: fmt::Debug + Send + Sync {
    /// Replaces the card's `signatures` with this key's signature over the rest of it.
    fn sign(&self, card: &mut serde_json::Value) -> Result<(), String>;
}
