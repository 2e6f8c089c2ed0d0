//! Bad requests get the protocol's error, never a panic, a hang or a dropped connection: every
//! method with params of every wrong shape, on both bindings, then mangled bodies.

use serde_json::{Value, json};

use super::support::*;

const METHODS: &[&str] = &[
    "SendMessage",
    "SendStreamingMessage",
    "GetTask",
    "ListTasks",
    "CancelTask",
    "SubscribeToTask",
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig",
    "GetExtendedAgentCard",
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/cancel",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
];

/// Params of the wrong shape, and right shapes holding wrong values.
fn bad_params() -> Vec<Value> {
    let mut v = vec![
        json!(null),
        json!(1),
        json!("x"),
        json!([]),
        json!([{"message": {}}]),
        json!({}),
        json!({"id": null}),
        json!({"id": 1}),
        json!({"id": ["task-1"]}),
        json!({"id": "task-999999999999999999999"}),
        json!({"id": "task-0"}),
        json!({"id": "task-1", "historyLength": -1}),
        json!({"id": "task-1", "historyLength": "lots"}),
        json!({"taskId": "task-1"}),
        json!({"taskId": "task-1", "url": 5}),
        json!({"taskId": "task-1", "url": "http://[::1", "token": "t"}),
        json!({"taskId": "task-1", "pushNotificationConfig": "x"}),
        json!({"message": null}),
        json!({"message": "hello"}),
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": "text"}}),
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [1, null, "x"]}}),
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": 5}]}}),
        json!({"message": {"messageId": "m", "role": 7, "parts": []}}),
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}], "taskId": 3}}),
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}], "taskId": "task-77"}}),
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}], "contextId": {}}}),
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}, "configuration": 4}),
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}, "configuration": {"returnImmediately": "yes"}}),
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"data": [1, 2]}]}}),
        json!({"pageSize": 0}),
        json!({"pageSize": 1000}),
        json!({"pageSize": "ten"}),
        json!({"pageToken": "x"}),
        json!({"status": "TASK_STATE_BOGUS"}),
    ];
    v.push(json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x".repeat(3000)}]}}));
    v
}

/// Status and body of one raw request; the connection must answer.
fn answered(s: &Server, method: &str, path: &str, body: &[u8]) -> (u16, String) {
    let (status, head, text) = http(&s.addr, method, path, &[CALLER], body);
    assert!(
        status != 0,
        "no answer to {method} {path} {:?}",
        String::from_utf8_lossy(body)
    );
    assert!(status < 500, "{status} for {method} {path}: {head}\n{text}");
    (status, text)
}

#[test]
fn every_method_with_bad_params_gets_a_json_rpc_error() {
    let s = start("payment-decision.yaml", &[]);
    for method in METHODS {
        for params in bad_params() {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
            let (_, text) = answered(
                &s,
                "POST",
                &format!("{AGENT}/"),
                body.to_string().as_bytes(),
            );
            // A stream's answer is events; each is an error or a result, never neither.
            let docs: Vec<Value> = match serde_json::from_str::<Value>(&text) {
                Ok(doc) => vec![doc],
                Err(_) => sse_events(&text),
            };
            assert!(!docs.is_empty(), "{method} {params}: {text}");
            for doc in docs {
                assert!(
                    doc["error"]["code"].is_i64() || doc.get("result").is_some(),
                    "{method} {params}: {doc}"
                );
            }
        }
    }
    assert_eq!(rpc(&s, "SendMessage", send_params("still up")).0, 200);
}

#[test]
fn rest_routes_with_bad_bodies_and_paths_get_4xx() {
    let s = start("payment-decision.yaml", &[]);
    let bodies: Vec<Vec<u8>> = bad_params()
        .iter()
        .map(|p| p.to_string().into_bytes())
        .chain([b"{".to_vec(), b"\xff\xfe".to_vec(), b"".to_vec()])
        .collect();
    let routes = [
        ("POST", "/message:send"),
        ("POST", "/message:stream"),
        ("GET", "/tasks"),
        ("GET", "/tasks?pageSize=0"),
        ("GET", "/tasks?status=%ZZ"),
        ("GET", "/tasks/task-1"),
        ("GET", "/tasks/%00"),
        ("POST", "/tasks/task-1:cancel"),
        ("POST", "/tasks/task-1:subscribe"),
        ("POST", "/tasks/task-1/pushNotificationConfigs"),
        ("GET", "/tasks/task-1/pushNotificationConfigs/x"),
        ("DELETE", "/tasks/task-1/pushNotificationConfigs/x"),
        ("PUT", "/tasks/task-1"),
        ("GET", "/tasks/a/b/c/d"),
        ("POST", "/nowhere"),
    ];
    for (method, route) in routes {
        for body in &bodies {
            answered(&s, method, &format!("{AGENT}{route}"), body);
        }
    }
    assert_eq!(rpc(&s, "SendMessage", send_params("still up")).0, 200);
}

#[test]
fn mangled_json_rpc_bodies_get_an_error() {
    let s = start("payment-decision.yaml", &[]);
    let good =
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("pay")})
            .to_string();
    // A fixed walk of cuts and byte flips (SplitMix64, seed 12): the same requests every run.
    let mut x: u64 = 12;
    let mut next = || {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for _ in 0..300 {
        let mut body = good.clone().into_bytes();
        match next() % 3 {
            0 => body.truncate((next() % body.len() as u64) as usize),
            1 => {
                let i = (next() % body.len() as u64) as usize;
                body[i] = (next() % 256) as u8;
            }
            _ => {
                let i = (next() % body.len() as u64) as usize;
                body.insert(i, b"{[\"\\:,}]"[(next() % 8) as usize]);
            }
        }
        let (status, text) = answered(&s, "POST", &format!("{AGENT}/"), &body);
        if status == 200 {
            let doc: Value = serde_json::from_str(&text)
                .unwrap_or_else(|_| json!({"events": sse_events(&text)}));
            assert!(doc.is_object(), "{text}");
        }
    }
    assert_eq!(rpc(&s, "SendMessage", send_params("still up")).0, 200);
}
