//! The signatures of the cards a2a-sim issues (A2A §8.4): with `policy.card_signing_key`, every
//! served and printed card carries exactly one, the scenario's; the crypto is the token crate's,
//! handed in through [`engine::scenario::CardSigning`].

use serde_json::{Value, json};

use engine::scenario::Scenario;

/// The member a card carries its signatures in.
pub const SIGNATURES: &str = "signatures";

/// What `tampered_card` appends to the description of the card it serves, after signing.
pub const TAMPERED: &str = " (changed after signing: the tampered_card fault)";

/// Gives `agent`'s card its signatures. `served`: the card `serve` answers with, whose interfaces
/// are the server's, so a card file's own signatures (which covered the file's) are dropped; and
/// a `tampered_card` fault changes it after signing, so its signature no longer verifies. A card
/// `card` prints is signed the same way, and is never tampered with.
pub fn issue(
    scenario: &Scenario,
    agent: usize,
    card: &mut Value,
    served: bool,
) -> Result<(), String> {
    if served && let Some(obj) = card.as_object_mut() {
        obj.remove(SIGNATURES);
    }
    let Some(signer) = &scenario.card_signer else {
        return Ok(());
    };
    signer.sign(card)?;
    if served && scenario.faults.tampered_card(agent) {
        tamper(card);
    }
    Ok(())
}

/// A change to a signed card that its signature does not cover: the description grows.
pub fn tamper(card: &mut Value) {
    let description = card
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let changed = format!("{description}{TAMPERED}");
    if let Some(obj) = card.as_object_mut() {
        obj.insert("description".into(), json!(changed));
    }
}
