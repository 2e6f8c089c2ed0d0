//! Signed cards on the wire (A2A §8.4): with `policy.card_signing_key` every card `serve` answers
//! carries a signature that verifies over the served card (its interfaces included), in both
//! versions and under a caller's prefix; a card file's own signature is replaced by the server's;
//! a `tampered_card` agent's card is changed after signing, so its signature no longer verifies.

use serde_json::Value;

use a2a_sim::protocol::TAMPERED;
use a2a_sim::token::KeySet;
use a2a_sim::token::card::{self, Check};

use super::support::*;

const SIGNED: &str = "tests/card-signing/signed.yaml";

fn keys() -> KeySet {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/card-signing/public.jwks.json"
    ))
    .unwrap();
    KeySet::from_jwks(&serde_json::from_str(&text).unwrap()).unwrap()
}

fn served_card(s: &Server, path: &str) -> Value {
    let (status, _, body) = http(
        &s.addr,
        "GET",
        &format!("{path}/.well-known/agent-card.json"),
        &[],
        b"",
    );
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

fn es256() -> Vec<Check> {
    vec![Check::Verified {
        kid: "card-test-es256".into(),
        alg: "ES256",
    }]
}

#[test]
fn every_served_card_carries_a_signature_over_what_is_served() {
    for v in ["1.0", "0.3"] {
        let s = start(SIGNED, &["--a2a-version", v]);
        for agent in ["screener", "partner-bank"] {
            let doc = served_card(&s, &format!("/agents/{agent}"));
            // The served address is in the signed content.
            let url = format!("http://{}/agents/{agent}/", s.addr);
            assert!(doc.to_string().contains(&url), "{v} {agent}: {doc}");
            // The bank's own EdDSA signature covered its file; the server signs what it serves.
            assert_eq!(card::verify(&doc, &keys()).unwrap(), es256(), "{v} {agent}");
        }
        // Under a caller's prefix, the card names the prefix and is signed too.
        let doc = served_card(&s, "/as/desk/agents/screener");
        assert!(doc.to_string().contains("/as/desk/agents/screener/"));
        assert_eq!(card::verify(&doc, &keys()).unwrap(), es256(), "{v} prefix");
    }
}

#[test]
fn a_tampered_card_is_served_with_a_signature_that_no_longer_verifies() {
    let s = start(SIGNED, &[]);
    let doc = served_card(&s, "/agents/ledger");
    assert!(
        doc["description"].as_str().unwrap().ends_with(TAMPERED),
        "{doc}"
    );
    let checks = card::verify(&doc, &keys()).unwrap();
    assert!(
        matches!(&checks[..], [Check::Invalid { kid, .. }] if kid == "card-test-es256"),
        "{checks:?}"
    );
    assert!(!card::trusted(&checks));
    // Undone, the change gives back a card that verifies: only the signature's cover was broken.
    let mut undone = doc.clone();
    let description = doc["description"].as_str().unwrap();
    undone["description"] = description.trim_end_matches(TAMPERED).into();
    assert_eq!(card::verify(&undone, &keys()).unwrap(), es256());
    // The agent itself answers as usual.
    let (status, body) = rpc_to(&s, "/agents/ledger", "SendMessage", send_params("book it"));
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

fn rpc_to(s: &Server, path: &str, method: &str, params: Value) -> (u16, Value) {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let (status, _, text) = http(
        &s.addr,
        "POST",
        &format!("{path}/"),
        &[("X-A2A-Sim-Caller", "desk"), ("A2A-Version", "1.0")],
        body.to_string().as_bytes(),
    );
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[test]
fn without_a_signing_key_a_served_card_file_drops_the_signature_it_no_longer_matches() {
    let d = crate::common::binary::scratch("serve-signed-card-file");
    let from = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/card-signing");
    for f in ["partner.card.json", "public.jwks.json"] {
        std::fs::copy(from.join(f), d.join(f)).unwrap();
    }
    let yaml = "policy:\n  card_keys: public.jwks.json\nagents:\n  - {card: partner.card.json, tenant: acme, clearance: internal, handler: [working: on it, completed: ok]}\ncallers:\n  - {id: desk, tenant: acme, classification: internal}\n";
    std::fs::write(d.join("s.yaml"), yaml).unwrap();
    let (mut child, addr) = serve_in(&d, &["s.yaml"]);
    let (status, _, body) = http(
        &addr,
        "GET",
        "/agents/partner-bank/.well-known/agent-card.json",
        &[],
        b"",
    );
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(status, 200, "{body}");
    let doc: Value = serde_json::from_str(&body).unwrap();
    assert!(doc.get("signatures").is_none(), "{doc}");
    assert!(body.contains(&format!("http://{addr}/agents/partner-bank/")));
}
