//! The A2A 1.0.1 rules every HTTP binding keeps: `A2A-Version` negotiated (none is 0.3), the
//! HTTP+JSON binding's optional `/{tenant}/` prefix, GET and POST for `:subscribe`,
//! `application/a2a+json` read and sent, a stream that fails before its first event answered
//! as a plain error, proto field names taken beside the JSON ones, and ListTasks' page tokens.

use serde_json::{Value, json};

use super::support::*;

fn rpc_body(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string()
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn content_type(head: &str) -> String {
    head.lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-type")
                .then(|| v.trim().to_string())
        })
        .unwrap_or_default()
}

#[test]
fn a_request_without_a2a_version_is_0_3_and_an_unknown_version_is_refused() {
    let s = start("payment-decision.yaml", &[]);
    let url = format!("{AGENT}/");
    // No header: a 1.0 method is refused with VersionNotSupportedError, a 0.3 one is served.
    let send = rpc_body("SendMessage", send_params("pay"));
    let (status, _, text) = http_unversioned(&s.addr, "POST", &url, &[CALLER], send.as_bytes());
    let r = parse(&text);
    assert_eq!(status, 200);
    assert_eq!(r["error"]["code"], -32009, "{r}");
    assert_eq!(r["error"]["data"][0]["reason"], "VERSION_NOT_SUPPORTED");
    let old = json!({"message": {"messageId": "m-1", "role": "user", "kind": "message",
        "parts": [{"kind": "text", "text": "pay"}]}});
    let (_, _, text) = http_unversioned(
        &s.addr,
        "POST",
        &url,
        &[CALLER],
        rpc_body("message/send", old).as_bytes(),
    );
    assert_eq!(parse(&text)["result"]["kind"], "task", "{text}");
    // An empty value is no value.
    let (_, _, text) = http(
        &s.addr,
        "POST",
        &url,
        &[CALLER, ("A2A-Version", "")],
        send.as_bytes(),
    );
    assert_eq!(parse(&text)["error"]["code"], -32009);
    // Any 1.x is served as 1.0; another major is refused on both bindings.
    let (_, _, text) = http(
        &s.addr,
        "POST",
        &url,
        &[CALLER, ("A2A-Version", "1.1")],
        send.as_bytes(),
    );
    assert!(parse(&text)["result"]["task"]["id"].is_string(), "{text}");
    let (_, _, text) = http(
        &s.addr,
        "POST",
        &url,
        &[CALLER, ("A2A-Version", "2.0")],
        send.as_bytes(),
    );
    assert_eq!(parse(&text)["error"]["code"], -32009);
    let (status, _, text) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-1"),
        &[CALLER, ("A2A-Version", "2.0")],
        b"",
    );
    assert_eq!(status, 400);
    assert_eq!(
        parse(&text)["error"]["details"][0]["reason"],
        "VERSION_NOT_SUPPORTED"
    );
    // REST without the header answers in 0.3's shapes; with 1.0's, in 1.0's.
    let (status, _, text) = http_unversioned(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-1"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 200);
    assert_eq!(parse(&text)["kind"], "task", "{text}");
    // The version may come as a query parameter instead, and is no filter then.
    let (status, _, text) = http_unversioned(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-1?A2A-Version=1.0"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 200, "{text}");
    assert!(parse(&text).get("kind").is_none(), "{text}");
    let (status, _, _) = http_unversioned(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks?a2a-version=1.0&pageSize=1"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 200);
    let (_, _, text) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-1"),
        &[CALLER],
        b"",
    );
    assert!(parse(&text).get("kind").is_none(), "{text}");
}

#[test]
fn the_tenant_prefix_reaches_the_same_agent_and_must_agree_with_the_body() {
    let s = start("payment-decision.yaml", &["--root-agent", "payments-agent"]);
    let body = send_params("pay").to_string();
    let (status, head, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/acme/message:send"),
        &[CALLER],
        body.as_bytes(),
    );
    assert_eq!(status, 200, "{text}");
    assert_eq!(content_type(&head), "application/a2a+json");
    let id = parse(&text)["task"]["id"].as_str().unwrap().to_string();
    // The same task under another tenant prefix, under none, and at the root agent's.
    for path in [
        format!("{AGENT}/other/tasks/{id}"),
        format!("{AGENT}/tasks/{id}"),
        format!("/acme/tasks/{id}"),
    ] {
        let (status, _, text) = http(&s.addr, "GET", &path, &[CALLER], b"");
        assert_eq!(status, 200, "{path}: {text}");
        assert_eq!(parse(&text)["id"], id.as_str());
    }
    let (_, _, text) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/acme/tasks?pageSize=5"),
        &[CALLER],
        b"",
    );
    assert_eq!(parse(&text)["totalSize"], 1, "{text}");
    // A body that names another tenant than its path is refused.
    let mut named = send_params("pay");
    named["tenant"] = json!("globex");
    let (status, _, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/acme/message:send"),
        &[CALLER],
        named.to_string().as_bytes(),
    );
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("tenant"), "{text}");
    named["tenant"] = json!("acme");
    let (status, _, _) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/acme/message:send"),
        &[CALLER],
        named.to_string().as_bytes(),
    );
    assert_eq!(status, 200);
    // A path that is no route after a tenant is still no route.
    let (status, _, _) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/acme/nothing"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 404);
}

