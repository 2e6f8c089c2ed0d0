//! Cards of agents that require a token: a bearer JWT scheme in both versions, and card files whose
//! security converts both ways.

use serde_json::Value;

use super::dir;

use crate::common::binary::{a2a_sim, a2a_sim_in};

fn card(agent: &str, version: &str) -> Value {
    let r = a2a_sim(&[
        "card",
        "scenarios/verified-callers.yaml",
        agent,
        "--a2a-version",
        version,
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

#[test]
fn an_agent_that_requires_a_token_advertises_a_bearer_jwt() {
    let v03 = card("sanctions-screener", "0.3");
    assert_eq!(v03.as_object().unwrap().len(), 12);
    assert_eq!(v03["securitySchemes"]["bearer"]["type"], "http");
    assert_eq!(v03["securitySchemes"]["bearer"]["bearerFormat"], "JWT");
    assert_eq!(
        v03["security"],
        serde_json::json!([{"bearer": ["sanctions:screen"]}])
    );
    let v10 = card("sanctions-screener", "1.0");
    assert_eq!(
        v10["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"],
        "Bearer"
    );
    assert_eq!(
        v10["securityRequirements"],
        serde_json::json!([{"schemes": {"bearer": {"list": ["sanctions:screen"]}}}])
    );
    let r = a2a_sim(&[
        "card",
        "scenarios/traced-delegation.yaml",
        "sanctions-screener",
        "--a2a-version",
        "0.3",
    ]);
    let plain: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        plain.as_object().unwrap().len(),
        10,
        "no token required: today's ten keys"
    );
}

#[test]
fn card_files_convert_their_security_both_ways() {
    let v03 = r#"{"protocolVersion": "0.3.0", "name": "kyc", "description": "KYC", "url": "https://kyc.example/a2a",
 "preferredTransport": "JSONRPC", "version": "1.0.0", "capabilities": {}, "defaultInputModes": ["text/plain"],
 "defaultOutputModes": ["text/plain"], "skills": [{"id": "k", "name": "k", "description": "k", "tags": ["kyc"],
 "security": [{"jwt": ["kyc:write"]}, {"jwt": [], "key": []}]}],
 "securitySchemes": {"jwt": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
                     "key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
 "security": [{"jwt": ["kyc:read"]}, {"key": []}]}"#;
    let d = dir("cards", &[("c03.json", v03)]);
    let yaml = "agents:\n  - {card: CARD, tenant: acme, clearance: public}\ncallers: [{id: c, tenant: acme, classification: public}]\nsteps: []\n";
    std::fs::write(d.join("s.yaml"), yaml.replace("CARD", "c03.json")).unwrap();
    let r = a2a_sim_in(&d, &["card", "s.yaml", "kyc", "--a2a-version", "1.0"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v10: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v10["securitySchemes"]["key"],
        serde_json::json!({"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}})
    );
    assert_eq!(
        v10["securityRequirements"][0],
        serde_json::json!({"schemes": {"jwt": {"list": ["kyc:read"]}}})
    );
    assert_eq!(
        v10["skills"][0]["securityRequirements"],
        serde_json::json!([{"schemes": {"jwt": {"list": ["kyc:write"]}}},
                           {"schemes": {"jwt": {"list": []}, "key": {"list": []}}}]),
        "a skill's own requirement converts too"
    );
    assert!(v10["skills"][0].get("security").is_none());
    std::fs::write(d.join("c10.json"), &r.stdout).unwrap();
    std::fs::write(d.join("s.yaml"), yaml.replace("CARD", "c10.json")).unwrap();
    let back = a2a_sim_in(&d, &["card", "s.yaml", "kyc", "--a2a-version", "0.3"], None);
    let back: Value = serde_json::from_str(&back.stdout).unwrap();
    let orig: Value = serde_json::from_str(v03).unwrap();
    assert_eq!(back["securitySchemes"], orig["securitySchemes"]);
    assert_eq!(back["security"], orig["security"]);
    assert_eq!(
        back["skills"], orig["skills"],
        "the skill's `security` comes back as it was"
    );
}
