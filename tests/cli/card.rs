//! `a2a-sim card`: an agent's card as a client would see it, without the platform's metadata, in
//! both versions; a misspelt agent gets a suggestion, and `--list` names the agents.

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
