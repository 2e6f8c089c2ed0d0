//! The agent cards a session serves: each names the address it is served at, in the A2A version
//! asked for, on the advertised host (an IPv6 one bracketed) when one is given.

use serde_json::{Value, json};

use super::support::*;

#[test]
fn card_names_the_served_address() {
    let s = start("payment-decision.yaml", &[]);
    let (status, _, body) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/.well-known/agent-card.json"),
        &[],
        b"",
    );
    assert_eq!(status, 200);
    let card: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        card["supportedInterfaces"][0]["url"],
        json!(format!("http://{}{AGENT}/", s.addr))
    );
    assert_eq!(
        card["supportedInterfaces"][1]["protocolBinding"],
        "HTTP+JSON"
    );
    let s03 = start(
        "payment-decision.yaml",
        &["--a2a-version", "0.3", "--advertise-host", "sim.local"],
    );
    let (_, _, body) = http(
        &s03.addr,
        "GET",
        &format!("{AGENT}/.well-known/agent-card.json"),
        &[],
        b"",
    );
    let card: Value = serde_json::from_str(&body).unwrap();
    let port = s03.addr.rsplit(':').next().unwrap();
    assert_eq!(
        card["url"],
        json!(format!("http://sim.local:{port}{AGENT}/"))
    );
    assert_eq!(card["protocolVersion"], "0.3.0");
}

#[test]
fn an_ipv6_advertised_host_is_bracketed_in_the_cards() {
    let s = start(SESSION, &["--advertise-host", "::1"]);
    let (_, _, text) = http(
        &s.addr,
        "GET",
        &format!("{SCREENER}/.well-known/agent-card.json"),
        &[],
        b"",
    );
    let card: Value = serde_json::from_str(&text).unwrap();
    let port = s.addr.rsplit(':').next().unwrap();
    assert_eq!(
        card["supportedInterfaces"][0]["url"],
        format!("http://[::1]:{port}/agents/screener/")
    );
}
