//! Card files converted between A2A versions: a capability at its default converts by omission,
//! one the other version cannot say is dropped with a warning naming it, never a refused card.

use crate::common::binary::{a2a_sim_in, scratch};

/// A real 0.3 card as SDKs write it, with `stateTransitionHistory` set.
fn card_0_3(history: bool, extended: bool) -> String {
    format!(
        r#"{{
  "protocolVersion": "0.3.0",
  "name": "kyc",
  "description": "Checks customers",
  "url": "http://127.0.0.1:9000/",
  "preferredTransport": "JSONRPC",
  "version": "1.0.0",
  "capabilities": {{"streaming": true, "pushNotifications": false, "stateTransitionHistory": {history}}},
  "supportsAuthenticatedExtendedCard": {extended},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["application/json"],
  "skills": [{{"id": "kyc", "name": "KYC", "description": "Checks a customer", "tags": ["kyc"]}}]
}}"#
    )
}

const SCENARIO: &str = "agents:\n  - card: kyc.json\n    tenant: acme\n    clearance: internal\n    handler: [working, completed]\ncallers:\n  - {id: u, tenant: acme, classification: public}\nsteps:\n  - send: {caller: u, to: kyc, text: hi}\n";

fn card(name: &str, card: &str, version: &str) -> (i32, serde_json::Value, String) {
    let dir = scratch(name);
    std::fs::write(dir.join("kyc.json"), card).unwrap();
    std::fs::write(dir.join("s.yaml"), SCENARIO).unwrap();
    let r = a2a_sim_in(
        &dir,
        &["card", "s.yaml", "kyc", "--a2a-version", version],
        None,
    );
    let doc = serde_json::from_str(&r.stdout).unwrap_or_default();
    (r.status, doc, r.stderr)
}

#[test]
fn a_capability_at_its_default_converts_by_omission() {
    let (status, doc, stderr) = card("card-default-cap", &card_0_3(false, false), "1.0");
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(stderr, "");
    assert_eq!(
        doc["capabilities"],
        serde_json::json!({"streaming": true, "pushNotifications": false})
    );
}

#[test]
fn a_capability_with_no_equivalent_is_dropped_with_a_warning_naming_it() {
    let (status, doc, stderr) = card("card-dropped-cap", &card_0_3(true, false), "1.0");
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(
        stderr,
        "warning: s.yaml: agent `kyc`: `capabilities.stateTransitionHistory` has no equivalent in A2A 1.0: dropped\n"
    );
    assert!(doc["capabilities"].get("stateTransitionHistory").is_none());
    assert_eq!(doc["name"], "kyc");
}

#[test]
fn the_extended_card_flag_moves_between_its_two_places() {
    let (status, doc, stderr) = card("card-extended", &card_0_3(false, true), "1.0");
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(doc["capabilities"]["extendedAgentCard"], true);
    assert!(doc.get("supportsAuthenticatedExtendedCard").is_none());
    // And back: the 1.0 card a2a-sim printed, as a card file, printed as 0.3.
    let (status, back, stderr) = card("card-extended-back", &doc.to_string(), "0.3");
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(back["supportsAuthenticatedExtendedCard"], true);
    assert!(back["capabilities"].get("extendedAgentCard").is_none());
}