#[test]
fn subscribe_takes_get_and_post_and_a_failed_stream_is_a_plain_error() {
    let s = start(SESSION, &["--tick-ms", "50"]);
    let id = start_task(&s);
    let caller = [("X-A2A-Sim-Caller", "orchestrator")];
    // Both at once, while the task runs.
    let readers: Vec<_> = ["GET", "POST"]
        .into_iter()
        .map(|method| {
            let (addr, path) = (s.addr.clone(), format!("{SCREENER}/tasks/{id}:subscribe"));
            let caller = caller.to_vec();
            std::thread::spawn(move || (method, http(&addr, method, &path, &caller, b"")))
        })
        .collect();
    for reader in readers {
        let (method, (status, head, text)) = reader.join().unwrap();
        assert_eq!(status, 200, "{method}: {text}");
        assert!(
            content_type(&head).starts_with("text/event-stream"),
            "{head}"
        );
        assert!(!sse_events(&text).is_empty(), "{method}: {text}");
    }
    // The task has ended: there is nothing to stream, and the error comes as a response of its
    // own, not as an event of a stream (REST: its HTTP status; JSON-RPC: a JSON body).
    let (status, head, text) = http(
        &s.addr,
        "GET",
        &format!("{SCREENER}/tasks/{id}:subscribe"),
        &caller,
        b"",
    );
    assert_eq!(status, 400, "{text}");
    assert_eq!(content_type(&head), "application/json");
    assert_eq!(
        parse(&text)["error"]["details"][0]["reason"],
        "UNSUPPORTED_OPERATION"
    );
    let (status, head, text) = http(
        &s.addr,
        "POST",
        &format!("{SCREENER}/"),
        &caller,
        rpc_body("SubscribeToTask", json!({"id": id})).as_bytes(),
    );
    assert_eq!(status, 200);
    assert_eq!(content_type(&head), "application/json");
    assert_eq!(parse(&text)["error"]["code"], -32004, "{text}");
}

#[test]
fn a2a_json_is_read_and_sent_where_the_binding_says() {
    let s = start("payment-decision.yaml", &[]);
    let a2a = ("Content-Type", "application/a2a+json");
    let body = send_params("pay").to_string();
    let (status, head, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/message:send"),
        &[CALLER, a2a],
        body.as_bytes(),
    );
    assert_eq!(status, 200, "{text}");
    assert_eq!(content_type(&head), "application/a2a+json");
    // JSON-RPC answers in JSON (as the official SDK server does), whatever the request's type.
    let (status, head, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/"),
        &[CALLER, a2a],
        rpc_body("GetTask", json!({"id": "task-1"})).as_bytes(),
    );
    assert_eq!(status, 200);
    assert_eq!(content_type(&head), "application/json");
    assert_eq!(parse(&text)["result"]["id"], "task-1");
    // A REST error is JSON too.
    let (status, head, _) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/nope"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 404);
    assert_eq!(content_type(&head), "application/json");
    // A body in another media type: 415, and on JSON-RPC ContentTypeNotSupportedError.
    let (status, _, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/"),
        &[CALLER, ("Content-Type", "text/plain")],
        rpc_body("GetTask", json!({"id": "task-1"})).as_bytes(),
    );
    assert_eq!(status, 415);
    assert_eq!(parse(&text)["error"]["code"], -32005, "{text}");
}

#[test]
fn proto_field_names_are_taken_beside_the_json_names() {
    let s = start(SESSION, &[]);
    let id = start_task(&s);
    let r = call(
        &s,
        "orchestrator",
        "CreateTaskPushNotificationConfig",
        json!({"task_id": id, "id": "cfg-1", "url": "https://hooks.acme.example/a2a"}),
    );
    assert_eq!(r["result"]["taskId"], id.as_str(), "{r}");
    let r = call(
        &s,
        "orchestrator",
        "GetTask",
        json!({"id": id, "history_length": 1}),
    );
    assert_eq!(r["result"]["history"].as_array().unwrap().len(), 1, "{r}");
}

#[test]
fn list_tasks_page_tokens_walk_every_task_once_and_a_foreign_token_is_refused() {
    let s = start("payment-decision.yaml", &[]);
    for _ in 0..5 {
        rpc(&s, "SendMessage", send_params("pay"));
    }
    let page = |token: &str| {
        let (_, r) = rpc(&s, "ListTasks", json!({"pageSize": 2, "pageToken": token}));
        r["result"].clone()
    };
    let (mut seen, mut token) = (Vec::new(), String::new());
    loop {
        let p = page(&token);
        assert_eq!(p["totalSize"], 5);
        assert_eq!(p["pageSize"], 2);
        // The same token gives the same page.
        assert_eq!(page(&token), p);
        for t in p["tasks"].as_array().unwrap() {
            seen.push(t["id"].as_str().unwrap().to_string());
        }
        token = p["nextPageToken"].as_str().unwrap().to_string();
        if token.is_empty() {
            break;
        }
    }
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!((seen.len(), unique.len()), (5, 5), "{seen:?}");
    for bad in ["5", "99", "x", "-1"] {
        let (_, r) = rpc(&s, "ListTasks", json!({"pageSize": 2, "pageToken": bad}));
        assert_eq!(r["error"]["code"], -32602, "{bad}: {r}");
        let (status, _, _) = http(
            &s.addr,
            "GET",
            &format!("{AGENT}/tasks?pageToken={bad}"),
            &[CALLER],
            b"",
        );
        assert_eq!(status, 400, "{bad}");
    }
}
