//! A scenario with `keys`: a2a-sim mints each real agent a token for its own calls, signed with
//! the platform key and carrying the agent's platform metadata; `{token}` hands it to the agent,
//! and the served agents take its calls only with it.

use std::path::PathBuf;

use serde_json::json;

use super::{Desk, a2a_sim_logged, at, report, tasks_on};

const KEYED: &str = "keys: jwks.json\npolicy:\n  token:\n    issuer: https://idp.acme.example\n    audience: a2a-sim.acme.example\n    platform_key: platform.private.jwk.json\n";

/// `desk` in mode ok with `AUTH_TOKEN` in its env when `env_token`, in a scenario with `head`;
/// kyc requires a verified token.
fn keyed(name: &str, head: &'static str, env_token: bool) -> (Desk, PathBuf) {
    let mut desk = Desk::mode("ok");
    desk.head = head;
    desk.scripted = desk.scripted.replace(
        "    required_scopes: [kyc:check]\n",
        "    required_scopes: [kyc:check]\n    requires_token: true\n",
    );
    if env_token {
        desk.external = desk.external.replace(
            "STUB_PID_FILE: stub.pid}",
            "STUB_PID_FILE: stub.pid, AUTH_TOKEN: \"{token}\"}",
        );
    }
    let dir = desk.at(name);
    for key in ["jwks.json", "platform.private.jwk.json"] {
        let from = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios/keys")
            .join(key);
        std::fs::copy(from, dir.join(key)).unwrap();
    }
    (desk, dir)
}

#[test]
fn with_keys_the_agent_calls_with_the_token_minted_for_it() {
    let (_, dir) = keyed("token-minted", KEYED, true);
    let r = report(&dir, &[]);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    let kyc = tasks_on(&r, "kyc");
    assert_eq!(kyc.len(), 2, "{r:#}");
    assert_eq!(kyc[0]["parent"], "task-1");
    assert_eq!(kyc[0]["state"], "completed");
    // The verified token is the one minted for `desk`: its name, the platform's key.
    let token = &kyc[0]["caller_token"];
    assert_eq!(token["sub"], "desk", "{r:#}");
    assert_eq!(token["iss"], "https://idp.acme.example");
    // Never the token itself, in the report or on the terminal.
    let run = a2a_sim_logged(&dir, &["run", "./desk.yaml", "--format", "json"]);
    assert!(
        !run.stdout.contains("eyJ") && !run.stderr.contains("eyJ"),
        "{}",
        run.stdout
    );
}

#[test]
fn with_keys_a_call_without_the_token_is_refused() {
    // The prefix names desk, but desk holds a token it did not show: the call is refused and
    // the stub fails its task with the error it got.
    let (_, dir) = keyed("token-missing", KEYED, false);
    let r = report(&dir, &[]);
    assert!(tasks_on(&r, "kyc").is_empty(), "{r:#}");
    let desk = tasks_on(&r, "desk");
    assert_eq!(desk[0]["state"], "failed", "{r:#}");
    let said = desk[0]["history"].to_string();
    assert!(said.contains("kyc refused"), "{said}");
    assert!(said.contains("holds a token"), "{said}");
}

#[test]
fn a_token_placeholder_without_keys_is_a_located_load_error() {
    let (desk, dir) = keyed("token-no-keys", "", true);
    let run = a2a_sim_logged(&dir, &["run", "desk.yaml"]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    let located = at("desk.yaml", &desk.yaml(), "AUTH_TOKEN", "\"{token}\"");
    assert!(run.stderr.contains(&located), "{located}:\n{}", run.stderr);
    assert!(run.stderr.contains("needs `keys`"), "{}", run.stderr);
}

#[test]
fn a_token_placeholder_without_a_platform_key_is_a_located_load_error() {
    const NO_PLATFORM: &str = "keys: jwks.json\npolicy:\n  token:\n    issuer: https://idp.acme.example\n    audience: a2a-sim.acme.example\n";
    let (_, dir) = keyed("token-no-platform", NO_PLATFORM, true);
    let run = a2a_sim_logged(&dir, &["run", "desk.yaml"]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("add `policy.token.platform_key`"),
        "{}",
        run.stderr
    );
}
