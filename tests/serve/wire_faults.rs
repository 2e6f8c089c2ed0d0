//! The wire faults as a client meets them: `http_error` is that status with the binding's error
//! body, `reset` a connection closed without an answer, `drop_stream` a stream cut short; each
//! on the request its `calls` picks, the next request answered.

use serde_json::{Value, json};

use super::{http, send_params, sse_events, start};

const PATH: &str = "/as/u/agents/flaky/";

fn request(s: &super::Server, method: &str) -> (u16, String, String) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": send_params("x")});
    http(&s.addr, "POST", PATH, &[], body.to_string().as_bytes())
}

#[test]
fn each_request_meets_the_fault_its_number_picks() {
    let s = start("tests/serve/wire-faults.yaml", &[]);
    // 1: HTTP 502 with the JSON-RPC error, its reason saying why.
    let (status, _, body) = request(&s, "SendMessage");
    assert_eq!(status, 502, "{body}");
    let r: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(r["error"]["data"][0]["reason"], "AGENT_HTTP_ERROR", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("answered HTTP 502"),
        "{r}"
    );
    // 2: the connection closes with nothing sent.
    let (status, head, body) = request(&s, "SendMessage");
    assert_eq!((status, head.as_str(), body.as_str()), (0, "", ""));
    // 3: a stream cut after its first event: the task never reaches its end on the wire.
    let (status, _, body) = request(&s, "SendStreamingMessage");
    assert_eq!(status, 200);
    let events = sse_events(&body);
    assert_eq!(events.len(), 1, "{body}");
    // 4: answered in full.
    let (status, _, body) = request(&s, "SendStreamingMessage");
    assert_eq!(status, 200);
    let events = sse_events(&body);
    let last = &events.last().unwrap()["result"];
    assert_eq!(
        last["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{body}"
    );
}

#[test]
fn an_http_error_on_the_rest_binding_is_that_status_with_its_error_body() {
    let s = start("tests/serve/wire-faults.yaml", &[]);
    let (status, _, body) = http(
        &s.addr,
        "POST",
        "/as/u/agents/flaky/message:send",
        &[("Content-Type", "application/json")],
        send_params("x").to_string().as_bytes(),
    );
    assert_eq!(status, 502, "{body}");
    let r: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(r["error"]["code"], 502, "{r}");
}
