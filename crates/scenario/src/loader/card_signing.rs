//! Signed agent cards at load (A2A §8.4): `policy.card_signing_key` (a private JWK whose problems
//! are located in its own file), `policy.card_keys` (a JWKS), and the signatures of `card` files,
//! which must verify with those keys.

use token::Family;
use token::card::{self, Check};
use token::{KeySet, PrivateKey};

use engine::scenario::Card;

use super::Loader;

/// The keys a scenario signs and checks cards with.
#[derive(Default)]
pub(super) struct CardKeys {
    pub signer: Option<PrivateKey>,
    /// `policy.card_keys`, plus the signer's public half.
    pub trusted: KeySet,
    /// Whether `policy.card_keys` was given (for what an error tells to add).
    pub listed: bool,
}

impl Loader<'_> {
    pub(super) fn card_keys(&mut self, signing: Option<String>, keys: Option<String>) -> CardKeys {
        let mut out = CardKeys::default();
        if let Some(name) = keys {
            out.listed = true;
            if let Some((display, text, doc)) = self.key_file(at!["policy", "card_keys"], &name) {
                match KeySet::from_jwks(&doc) {
                    Ok(set) => out.trusted = set,
                    Err(errors) => self.key_errors(&display, &text, &[], errors),
                }
            }
        }
        if let Some(name) = signing {
            let at = at!["policy", "card_signing_key"];
            if let Some((display, text, doc)) = self.key_file(at.clone(), &name) {
                match PrivateKey::from_jwk(&doc, true) {
                    Ok(k) if k.alg.family == Family::Hmac => self.problem(
                        at,
                        "a card signing key is a private EC, RSA or Ed25519 (`OKP`) JWK: clients verify a card with the public half, and a shared secret (`oct`) has none to publish",
                    ),
                    Ok(k) => out.signer = Some(k),
                    Err(e) => self.key_errors(&display, &text, &[], vec![e]),
                }
            }
        }
        if let Some(k) = &out.signer {
            out.trusted.add_public(k);
        }
        out
    }

    /// A card file that carries `signatures` must verify: at least one signature with a key of
    /// `keys`, and none malformed.
    pub(super) fn card_signatures(&mut self, i: usize, card: &Card, keys: &CardKeys) {
        let Some(source) = card
            .source
            .as_ref()
            .filter(|s| s.get(card::SIGNATURES).is_some())
        else {
            return;
        };
        let file = card.file.as_deref().unwrap_or_default();
        let at = at!["agents", i, "card"];
        let checks = match card::verify(source, &keys.trusted) {
            Ok(checks) => checks,
            Err(e) => {
                self.problem(at, format!("card file `{file}`: {e}"));
                return;
            }
        };
        if card::trusted(&checks) {
            return;
        }
        let mut unknown = Vec::new();
        for (n, c) in checks.iter().enumerate() {
            match c {
                Check::Malformed { why } => {
                    return self.problem(
                        at,
                        format!(
                            "card file `{file}`: signature {} is malformed: {why}",
                            n + 1
                        ),
                    );
                }
                Check::Invalid { kid, why } => {
                    return self.problem(
                        at,
                        format!(
                            "card file `{file}`: signature {} (kid `{kid}`) does not verify: {why}",
                            n + 1
                        ),
                    );
                }
                Check::UnknownKey { kid } => unknown.push(format!("`{kid}`")),
                Check::Verified { .. } => {}
            }
        }
        let kids = unknown.join(", ");
        let msg = if keys.listed {
            format!(
                "card file `{file}` is signed with kid {kids}, which no key of `policy.card_keys` has: add the signer's public JWK to that JWKS"
            )
        } else {
            format!(
                "card file `{file}` is signed (kid {kids}) and this scenario has no key to check it with: add `policy.card_keys: FILE`, a JWKS holding the signer's public key"
            )
        };
        self.problem(at, msg);
    }
}
