//! What a served session does beyond `run`: push configs read back and deleted (both versions,
//! both bindings, never with their token), live subscriptions, the REST binding's typed errors.

use super::*;

const SESSION: &str = "tests/serve/session.yaml";
const SCREENER: &str = "/agents/screener";

/// A JSON-RPC call to the screener as `caller`; the parsed answer (an SSE answer's events are
/// in `events`).
fn call(s: &Server, caller: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let (_, _, text) = http(
        &s.addr,
        "POST",
        &format!("{SCREENER}/"),
        &[("X-A2A-Sim-Caller", caller)],
        body.as_bytes(),
    );
    serde_json::from_str(&text).unwrap_or_else(|_| json!({ "events": sse_events(&text) }))
}

/// A non-blocking send: the task runs on beside the caller.
fn start_task(s: &Server) -> String {
    let mut params = send_params("Screen Acme Trading FZE");
    params["configuration"] = json!({"returnImmediately": true});
    let r = call(s, "orchestrator", "SendMessage", params);
    r["result"]["task"]["id"].as_str().unwrap().to_string()
}

#[test]
fn push_configs_are_read_back_listed_and_deleted_in_1_0() {
    let s = start(SESSION, &[]);
    let task = start_task(&s);
    let url = "https://hooks.acme.example/screening";
    let set = call(
        &s,
        "orchestrator",
        "CreateTaskPushNotificationConfig",
        json!({"taskId": task, "id": "ops", "url": url, "token": "tok-never-shown"}),
    );
    let want = json!({"id": "ops", "taskId": task, "url": url});
    assert_eq!(set["result"], want, "{set}");
    let get = call(
        &s,
        "orchestrator",
        "GetTaskPushNotificationConfig",
        json!({"taskId": task, "id": "ops"}),
    );
    assert_eq!(get["result"], want);
    let list = call(
        &s,
        "orchestrator",
        "ListTaskPushNotificationConfigs",
        json!({"taskId": task}),
    );
    assert_eq!(list["result"]["configs"], json!([want]));
    for answer in [&set, &get, &list] {
        assert!(!answer.to_string().contains("tok-never-shown"));
    }
    // Another caller's task does not exist for it; an unknown config id is a bad parameter.
    let other = call(
        &s,
        "auditor",
        "GetTaskPushNotificationConfig",
        json!({"taskId": task, "id": "ops"}),
    );
    assert_eq!(other["error"]["code"], -32001, "{other}");
    let unknown = call(
        &s,
        "orchestrator",
        "GetTaskPushNotificationConfig",
        json!({"taskId": task, "id": "nope"}),
    );
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let deleted = call(
        &s,
        "orchestrator",
        "DeleteTaskPushNotificationConfig",
        json!({"taskId": task, "id": "ops"}),
    );
    assert_eq!(deleted["result"], json!({}), "{deleted}");
    let list = call(
        &s,
        "orchestrator",
        "ListTaskPushNotificationConfigs",
        json!({"taskId": task}),
    );
    assert_eq!(list["result"]["configs"], json!([]));
    let again = call(
        &s,
        "orchestrator",
        "DeleteTaskPushNotificationConfig",
        json!({"taskId": task, "id": "ops"}),
    );
    assert_eq!(again["error"]["code"], -32602, "{again}");
}

#[test]
fn push_configs_in_0_3_take_the_task_id_when_they_have_none() {
    let s = start(SESSION, &[]);
    let task = start_task(&s);
    let url = "https://hooks.acme.example/legacy";
    let set = call(
        &s,
        "orchestrator",
        "tasks/pushNotificationConfig/set",
        json!({"taskId": task, "pushNotificationConfig": {"url": url, "token": "tok-2"}}),
    );
    let want = json!({"taskId": task, "pushNotificationConfig": {"id": task, "url": url}});
    assert_eq!(set["result"], want, "{set}");
    let get = call(
        &s,
        "orchestrator",
        "tasks/pushNotificationConfig/get",
        json!({"id": task}),
    );
    assert_eq!(get["result"], want);
    let list = call(
        &s,
        "orchestrator",
        "tasks/pushNotificationConfig/list",
        json!({"id": task}),
    );
    assert_eq!(list["result"], json!([want]));
    let deleted = call(
        &s,
        "orchestrator",
        "tasks/pushNotificationConfig/delete",
        json!({"id": task, "pushNotificationConfigId": task}),
    );
    assert!(
        deleted["result"].is_null() && deleted["error"].is_null(),
        "{deleted}"
    );
    let missing_id = call(
        &s,
        "orchestrator",
        "tasks/pushNotificationConfig/delete",
        json!({"id": task}),
    );
    assert_eq!(missing_id["error"]["code"], -32602, "{missing_id}");
}

