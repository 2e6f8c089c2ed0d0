//! `a2a-sim card`: an agent's card as a client would see it, without the platform's metadata, in
//! both versions; a misspelt agent gets a suggestion, `--list` names the agents, and the agent may
//! be left out of a file that has only one.

use crate::common::binary::a2a_sim;

use super::TRACED;

#[test]
fn card_prints_the_agent_card_without_platform_metadata() {
    for v in ["1.0", "0.3"] {
        let r = a2a_sim(&["card", TRACED, "sanctions-screener", "--a2a-version", v]);
        assert_eq!(r.status, 0, "{}", r.stderr);
        for secret in [
            "acme\"",
            "confidential",
            "sanctions:screen",
            "handler",
            "tenant",
        ] {
            assert!(!r.stdout.contains(secret), "{v}: {secret} in {}", r.stdout);
        }
    }
    let r = a2a_sim(&["card", TRACED, "sanctions-screner"]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("did you mean `sanctions-screener`?"),
        "{}",
        r.stderr
    );
    assert_eq!(
        a2a_sim(&["card", TRACED, "--list"]).stdout,
        "sanctions-screener\n"
    );
}

#[test]
fn the_agent_may_be_omitted_only_when_the_file_has_one() {
    // One agent: its card, the same bytes as when it is named.
    let named = a2a_sim(&["card", TRACED, "sanctions-screener"]);
    let omitted = a2a_sim(&["card", TRACED]);
    assert_eq!(omitted.status, 0, "{}", omitted.stderr);
    assert_eq!(omitted.stdout, named.stdout);
    // Several: a usage error that names them and shows the command with one.
    let file = "scenarios/payment-decision.yaml";
    let r = a2a_sim(&["card", file]);
    assert_eq!(r.status, 2);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("has 2 agents (payments-agent, sanctions-screener)")
            && r.stderr
                .contains("`a2a-sim card scenarios/payment-decision.yaml payments-agent`"),
        "{}",
        r.stderr
    );
}
