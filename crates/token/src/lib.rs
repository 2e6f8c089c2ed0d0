//! Verified callers and signed agent cards: JWKS keys, JWT verification against the scenario
//! clock, the platform's minting of nested-hop tokens (RFC 8693 actor chains), and the JWS
//! signatures of agent cards (A2A §8.4, [`card`]). The only crate that touches crypto, all of it
//! through `jsonwebtoken` (and `serde_jcs` for the canonical form); the engine sees it through
//! [`engine::scenario::Tokens`] and [`engine::scenario::CardSigning`]. Depends on the engine only.

mod algorithm;
pub mod card;
mod check;
mod keys;
mod mint;

use engine::scenario::{Grant, Tokens, VerifiedToken};

pub use algorithm::{Alg, DEFAULT_ALLOWED, Family};
pub use check::{Check, Inspection, Verdict, inspect, unverified_claims, verify};
pub use keys::{KeyError, KeySet, PrivateKey};
pub use mint::{act_claim, sign};

pub use engine::scenario::{AGENT_LIFETIME_S, NESTED_LIFETIME_S};

/// `policy.token`: who may issue callers' tokens, for whom, with which algorithms.
#[derive(Debug, Clone)]
pub struct TokenPolicy {
    /// `iss` must equal this (`None`: not checked, as `token inspect` does without `--iss`).
    pub issuer: Option<String>,
    /// `aud` (a string or a list) must contain this.
    pub audience: Option<String>,
    /// The allow-list, data: never `none` (it is not an [`Alg`] at all).
    pub algorithms: Vec<Alg>,
    pub leeway_ms: i64,
}

/// The verifier and minter a scenario with `keys` runs with.
#[derive(Debug)]
pub struct TokenService {
    pub keys: KeySet,
    pub policy: TokenPolicy,
    /// `policy.token.platform_key`: signs the nested hops' tokens.
    pub platform: Option<PrivateKey>,
}

impl TokenService {
    /// A service whose key set also holds the platform key's public half, so its minted tokens
    /// verify like any other.
    pub fn new(mut keys: KeySet, policy: TokenPolicy, platform: Option<PrivateKey>) -> Self {
        if let Some(p) = &platform {
            keys.add_public(p);
        }
        TokenService {
            keys,
            policy,
            platform,
        }
    }
}

impl Tokens for TokenService {
    fn verify(&self, token: &str, now_ms: i64) -> Result<VerifiedToken, String> {
        check::verify(token, Some(&self.keys), &self.policy, now_ms)
    }

    fn mint(&self, grant: &Grant, now_ms: i64) -> Result<String, String> {
        let Some(key) = &self.platform else {
            return Err(
                "the platform holds no signing key (`policy.token.platform_key`) to mint a token for this hop"
                    .to_string(),
            );
        };
        let now = now_ms.div_euclid(1000);
        let claims = mint::exchange_claims(
            grant,
            self.policy.issuer.as_deref().unwrap_or("a2a-sim"),
            self.policy.audience.as_deref(),
            now,
            now + grant.lifetime_s,
        );
        mint::sign(key, &claims)
    }
}
