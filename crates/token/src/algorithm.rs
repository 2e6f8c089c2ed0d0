//! The algorithms a token may name, as data: each with its key family. `none` is absent by
//! construction, so no allow-list can contain it.

use jsonwebtoken::Algorithm;

/// A JOSE key type (`kty`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `oct`: a shared secret.
    Hmac,
    Rsa,
    Ec,
    /// `OKP` with `crv: Ed25519`.
    Okp,
}

impl Family {
    pub fn kty(self) -> &'static str {
        match self {
            Family::Hmac => "oct",
            Family::Rsa => "RSA",
            Family::Ec => "EC",
            Family::Okp => "OKP",
        }
    }

    pub fn of_kty(kty: &str) -> Option<Family> {
        TABLE.iter().map(|a| a.family).find(|f| f.kty() == kty)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alg {
    pub name: &'static str,
    pub family: Family,
    pub jwt: Algorithm,
}

/// Every algorithm a scenario may allow.
pub const TABLE: [Alg; 12] = [
    alg("EdDSA", Family::Okp, Algorithm::EdDSA),
    alg("RS256", Family::Rsa, Algorithm::RS256),
    alg("RS384", Family::Rsa, Algorithm::RS384),
    alg("RS512", Family::Rsa, Algorithm::RS512),
    alg("PS256", Family::Rsa, Algorithm::PS256),
    alg("PS384", Family::Rsa, Algorithm::PS384),
    alg("PS512", Family::Rsa, Algorithm::PS512),
    alg("ES256", Family::Ec, Algorithm::ES256),
    alg("ES384", Family::Ec, Algorithm::ES384),
    alg("HS256", Family::Hmac, Algorithm::HS256),
    alg("HS384", Family::Hmac, Algorithm::HS384),
    alg("HS512", Family::Hmac, Algorithm::HS512),
];

/// The allow-list when `policy.token.algorithms` is not given: asymmetric only.
pub const DEFAULT_ALLOWED: [&str; 3] = ["EdDSA", "ES256", "RS256"];

const fn alg(name: &'static str, family: Family, jwt: Algorithm) -> Alg {
    Alg { name, family, jwt }
}

impl Alg {
    pub fn parse(name: &str) -> Option<Alg> {
        TABLE.iter().copied().find(|a| a.name == name)
    }

    pub fn names() -> impl Iterator<Item = &'static str> {
        TABLE.iter().map(|a| a.name)
    }
}
