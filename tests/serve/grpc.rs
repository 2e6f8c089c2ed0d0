//! The gRPC binding (`serve --grpc-listen`): every RPC of `A2AService` over HTTP/2, answered as
//! the other bindings answer; refusals as gRPC statuses carrying `google.rpc.ErrorInfo`; bad
//! input (a message that does not decode, one over `--max-body`, an unknown method, tenant or
//! version) answered with its status, the server answering on afterwards. A raw client: hyper's
//! HTTP/2, messages written as JSON and encoded with the server's own mapping (the official
//! SDK's gRPC client runs in `conformance/serve/test_serve_grpc.py`). The client is `grpc_client`.

use serde_json::{Value, json};

use super::grpc_client::{Reply, grpc, grpc_addr, raw};
use super::support::*;

const PAY: &str = "agents/payments-agent";

/// The payment agents, and a second caller (`auditor`).
const PAYMENTS: &str = "conformance/serve/payment-serve.yaml";

fn send(text: &str) -> Value {
    let mut r = send_params(text);
    r["tenant"] = json!(PAY);
    r
}

/// The ErrorInfo of a refusal: its reason, in A2A's domain.
fn reason(r: &Reply) -> &str {
    let (reason, domain, _) = r.info.as_ref().expect("an ErrorInfo detail");
    assert_eq!(domain, "a2a-protocol.org");
    reason
}

#[test]
fn the_card_lists_the_grpc_port_bare_then_as_a_url_with_the_agents_tenant() {
    let s = start(PAYMENTS, &["--grpc-listen", "127.0.0.1:0"]);
    let (_, _, card) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/.well-known/agent-card.json"),
        &[],
        b"",
    );
    let card: Value = serde_json::from_str(&card).unwrap();
    let grpc: Vec<&Value> = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["protocolBinding"] == "GRPC")
        .collect();
    assert_eq!(grpc.len(), 2, "{card}");
    let bare = grpc[0]["url"].as_str().unwrap();
    assert!(bare.starts_with("127.0.0.1:") && bare != s.addr, "{bare}");
    assert_eq!(grpc[1]["url"], format!("grpc://{bare}"));
    for i in grpc {
        assert_eq!(i["tenant"], PAY);
        assert_eq!(i["protocolVersion"], "1.0");
    }
    // Under a caller's prefix the tenant keeps it.
    let (_, _, card) = http(
        &s.addr,
        "GET",
        &format!("/as/auditor{AGENT}/.well-known/agent-card.json"),
        &[],
        b"",
    );
    assert!(
        card.contains(r#""tenant": "as/auditor/agents/payments-agent""#),
        "{card}"
    );
    // Without the flag, no gRPC interface.
    let plain = start(PAYMENTS, &[]);
    let (_, _, card) = http(
        &plain.addr,
        "GET",
        &format!("{AGENT}/.well-known/agent-card.json"),
        &[],
        b"",
    );
    assert!(!card.contains("GRPC"), "{card}");
}