#[test]
fn push_configs_on_the_rest_binding() {
    let s = start(SESSION, &[]);
    let task = start_task(&s);
    let configs = format!("{SCREENER}/tasks/{task}/pushNotificationConfigs");
    let body = json!({"url": "https://hooks.acme.example/rest", "token": "tok-3", "id": "r"});
    let (status, _, text) = http(
        &s.addr,
        "POST",
        &configs,
        &[CALLER],
        body.to_string().as_bytes(),
    );
    assert_eq!(status, 200, "{text}");
    assert!(!text.contains("tok-3"));
    let (status, _, text) = http(&s.addr, "GET", &format!("{configs}/r"), &[CALLER], b"");
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["id"], "r");
    let (_, _, text) = http(&s.addr, "GET", &configs, &[CALLER], b"");
    let list: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(list["configs"].as_array().unwrap().len(), 1, "{list}");
    let (status, _, _) = http(&s.addr, "DELETE", &format!("{configs}/r"), &[CALLER], b"");
    assert_eq!(status, 200);
    let (status, _, text) = http(&s.addr, "GET", &format!("{configs}/r"), &[CALLER], b"");
    assert_eq!(status, 400, "{text}");
}

#[test]
fn a_deleted_config_pushes_nothing_more() {
    let (hook, posts) = receiver();
    // 20 ticks of 25 ms: the task is still running while its config is set and deleted.
    let s = start(SESSION, &["--allow-loopback-push", "--tick-ms", "25"]);
    let task = start_task(&s);
    let set = call(
        &s,
        "orchestrator",
        "CreateTaskPushNotificationConfig",
        json!({"taskId": task, "url": format!("http://{hook}/hook"), "token": "tok-4"}),
    );
    assert_eq!(set["result"]["id"], task, "{set}");
    let deleted = call(
        &s,
        "orchestrator",
        "DeleteTaskPushNotificationConfig",
        json!({"taskId": task, "id": task}),
    );
    assert_eq!(deleted["result"], json!({}));
    let done = call(&s, "orchestrator", "SubscribeToTask", json!({"id": task}));
    let last = done["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        last["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    assert!(posts.recv_timeout(Duration::from_millis(300)).is_err());
}

#[test]
fn a_subscription_follows_the_task_until_it_ends() {
    let s = start(SESSION, &["--tick-ms", "10"]);
    let task = start_task(&s);
    let r = call(&s, "orchestrator", "SubscribeToTask", json!({"id": task}));
    let events: Vec<Value> = r["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["result"].clone())
        .collect();
    assert_eq!(events[0]["task"]["id"], task, "{events:?}");
    let artifact = events
        .iter()
        .position(|e| e["artifactUpdate"]["artifact"]["name"] == "screening-result")
        .expect("the artifact, as it was made");
    let completed = events
        .iter()
        .position(|e| e["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED")
        .expect("the completion");
    assert!(artifact < completed);
    // The completion ends the stream: nothing follows it.
    assert_eq!(completed, events.len() - 1, "{events:?}");
    assert_eq!(
        events
            .iter()
            .filter(|e| e.get("artifactUpdate").is_some())
            .count(),
        1
    );
    // An ended task has nothing to subscribe to; a task of another caller does not exist.
    let r = call(&s, "orchestrator", "SubscribeToTask", json!({"id": task}));
    assert_eq!(r["events"][0]["error"]["code"], -32004, "{r}");
    let r = call(&s, "auditor", "SubscribeToTask", json!({"id": task}));
    assert_eq!(r["events"][0]["error"]["code"], -32001, "{r}");
}

#[test]
fn a_0_3_resubscription_marks_its_last_status_final() {
    let s = start(SESSION, &["--tick-ms", "10"]);
    let task = start_task(&s);
    let r = call(&s, "orchestrator", "tasks/resubscribe", json!({"id": task}));
    let events: Vec<Value> = r["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["result"].clone())
        .collect();
    assert_eq!(events[0]["kind"], "task");
    let updates: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "status-update")
        .collect();
    let finals: Vec<bool> = updates.iter().map(|e| e["final"] == true).collect();
    assert_eq!(finals.last(), Some(&true), "{events:?}");
    assert!(finals[..finals.len() - 1].iter().all(|f| !f));
    assert_eq!(events.last().unwrap()["status"]["state"], "completed");
}

#[test]
fn shutdown_ends_a_live_subscription_with_the_status_its_task_ends_in() {
    // A tick of a second: the task would take 20 s; SIGTERM ends the session first.
    let mut s = start(SESSION, &["--tick-ms", "1000", "--report", "r.json"]);
    let task = start_task(&s);
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask", "params": {"id": task}});
    let reader = in_background(&s, &format!("{SCREENER}/"), body);
    terminate(&s);
    let text = reader.join().unwrap();
    let events = sse_events(&text);
    let last = &events.last().unwrap()["result"]["statusUpdate"];
    // Stopping runs what was scheduled to its end, as `run` does after its last step.
    assert_eq!(
        last["status"]["state"], "TASK_STATE_COMPLETED",
        "{events:?}"
    );
    assert!(s.child.wait().unwrap().success());
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(s.dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(report["tasks"][0]["state"], "completed");
}

#[test]
fn rest_errors_carry_the_reason_the_sdks_map() {
    // A tick of a second: the task is still running when it is first canceled.
    let s = start(SESSION, &["--tick-ms", "1000"]);
    let (status, _, text) = http(
        &s.addr,
        "GET",
        &format!("{SCREENER}/tasks/task-9"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 404);
    let e: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(e["error"]["status"], "NOT_FOUND");
    assert_eq!(e["error"]["details"][0]["reason"], "TASK_NOT_FOUND");
    assert_eq!(e["error"]["details"][0]["domain"], "a2a-protocol.org");
    let task = start_task(&s);
    let cancel = format!("{SCREENER}/tasks/{task}:cancel");
    assert_eq!(http(&s.addr, "POST", &cancel, &[CALLER], b"").0, 200);
    let (status, _, text) = http(&s.addr, "POST", &cancel, &[CALLER], b"");
    assert_eq!(status, 409, "{text}");
    let e: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(e["error"]["details"][0]["reason"], "TASK_NOT_CANCELABLE");
    let (status, _, text) = http(
        &s.addr,
        "GET",
        &format!("{SCREENER}/extendedAgentCard"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("EXTENDED_AGENT_CARD_NOT_CONFIGURED"));
}

#[test]
fn a_stream_from_a_slow_agent_arrives_as_the_agent_works() {
    // 20 ticks of 200 ms: the artifact comes 4 s after `working`.
    let s = start(SESSION, &["--tick-ms", "200"]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": send_params("Screen Acme")}).to_string();
    let mut conn = TcpStream::connect(&s.addr).unwrap();
    let head = format!(
        "POST {SCREENER}/ HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nX-A2A-Sim-Caller: orchestrator\r\nContent-Length: {}\r\n\r\n",
        s.addr,
        body.len()
    );
    conn.write_all(head.as_bytes()).unwrap();
    conn.write_all(body.as_bytes()).unwrap();
    let mut got = Vec::new();
    let mut chunk = [0u8; 8192];
    // Read until `working` is in.
    conn.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    while !String::from_utf8_lossy(&got).contains("TASK_STATE_WORKING") {
        let n = conn.read(&mut chunk).unwrap();
        assert!(n > 0, "the stream ended before `working`");
        got.extend_from_slice(&chunk[..n]);
    }
    // The rest is seconds away: half a second later it has not come.
    conn.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let early = conn.read(&mut chunk);
    assert!(
        early.is_err(),
        "an event came before the agent's wait was over: {:?}",
        early.map(|n| String::from_utf8_lossy(&chunk[..n]).into_owned())
    );
    conn.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let _ = conn.read_to_end(&mut got);
    let text = String::from_utf8_lossy(&got);
    assert!(text.contains("screening-result"), "{text}");
    assert!(text.contains("TASK_STATE_COMPLETED"), "{text}");
}

#[test]
fn shutdown_sends_the_rest_of_a_paced_stream_at_once() {
    // 20 ticks of a second: the stream's result is 20 s away when SIGTERM comes.
    let mut s = start(SESSION, &["--tick-ms", "1000"]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": send_params("Screen Acme")});
    let reader = in_background(&s, &format!("{SCREENER}/"), body);
    terminate(&s);
    let text = reader.join().unwrap();
    let events = sse_events(&text);
    let last = &events.last().unwrap()["result"]["statusUpdate"];
    assert_eq!(
        last["status"]["state"], "TASK_STATE_COMPLETED",
        "{events:?}"
    );
    assert!(s.child.wait().unwrap().success());
}

#[test]
fn an_agents_message_on_a_stream_is_a_status_update_carrying_it() {
    // SDK clients stop reading a stream at a Message: mid-task messages travel as status updates.
    let s = start(SESSION, &[]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": send_params("Check ACME")}).to_string();
    let (_, _, text) = http(
        &s.addr,
        "POST",
        "/agents/notary/",
        &[CALLER],
        body.as_bytes(),
    );
    let events: Vec<Value> = sse_events(&text)
        .into_iter()
        .map(|e| e["result"].clone())
        .collect();
    assert!(
        events.iter().all(|e| e.get("message").is_none()),
        "{events:?}"
    );
    let carried = events
        .iter()
        .find(|e| {
            e["statusUpdate"]["status"]["message"]["parts"][0]["text"]
                == "The register answered; comparing directors"
        })
        .expect("the message, in a status update");
    assert_eq!(
        carried["statusUpdate"]["status"]["state"],
        "TASK_STATE_WORKING"
    );
    assert_eq!(
        events.last().unwrap()["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[test]
fn a_task_is_found_only_under_the_agent_that_holds_it() {
    let s = start("payment-decision.yaml", &[]);
    assert_eq!(rpc(&s, "SendMessage", send_params("Pay PMT-9")).0, 200);
    let elsewhere = "/agents/sanctions-screener";
    let (status, _, _) = http(
        &s.addr,
        "GET",
        &format!("{elsewhere}/tasks/task-1"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 404);
    let mut reply = send_params("Nordwind Logistik GmbH, Hamburg, DE");
    reply["message"]["taskId"] = json!("task-1");
    for (method, params) in [
        ("GetTask", json!({"id": "task-1"})),
        ("CancelTask", json!({"id": "task-1"})),
        ("SendMessage", reply),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let (_, _, text) = http(
            &s.addr,
            "POST",
            &format!("{elsewhere}/"),
            &[CALLER],
            body.to_string().as_bytes(),
        );
        let r: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(r["error"]["code"], -32001, "{method}: {r}");
    }
    // Untouched: still waiting for the orchestrator's answer under its own agent.
    let (_, r) = rpc(&s, "GetTask", json!({"id": "task-1"}));
    assert_eq!(r["result"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
}

#[test]
fn the_version_header_is_honoured_on_json_rpc_and_batches_are_refused() {
    let s = start("payment-decision.yaml", &[]);
    let post = |version: &str, body: Value| {
        let (_, _, text) = http(
            &s.addr,
            "POST",
            &format!("{AGENT}/"),
            &[CALLER, ("A2A-Version", version)],
            body.to_string().as_bytes(),
        );
        serde_json::from_str::<Value>(&text).unwrap()
    };
    let get = |method: &str| json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"id": "task-1"}});
    for (version, method) in [("2.0", "GetTask"), ("0.3", "GetTask"), ("1.0", "tasks/get")] {
        let r = post(version, get(method));
        assert_eq!(r["error"]["code"], -32009, "{version} {method}: {r}");
        assert_eq!(r["error"]["data"][0]["reason"], "VERSION_NOT_SUPPORTED");
    }
    // A version that agrees with the method is just that: the task is not found.
    assert_eq!(post("1.0", get("GetTask"))["error"]["code"], -32001);
    assert_eq!(post("0.3", get("tasks/get"))["error"]["code"], -32001);
    let (_, _, text) = http(&s.addr, "POST", &format!("{AGENT}/"), &[CALLER], b"[]");
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["error"]["code"], -32600);
    assert!(
        r["error"]["message"].as_str().unwrap().contains("batch"),
        "{r}"
    );
}

#[test]
fn rest_path_ids_are_decoded_and_outrank_the_query() {
    let s = start(SESSION, &[]);
    let task = start_task(&s);
    let other = start_task(&s);
    let configs = format!("{SCREENER}/tasks/{task}/pushNotificationConfigs");
    let body = json!({"url": "https://hooks.acme.example/x", "token": "t", "id": "my cfg"});
    assert_eq!(
        http(
            &s.addr,
            "POST",
            &configs,
            &[CALLER],
            body.to_string().as_bytes()
        )
        .0,
        200
    );
    let (status, _, text) = http(
        &s.addr,
        "GET",
        &format!("{configs}/my%20cfg"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 200, "{text}");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["id"],
        "my cfg"
    );
    let (_, _, text) = http(
        &s.addr,
        "GET",
        &format!("{SCREENER}/tasks/{task}?id={other}"),
        &[CALLER],
        b"",
    );
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["id"], task);
    let (status, _, _) = http(
        &s.addr,
        "DELETE",
        &format!("{configs}/my%20cfg"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 200);
}

#[test]
fn list_tasks_leaves_artifacts_out_unless_asked_and_trims_histories() {
    let s = start(SESSION, &[]);
    start_task(&s);
    let list = |query: &str| {
        let (status, _, text) = http(
            &s.addr,
            "GET",
            &format!("{SCREENER}/tasks{query}"),
            &[CALLER],
            b"",
        );
        (status, serde_json::from_str::<Value>(&text).unwrap())
    };
    let (_, plain) = list("");
    assert!(plain["tasks"][0].get("artifacts").is_none(), "{plain}");
    let (_, full) = list("?includeArtifacts=true&historyLength=1");
    assert_eq!(full["tasks"][0]["artifacts"].as_array().unwrap().len(), 1);
    assert_eq!(full["tasks"][0]["history"].as_array().unwrap().len(), 1);
    // The task's last status is at tick 23 of 2026-01-01T00:00:00Z, a second a tick.
    assert_eq!(
        list("?statusTimestampAfter=2026-01-01T00:00:22Z").1["totalSize"],
        1
    );
    assert_eq!(
        list("?statusTimestampAfter=2026-01-01T00:00:23Z").1["totalSize"],
        0
    );
    assert_eq!(list("?statusTimestampAfter=yesterday").0, 400);
    assert_eq!(list("?historyLength=-1").0, 400);
    let (_, r) = (
        0,
        call(
            &s,
            "orchestrator",
            "GetTask",
            json!({"id": "task-1", "historyLength": -3}),
        ),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let mut params = send_params("Screen Nordwind");
    params["configuration"] = json!({"historyLength": 0});
    let r = call(&s, "orchestrator", "SendMessage", params);
    assert_eq!(r["result"]["task"]["history"], json!([]), "{r}");
}

#[test]
fn an_open_stream_keeps_the_server_from_idling_out() {
    // 20 ticks of 100 ms: the stream stays open 2 s, twice the idle limit.
    let mut s = start(SESSION, &["--tick-ms", "100", "--idle-exit", "1"]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": send_params("Screen Acme")});
    let reader = in_background(&s, &format!("{SCREENER}/"), body);
    let text = reader.join().unwrap();
    let events = sse_events(&text);
    assert_eq!(
        events.last().unwrap()["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    // It idles out afterwards, a whole idle second after the stream ended (stopped mid-stream,
    // it would have sent the rest at once and been gone within moments of it).
    let ended = Instant::now();
    let deadline = ended + Duration::from_secs(20);
    while s.child.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "--idle-exit did not stop the server"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        ended.elapsed() >= Duration::from_millis(500),
        "{:?}",
        ended.elapsed()
    );
}

#[test]
fn a_subscriber_to_an_input_required_task_gets_it_and_its_stream_ends() {
    // As the official servers do: an interrupted task waits on its caller, so a subscription
    // gets the task as it stands and ends; the caller's reply is what moves it on.
    let s = start("payment-decision.yaml", &[]);
    assert_eq!(rpc(&s, "SendMessage", send_params("Pay PMT-10")).0, 200);
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask", "params": {"id": "task-1"}});
    let events: Vec<Value> = sse_events(
        &in_background(&s, &format!("{AGENT}/"), body)
            .join()
            .unwrap(),
    )
    .into_iter()
    .map(|e| e["result"].clone())
    .collect();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(
        events[0]["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    let mut reply = send_params("Nordwind Logistik GmbH, Hamburg, DE");
    reply["message"]["taskId"] = json!("task-1");
    let (status, r) = rpc(&s, "SendMessage", reply);
    assert_eq!(status, 200);
    assert_eq!(
        r["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{r}"
    );
}

#[test]
fn keyed_scenarios_take_bearer_tokens_in_any_case_and_name_tokenless_callers() {
    let s = start("verified-callers.yaml", &[]);
    let jwt = std::fs::read_to_string(format!(
        "{}/scenarios/keys/orchestrator.jwt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("Pay PMT-1")}).to_string();
    let post = |headers: &[(&str, &str)]| {
        let (status, head, text) = http(
            &s.addr,
            "POST",
            &format!("{AGENT}/"),
            headers,
            send.as_bytes(),
        );
        (
            status,
            head.to_ascii_lowercase(),
            serde_json::from_str::<Value>(&text).unwrap(),
        )
    };
    let auth = format!("bearer {}", jwt.trim());
    let (status, _, r) = post(&[("Authorization", &auth)]);
    assert_eq!(status, 200, "{r}");
    assert_eq!(
        r["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    // A caller with a token must show it; naming it is not enough.
    let (status, head, r) = post(&[("X-A2A-Sim-Caller", "orchestrator")]);
    assert_eq!(status, 401, "{r}");
    assert!(head.contains("www-authenticate: bearer"), "{head}");
    assert!(!r.to_string().contains(jwt.trim()));
    // A caller without one is named, and meets the token policy as in `run`: unauthenticated.
    let (status, _, r) = post(&[("X-A2A-Sim-Caller", "anonymous")]);
    assert_eq!(status, 401, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("unauthenticated"),
        "{r}"
    );
}

#[test]
fn a_send_whose_push_config_would_be_refused_is_refused_and_creates_no_task() {
    let s = start(SESSION, &[]);
    let send = |config: Value| {
        let mut params = send_params("Screen Acme");
        params["configuration"] = json!({ "pushNotificationConfig": config });
        call(&s, "orchestrator", "SendMessage", params)
    };
    let r = send(json!({"url": "https://evil.example/x", "token": "t"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("host_not_allowed")
    );
    let r = send(json!({"url": "https://hooks.acme.example/x"}));
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("missing_token"),
        "{r}"
    );
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": send_params("x")["message"], "configuration": {"pushNotificationConfig": {"url": "https://hooks.acme.example/x", "token": "t"}}}});
    let (_, _, text) = http(
        &s.addr,
        "POST",
        "/agents/notary/",
        &[CALLER],
        body.to_string().as_bytes(),
    );
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["error"]["code"],
        -32003
    );
    let (_, _, text) = http(&s.addr, "GET", &format!("{SCREENER}/tasks"), &[CALLER], b"");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["totalSize"],
        0
    );
    // An accepted one: the send goes through.
    let r = send(json!({"url": "https://hooks.acme.example/x", "token": "t"}));
    assert_eq!(r["result"]["task"]["id"], "task-1", "{r}");
}

#[test]
fn bad_setup_flags_stop_serve_before_it_listens() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_a2a-sim"))
            .arg("serve")
            .arg(format!("{}/{SESSION}", env!("CARGO_MANIFEST_DIR")))
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["--advertise-host", "a b/\"x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--advertise-host"));
    let out = run(&["--report", "/nonexistent-dir/r.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write the report"));
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

#[test]
fn a_slow_agents_webhooks_come_when_its_work_is_done() {
    let (hook, posts) = receiver();
    // 20 ticks of 100 ms between the screener's `working` and its `completed`.
    let s = start(SESSION, &["--allow-loopback-push", "--tick-ms", "100"]);
    let mut params = send_params("Screen Acme");
    params["configuration"] =
        json!({"pushNotificationConfig": {"url": format!("http://{hook}/hook"), "token": "tok-5"}});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params});
    let reader = in_background(&s, &format!("{SCREENER}/"), body);
    let working = posts
        .recv_timeout(Duration::from_secs(10))
        .expect("`working`");
    assert!(working.contains("TASK_STATE_WORKING"), "{working}");
    assert!(
        posts.recv_timeout(Duration::from_millis(1000)).is_err(),
        "`completed` was pushed before the agent's wait was over"
    );
    let completed = posts
        .recv_timeout(Duration::from_secs(10))
        .expect("`completed`");
    assert!(completed.contains("TASK_STATE_COMPLETED"), "{completed}");
    reader.join().unwrap();
}

#[test]
fn content_types_the_agents_do_not_handle_are_refused() {
    let s = start(SESSION, &[]);
    let send = |config: Value, extra_part: Option<Value>| {
        let mut params = send_params("Screen Acme");
        params["configuration"] = config;
        if let Some(p) = extra_part {
            params["message"]["parts"].as_array_mut().unwrap().push(p);
        }
        call(&s, "orchestrator", "SendMessage", params)
    };
    let r = send(json!({"acceptedOutputModes": ["image/png"]}), None);
    assert_eq!(r["error"]["code"], -32005, "{r}");
    assert_eq!(
        r["error"]["data"][0]["reason"],
        "CONTENT_TYPE_NOT_SUPPORTED"
    );
    for ok in [
        json!(["TEXT/*"]),
        json!(["*/*"]),
        json!(["application/json"]),
        json!([]),
    ] {
        let r = send(json!({ "acceptedOutputModes": ok }), None);
        assert!(r["result"]["task"].is_object(), "{ok}: {r}");
    }
    let r = send(
        json!({}),
        Some(json!({"url": "https://x.example/a.pdf", "mediaType": "application/pdf"})),
    );
    assert_eq!(r["error"]["code"], -32005, "{r}");
    let body =
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"raw": "AAAA"}]}});
    let (status, _, _) = http(
        &s.addr,
        "POST",
        &format!("{SCREENER}/message:send"),
        &[CALLER],
        body.to_string().as_bytes(),
    );
    assert_eq!(status, 415);
}

#[test]
fn a_notification_is_carried_out_and_not_answered() {
    let s = start(SESSION, &[]);
    let body =
        json!({"jsonrpc": "2.0", "method": "SendMessage", "params": send_params("Screen Acme")});
    let (status, _, text) = http(
        &s.addr,
        "POST",
        &format!("{SCREENER}/"),
        &[CALLER],
        body.to_string().as_bytes(),
    );
    assert_eq!((status, text.as_str()), (204, ""));
    let r = call(&s, "orchestrator", "GetTask", json!({"id": "task-1"}));
    assert_eq!(r["result"]["id"], "task-1", "{r}");
}

#[test]
fn a_message_needs_the_clients_role_and_a_part_and_a_request_one_caller() {
    let s = start(SESSION, &[]);
    let message = |role: &str, parts: Value| json!({"message": {"messageId": "m", "role": role, "parts": parts}});
    for params in [
        message("banana", json!([{"text": "x"}])),
        message("ROLE_AGENT", json!([{"text": "x"}])),
        message("ROLE_USER", json!([])),
    ] {
        let r = call(&s, "orchestrator", "SendMessage", params.clone());
        assert_eq!(r["error"]["code"], -32602, "{params}: {r}");
    }
    let r = call(
        &s,
        "orchestrator",
        "message/send",
        message("user", json!([{"kind": "text", "text": "x"}])),
    );
    assert!(r["result"]["id"].is_string(), "{r}");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "task-1"}});
    let (status, _, _) = http(
        &s.addr,
        "POST",
        &format!("{SCREENER}/"),
        &[CALLER, ("X-A2A-Sim-Caller", "auditor")],
        body.to_string().as_bytes(),
    );
    assert_eq!(status, 401);
}
