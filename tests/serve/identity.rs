//! Who a request is from without a custom header: the caller's URL prefix
//! `/as/CALLER/agents/NAME/` (its card keeps the prefix), and `--default-caller`; with `keys`,
//! the token decides and a prefix that disagrees with it is refused.

use serde_json::{Value, json};

use super::support::{AGENT, http, send_params, start};

fn post(addr: &str, path: &str, headers: &[(&str, &str)], body: &Value) -> (u16, Value) {
    let (status, _, text) = http(addr, "POST", path, headers, body.to_string().as_bytes());
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn send() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("Pay PMT-9")})
}

#[test]
fn the_path_prefix_is_the_caller_and_its_card_keeps_the_prefix() {
    let s = start("payment-decision.yaml", &[]);
    let prefixed = format!("/as/orchestrator{AGENT}/");
    let (status, _, body) = http(
        &s.addr,
        "GET",
        &format!("{prefixed}.well-known/agent-card.json"),
        &[],
        b"",
    );
    assert_eq!(status, 200, "{body}");
    let card: Value = serde_json::from_str(&body).unwrap();
    let url = format!("http://{}{prefixed}", s.addr);
    assert_eq!(card["supportedInterfaces"][0]["url"], json!(url));
    assert_eq!(
        card["supportedInterfaces"][1]["url"],
        json!(url.trim_end_matches('/'))
    );
    // No header: the prefix names the caller.
    let (status, r) = post(&s.addr, &prefixed, &[], &send());
    assert_eq!(status, 200, "{r}");
    let task = r["result"]["task"]["id"].as_str().unwrap().to_string();
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": task}});
    let (_, r) = post(&s.addr, &prefixed, &[], &get);
    assert_eq!(r["result"]["id"], json!(task), "{r}");
    // The same caller by the header reads it too; no caller at all is refused as before.
    let (_, r) = post(
        &s.addr,
        &format!("{AGENT}/"),
        &[("X-A2A-Sim-Caller", "orchestrator")],
        &get,
    );
    assert_eq!(r["result"]["id"], json!(task), "{r}");
    let (_, r) = post(&s.addr, &format!("{AGENT}/"), &[], &send());
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no caller"),
        "{r}"
    );
    // A prefix that names no caller, or a header that disagrees with it, is refused.
    let (_, r) = post(&s.addr, &format!("/as/nobody{AGENT}/"), &[], &send());
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`nobody` is no scenario caller"),
        "{r}"
    );
    let (_, r) = post(
        &s.addr,
        &prefixed,
        &[("X-A2A-Sim-Caller", "someone")],
        &send(),
    );
    assert!(
        r["error"]["message"].as_str().unwrap().contains("name one"),
        "{r}"
    );
    let (status, _, _) = http(&s.addr, "GET", "/as/orchestrator/x", &[], b"");
    assert_eq!(status, 404);
}