#[test]
fn send_get_list_cancel_and_the_refusals_with_their_error_info() {
    let s = start(PAYMENTS, &["--grpc-listen", "127.0.0.1:0"]);
    let g = grpc_addr(&s, "payments-agent");
    let r = grpc(&g, "orchestrator", "SendMessage", send("pay 100"));
    assert_eq!(r.code, 0, "{r:?}");
    let task = &r.messages[0]["task"];
    assert_eq!(task["id"], "task-1");
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    // The client's messageId comes back as sent.
    assert_eq!(task["history"][0]["messageId"], "m-1", "{task}");
    let r = grpc(
        &g,
        "orchestrator",
        "GetTask",
        json!({"tenant": PAY, "id": "task-1", "historyLength": 1}),
    );
    assert_eq!(
        r.messages[0]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    assert_eq!(r.messages[0]["history"].as_array().unwrap().len(), 1);
    let r = grpc(&g, "orchestrator", "ListTasks", json!({"tenant": PAY}));
    assert_eq!(r.messages[0]["tasks"][0]["id"], "task-1", "{r:?}");
    let r = grpc(
        &g,
        "orchestrator",
        "CancelTask",
        json!({"tenant": PAY, "id": "task-1"}),
    );
    assert_eq!(r.messages[0]["status"]["state"], "TASK_STATE_CANCELED");
    // Refusals: the code §10 maps the error to, and the reason the SDKs raise their errors from.
    let again = grpc(
        &g,
        "orchestrator",
        "CancelTask",
        json!({"tenant": PAY, "id": "task-1"}),
    );
    assert_eq!(
        (again.code, reason(&again)),
        (9, "TASK_NOT_CANCELABLE"),
        "{again:?}"
    );
    let unknown = grpc(
        &g,
        "orchestrator",
        "GetTask",
        json!({"tenant": PAY, "id": "task-9"}),
    );
    assert_eq!(
        (unknown.code, reason(&unknown)),
        (5, "TASK_NOT_FOUND"),
        "{unknown:?}"
    );
    assert!(unknown.message.contains("task-9"), "{unknown:?}");
    // Another caller's task does not exist for it.
    let other = grpc(
        &g,
        "auditor",
        "GetTask",
        json!({"tenant": PAY, "id": "task-1"}),
    );
    assert_eq!((other.code, reason(&other)), (5, "TASK_NOT_FOUND"));
    let card = grpc(
        &g,
        "orchestrator",
        "GetExtendedAgentCard",
        json!({"tenant": PAY}),
    );
    assert_eq!(
        (card.code, reason(&card)),
        (9, "EXTENDED_AGENT_CARD_NOT_CONFIGURED")
    );
    // A denied request: PERMISSION_DENIED, the denial codes in the ErrorInfo's metadata.
    let mut screen = send_params("Screen ACME directly");
    screen["tenant"] = json!("agents/sanctions-screener");
    let denied = grpc(&g, "orchestrator", "SendMessage", screen);
    assert_eq!(
        (denied.code, reason(&denied)),
        (7, "ADMISSION_DENIED"),
        "{denied:?}"
    );
    let denials = denied.info.as_ref().unwrap().2["denials"].as_str().unwrap();
    assert!(denials.split(',').any(|d| d == "scope"), "{denials}");
    let listed = grpc(
        &g,
        "orchestrator",
        "ListTasks",
        json!({"tenant": "agents/sanctions-screener"}),
    );
    assert_eq!(
        listed.messages[0].get("tasks"),
        None,
        "no task was created: {listed:?}"
    );
}

#[test]
fn streams_end_at_the_status_that_ends_or_pauses_the_task() {
    let s = start(PAYMENTS, &["--grpc-listen", "127.0.0.1:0"]);
    let g = grpc_addr(&s, "payments-agent");
    let r = grpc(&g, "orchestrator", "SendStreamingMessage", send("pay 100"));
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.messages.len() > 1, "{r:?}");
    assert_eq!(
        r.messages[0]["task"]["id"], "task-1",
        "the task comes first"
    );
    let last = &r.messages.last().unwrap()["statusUpdate"];
    assert_eq!(last["taskId"], "task-1");
    assert_eq!(
        last["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{r:?}"
    );
    // A subscription to the paused task: the task as it stands, and the stream ends.
    let sub = grpc(
        &g,
        "orchestrator",
        "SubscribeToTask",
        json!({"tenant": PAY, "id": "task-1"}),
    );
    assert_eq!(sub.code, 0, "{sub:?}");
    assert_eq!(sub.messages.len(), 1, "{sub:?}");
    assert_eq!(
        sub.messages[0]["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    // The reply, streamed: on to the decision, which pauses it again.
    let mut reply = send("Acme Trading FZE, Dubai, AE");
    reply["message"]["taskId"] = json!("task-1");
    let r = grpc(&g, "orchestrator", "SendStreamingMessage", reply);
    let last = &r.messages.last().unwrap()["statusUpdate"];
    assert_eq!(
        last["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{r:?}"
    );
    let unknown = grpc(
        &g,
        "orchestrator",
        "SubscribeToTask",
        json!({"tenant": PAY, "id": "task-9"}),
    );
    assert_eq!((unknown.code, reason(&unknown)), (5, "TASK_NOT_FOUND"));
}

#[test]
fn push_configs_are_created_read_listed_and_deleted() {
    let s = start(SESSION, &["--grpc-listen", "127.0.0.1:0"]);
    let task = start_task(&s);
    let g = grpc_addr(&s, "screener");
    let tenant = "agents/screener";
    let url = "https://hooks.acme.example/screening";
    let set = grpc(
        &g,
        "orchestrator",
        "CreateTaskPushNotificationConfig",
        json!({"tenant": tenant, "taskId": task, "id": "ops", "url": url, "token": "tok-never-shown"}),
    );
    let want = json!({"id": "ops", "taskId": task, "url": url});
    assert_eq!(set.messages, std::slice::from_ref(&want), "{set:?}");
    let get = grpc(
        &g,
        "orchestrator",
        "GetTaskPushNotificationConfig",
        json!({"tenant": tenant, "taskId": task, "id": "ops"}),
    );
    assert_eq!(get.messages, std::slice::from_ref(&want));
    let list = grpc(
        &g,
        "orchestrator",
        "ListTaskPushNotificationConfigs",
        json!({"tenant": tenant, "taskId": task}),
    );
    assert_eq!(list.messages[0]["configs"], json!([want]));
    let delete = grpc(
        &g,
        "orchestrator",
        "DeleteTaskPushNotificationConfig",
        json!({"tenant": tenant, "taskId": task, "id": "ops"}),
    );
    assert_eq!((delete.code, delete.messages.len()), (0, 1), "{delete:?}");
    let list = grpc(
        &g,
        "orchestrator",
        "ListTaskPushNotificationConfigs",
        json!({"tenant": tenant, "taskId": task}),
    );
    assert_eq!(list.messages, [json!({})]);
    let refused = grpc(
        &g,
        "orchestrator",
        "CreateTaskPushNotificationConfig",
        json!({"tenant": tenant, "taskId": task, "url": "https://elsewhere.example/hook"}),
    );
    assert_ne!(refused.code, 0, "a URL the policy refuses: {refused:?}");
}

#[test]
fn the_caller_comes_from_metadata_a_tenant_prefix_or_default_caller() {
    let s = start(PAYMENTS, &["--grpc-listen", "127.0.0.1:0"]);
    let g = grpc_addr(&s, "payments-agent");
    let bytes = serve::grpc_wire::encode("lf.a2a.v1.SendMessageRequest", &send("pay")).unwrap();
    let anonymous = raw(&g, "SendMessage", &bytes, &[]);
    assert_eq!(
        (anonymous.code, reason(&anonymous)),
        (16, "UNAUTHENTICATED"),
        "{anonymous:?}"
    );
    let mut prefixed = send("pay");
    prefixed["tenant"] = json!("as/orchestrator/agents/payments-agent");
    let bytes = serve::grpc_wire::encode("lf.a2a.v1.SendMessageRequest", &prefixed).unwrap();
    let r = raw(&g, "SendMessage", &bytes, &[]);
    assert_eq!(r.messages[0]["task"]["id"], "task-1", "{r:?}");
    let clash = raw(
        &g,
        "SendMessage",
        &bytes,
        &[("x-a2a-sim-caller", "auditor")],
    );
    assert_eq!(clash.code, 16, "{clash:?}");
    let s = start(
        PAYMENTS,
        &[
            "--grpc-listen",
            "127.0.0.1:0",
            "--default-caller",
            "orchestrator",
        ],
    );
    let g = grpc_addr(&s, "payments-agent");
    let r = raw(&g, "SendMessage", &bytes, &[]);
    assert_eq!(r.code, 0, "{r:?}");
}

#[test]
fn a_bearer_token_in_metadata_is_the_callers_identity() {
    let s = start("verified-callers.yaml", &["--grpc-listen", "127.0.0.1:0"]);
    let (_, _, card) = http(
        &s.addr,
        "GET",
        "/agents/payments-agent/.well-known/agent-card.json",
        &[],
        b"",
    );
    assert!(card.contains("GRPC"), "{card}");
    let g = grpc_addr(&s, "payments-agent");
    let bytes = serve::grpc_wire::encode("lf.a2a.v1.SendMessageRequest", &send("pay")).unwrap();
    let forged = raw(
        &g,
        "SendMessage",
        &bytes,
        &[("authorization", "Bearer not-a-token")],
    );
    assert_eq!(forged.code, 16, "{forged:?}");
    assert!(
        !forged.message.contains("not-a-token"),
        "the token is never echoed"
    );
    let named = raw(
        &g,
        "SendMessage",
        &bytes,
        &[("x-a2a-sim-caller", "orchestrator")],
    );
    assert_eq!(
        named.code, 16,
        "a caller that holds a token must show it: {named:?}"
    );
    let jwt = std::fs::read_to_string(format!(
        "{}/scenarios/keys/orchestrator.jwt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let auth = format!("Bearer {}", jwt.trim());
    let r = raw(&g, "SendMessage", &bytes, &[("authorization", &auth)]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.messages[0]["task"]["id"], "task-1", "{r:?}");
}

#[test]
fn an_agent_that_is_down_is_unavailable() {
    let s = start("tests/serve/down.yaml", &["--grpc-listen", "127.0.0.1:0"]);
    let g = grpc_addr(&s, "down");
    let mut r = send_params("hi");
    r["tenant"] = json!("agents/down");
    let r = grpc(&g, "u", "SendMessage", r);
    assert_eq!(r.code, 14, "{r:?}");
}

#[test]
fn bad_input_gets_its_status_and_the_server_answers_on() {
    let s = start(
        PAYMENTS,
        &["--grpc-listen", "127.0.0.1:0", "--max-body", "2000"],
    );
    let g = grpc_addr(&s, "payments-agent");
    let who = [("x-a2a-sim-caller", "orchestrator")];
    // Not a protobuf message (a field tag of 0).
    let r = raw(&g, "SendMessage", &[0, 0, 0, 0xff], &who);
    assert_eq!(r.code, 3, "{r:?}");
    // Over --max-body: RESOURCE_EXHAUSTED, as the HTTP port's 413.
    let big = send(&"x".repeat(3000));
    let r = grpc(&g, "orchestrator", "SendMessage", big);
    assert_eq!(r.code, 8, "{r:?}");
    // A request the desk finds malformed: INVALID_ARGUMENT with A2A's reason.
    let r = grpc(&g, "orchestrator", "SendMessage", json!({"tenant": PAY}));
    assert_eq!((r.code, reason(&r)), (3, "INVALID_PARAMS"), "{r:?}");
    let r = raw(&g, "NoSuchMethod", &[], &who);
    assert_eq!(r.code, 12, "{r:?}");
    let r = grpc(
        &g,
        "orchestrator",
        "GetTask",
        json!({"tenant": "agents/nobody", "id": "t"}),
    );
    assert_eq!(r.code, 5, "{r:?}");
    let r = grpc(&g, "orchestrator", "GetTask", json!({"id": "t"}));
    assert_eq!(r.code, 5, "no tenant and no --root-agent: {r:?}");
    let bytes = serve::grpc_wire::encode(
        "lf.a2a.v1.GetTaskRequest",
        &json!({"tenant": PAY, "id": "t"}),
    )
    .unwrap();
    let r = raw(&g, "GetTask", &bytes, &[who[0], ("a2a-version", "0.3")]);
    assert_eq!((r.code, reason(&r)), (9, "VERSION_NOT_SUPPORTED"), "{r:?}");
    // Any 1.x is 1.0, as on the HTTP ports: the request gets past the version (to NOT_FOUND).
    let r = raw(&g, "GetTask", &bytes, &[who[0], ("a2a-version", "1.1")]);
    assert_eq!(r.code, 5, "{r:?}");
    // Still serving.
    let r = grpc(&g, "orchestrator", "SendMessage", send("pay"));
    assert_eq!(r.code, 0, "{r:?}");
}

#[test]
fn wire_faults_as_a_grpc_client_meets_them() {
    let s = start(
        "tests/serve/wire-faults.yaml",
        &["--grpc-listen", "127.0.0.1:0"],
    );
    let g = grpc_addr(&s, "flaky");
    let mut send = send_params("x");
    send["tenant"] = json!("agents/flaky");
    // 1: `http_error: 502` is UNAVAILABLE (gRPC's reading of a 502), its reason kept.
    let r = grpc(&g, "u", "SendMessage", send.clone());
    assert_eq!((r.code, reason(&r)), (14, "AGENT_HTTP_ERROR"), "{r:?}");
    // 2: `reset`: a server gone away.
    let r = grpc(&g, "u", "SendMessage", send.clone());
    assert_eq!(r.code, 14, "{r:?}");
    // 3: a stream cut after its first event; 4: answered in full.
    let r = grpc(&g, "u", "SendStreamingMessage", send.clone());
    assert_eq!((r.code, r.messages.len()), (0, 1), "{r:?}");
    let r = grpc(&g, "u", "SendStreamingMessage", send);
    let last = &r.messages.last().unwrap()["statusUpdate"]["status"]["state"];
    assert_eq!(last, "TASK_STATE_COMPLETED", "{r:?}");
}