#[test]
fn a_default_caller_serves_clients_that_can_send_nothing() {
    let s = start(
        "payment-decision.yaml",
        &["--default-caller", "orchestrator"],
    );
    let (status, r) = post(&s.addr, &format!("{AGENT}/"), &[], &send());
    assert_eq!(status, 200, "{r}");
    assert_eq!(
        r["result"]["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    // An unknown default caller, or one that holds a token, is a usage error before listening.
    for (file, caller, why) in [
        (
            "payment-decision.yaml",
            "nobody",
            "names no caller of the scenario",
        ),
        ("verified-callers.yaml", "orchestrator", "holds a token"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_a2a-sim"))
            .args([
                "serve",
                &format!("{}/scenarios/{file}", env!("CARGO_MANIFEST_DIR")),
            ])
            .args(["--listen", "127.0.0.1:0", "--default-caller", caller])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(why),
            "{out:?}"
        );
    }
}

#[test]
fn with_keys_the_token_decides_and_a_disagreeing_prefix_is_refused() {
    let s = start("verified-callers.yaml", &[]);
    let jwt = std::fs::read_to_string(format!(
        "{}/scenarios/keys/orchestrator.jwt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let auth = format!("Bearer {}", jwt.trim());
    // The prefix alone is not enough for a caller that holds a token.
    let (status, r) = post(&s.addr, &format!("/as/orchestrator{AGENT}/"), &[], &send());
    assert_eq!(status, 401, "{r}");
    // With its token it is that caller; a prefix naming another caller is refused.
    let (status, r) = post(
        &s.addr,
        &format!("/as/orchestrator{AGENT}/"),
        &[("Authorization", &auth)],
        &send(),
    );
    assert_eq!(status, 200, "{r}");
    let (status, r) = post(
        &s.addr,
        &format!("/as/anonymous{AGENT}/"),
        &[("Authorization", &auth)],
        &send(),
    );
    assert_eq!(status, 401, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not `anonymous`'s"),
        "{r}"
    );
    assert!(!r.to_string().contains(jwt.trim()));
}

#[test]
fn a_library_is_served_its_requests_being_the_session() {
    let s = start("tests/serve/library.yaml", &[]);
    let (status, r) = post(&s.addr, "/as/u/agents/kyc/", &[], &send());
    assert_eq!(status, 200, "{r}");
    assert_eq!(
        r["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[test]
fn a_down_agent_is_503_with_retry_after_on_both_bindings_streamed_or_not() {
    let s = start("tests/serve/down.yaml", &[]);
    let (status, head, body) = http(
        &s.addr,
        "POST",
        "/as/u/agents/down/",
        &[],
        send().to_string().as_bytes(),
    );
    assert_eq!(status, 503, "{body}");
    assert!(
        head.to_ascii_lowercase().contains("retry-after: 1"),
        "{head}"
    );
    let r: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(r["error"]["data"][0]["reason"], "AGENT_UNAVAILABLE", "{r}");
    let stream = json!({"jsonrpc": "2.0", "id": 3, "method": "SendStreamingMessage", "params": send_params("x")});
    let (status, head, _) = http(
        &s.addr,
        "POST",
        "/as/u/agents/down/",
        &[],
        stream.to_string().as_bytes(),
    );
    assert_eq!(status, 503);
    assert!(
        head.to_ascii_lowercase().contains("retry-after: 1"),
        "{head}"
    );
    for route in ["message:send", "message:stream"] {
        let (status, head, body) = http(
            &s.addr,
            "POST",
            &format!("/as/u/agents/down/{route}"),
            &[("Content-Type", "application/json")],
            send_params("x").to_string().as_bytes(),
        );
        assert_eq!(status, 503, "{route}: {body}");
        assert!(
            head.to_ascii_lowercase().contains("retry-after: 1"),
            "{head}"
        );
        let r: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(r["error"]["status"], "UNAVAILABLE", "{r}");
    }
}

#[test]
fn a_subscription_to_an_interrupted_task_gets_the_task_and_ends() {
    let s = start("tests/serve/down.yaml", &[]);
    let (_, r) = post(&s.addr, "/as/u/agents/asks/", &[], &send());
    assert_eq!(
        r["result"]["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{r}"
    );
    let task = r["result"]["task"]["id"].as_str().unwrap();
    let sub =
        json!({"jsonrpc": "2.0", "id": 4, "method": "SubscribeToTask", "params": {"id": task}});
    let started = std::time::Instant::now();
    let (status, _, body) = http(
        &s.addr,
        "POST",
        "/as/u/agents/asks/",
        &[],
        sub.to_string().as_bytes(),
    );
    assert_eq!(status, 200);
    // The stream closed by itself (the client reads to its end), well before any timeout.
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let events = super::support::sse_events(&body);
    assert_eq!(events.len(), 1, "{body}");
    assert_eq!(
        events[0]["result"]["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
}
