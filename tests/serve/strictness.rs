//! Requests read as the protocol types them: one answer for a task that is not there however it
//! is not there, JSON-RPC ids echoed as written, no key twice, every field of its type.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

use super::support::*;

const SESSION: &str = "tests/serve/session.yaml";

/// A raw JSON-RPC body POSTed as `caller` to `agent`; the answer's text.
fn post(s: &Server, agent: &str, caller: &str, body: &str) -> (u16, String) {
    let (status, _, text) = http(
        &s.addr,
        "POST",
        &format!("/agents/{agent}/"),
        &[("X-A2A-Sim-Caller", caller)],
        body.as_bytes(),
    );
    (status, text)
}

fn error_of(text: &str) -> Value {
    serde_json::from_str::<Value>(text).unwrap()["error"].clone()
}

#[test]
fn a_task_not_there_is_not_found_in_one_message_however_it_is_not_there() {
    let s = start(SESSION, &[]);
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("Screen")});
    let (_, text) = post(&s, "screener", "orchestrator", &send.to_string());
    assert!(text.contains("\"task-1\""), "{text}");
    let get = |agent: &str, caller: &str, id: &str| {
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": id}});
        let e = error_of(&post(&s, agent, caller, &body.to_string()).1);
        assert_eq!(e["code"], -32001, "{e}");
        e["message"].as_str().unwrap().replace(id, "ID")
    };
    let unknown = get("screener", "orchestrator", "task-99");
    assert_eq!(
        get("screener", "auditor", "task-1"),
        unknown,
        "another caller's"
    );
    assert_eq!(
        get("notary", "orchestrator", "task-1"),
        unknown,
        "another agent's"
    );
    assert_eq!(unknown, "task_not_found: task `ID` not found");
}

#[test]
fn json_rpc_ids_come_back_as_written() {
    let s = start(SESSION, &[]);
    for id in [
        "123456789012345678901234567890",
        "1.50",
        "-0",
        "\"a\\u0041\"",
        "1e2",
    ] {
        let body = format!(
            r#"{{"jsonrpc": "2.0", "id": {id}, "method": "GetTask", "params": {{"id": "task-9"}}}}"#
        );
        let (_, text) = post(&s, "screener", "orchestrator", &body);
        assert!(
            text.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"error":"#)),
            "{text}"
        );
        let body = format!(r#"{{"jsonrpc": "2.0", "id": {id}, "method": "Nope"}}"#);
        let (_, text) = post(&s, "screener", "orchestrator", &body);
        assert!(text.contains(&format!(r#""id":{id},"#)), "{text}");
    }
    // Each event of a stream carries it too.
    let params = send_params("Screen");
    let body = format!(
        r#"{{"jsonrpc": "2.0", "id": 123456789012345678901234567890, "method": "SendStreamingMessage", "params": {params}}}"#
    );
    let (_, text) = post(&s, "notary", "orchestrator", &body);
    let frames: Vec<&str> = text.split("\n\n").filter(|f| !f.is_empty()).collect();
    assert!(frames.len() >= 3, "{text}");
    for f in frames {
        assert!(
            f.starts_with(
                r#"data: {"jsonrpc":"2.0","id":123456789012345678901234567890,"result":"#
            ),
            "{f}"
        );
    }
}

#[test]
fn a_key_twice_is_refused() {
    let s = start(SESSION, &[]);
    let params = send_params("Screen");
    let envelope = format!(
        r#"{{"jsonrpc": "2.0", "id": 4, "method": "GetTask", "method": "SendMessage", "params": {params}}}"#
    );
    let e = error_of(&post(&s, "screener", "orchestrator", &envelope).1);
    assert_eq!(e["code"], -32600, "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("`method` appears twice"),
        "{e}"
    );
    let inner = r#"{"jsonrpc": "2.0", "id": 5, "method": "SendMessage", "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "a"}], "taskId": "task-1", "taskId": null}}}"#;
    let e = error_of(&post(&s, "screener", "orchestrator", inner).1);
    assert_eq!(e["code"], -32602, "{e}");
    let (status, _, text) = http(
        &s.addr,
        "POST",
        "/agents/screener/message:send",
        &[CALLER],
        br#"{"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "a", "text": "b"}]}}"#,
    );
    assert_eq!(status, 400, "{text}");
    // Nothing was sent: no task was created.
    let get = json!({"jsonrpc": "2.0", "id": 6, "method": "GetTask", "params": {"id": "task-1"}});
    assert_eq!(
        error_of(&post(&s, "screener", "orchestrator", &get.to_string()).1)["code"],
        -32001
    );
}

#[test]
fn fields_of_the_wrong_type_are_refused() {
    let s = start(SESSION, &[]);
    let message = |extra: Value| {
        let mut m = json!({"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "a"}]});
        for (k, v) in extra.as_object().unwrap() {
            m[k] = v.clone();
        }
        m
    };
    let refused = [
        json!({"message": message(json!({"metadata": "x"}))}),
        json!({"message": message(json!({"metadata": [1]}))}),
        json!({"message": message(json!({"extensions": "urn:x"}))}),
        json!({"message": message(json!({"extensions": [1]}))}),
        json!({"message": message(json!({"referenceTaskIds": "task-1"}))}),
        json!({"message": message(json!({"referenceTaskIds": [null]}))}),
        json!({"message": message(json!({"messageId": ""}))}),
        json!({"message": message(json!({"parts": [{}]}))}),
        json!({"message": message(json!({"parts": [{"text": "a"}, {"metadata": {}}]}))}),
        json!({"message": message(json!({"parts": [{"text": "a", "data": {}}]}))}),
        json!({"message": message(json!({"parts": [{"text": "a", "metadata": 3}]}))}),
        json!({"message": message(json!({})), "tenant": 5}),
        json!({"message": message(json!({})), "metadata": "x"}),
        json!({"message": message(json!({})), "configuration": {"historyLength": 2147483648u64}}),
    ];
    for params in refused {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params});
        let e = error_of(&post(&s, "notary", "orchestrator", &body.to_string()).1);
        assert_eq!(e["code"], -32602, "{params}: {e}");
    }
    let get = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "task-1", "historyLength": 4294967296u64}});
    assert_eq!(
        error_of(&post(&s, "notary", "orchestrator", &get.to_string()).1)["code"],
        -32602
    );
    // The same fields of the right types are taken.
    let taken = json!({
        "message": message(json!({"metadata": {"k": 1}, "extensions": ["urn:x"], "referenceTaskIds": [],
            "parts": [{"text": "a", "metadata": {}, "mediaType": "text/plain"}]})),
        "tenant": "acme",
        "metadata": {},
        "configuration": {"historyLength": 2147483647},
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": taken});
    let (_, text) = post(&s, "notary", "orchestrator", &body.to_string());
    assert!(text.contains("TASK_STATE_COMPLETED"), "{text}");
}

/// One raw request (its head lines as given, then the body); the status and the answer.
fn raw(addr: &str, head: &str, body: &[u8]) -> (u16, String, String) {
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let req = format!(
        "{head}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    c.write_all(req.as_bytes()).unwrap();
    c.write_all(body).unwrap();
    let mut out = Vec::new();
    let _ = c.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_string())
}

#[test]
fn a_body_in_a_form_the_server_does_not_read_gets_415() {
    let s = start(SESSION, &[]);
    let rpc = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("Screen")})
        .to_string();
    let rest = send_params("Screen").to_string();
    let h = format!(
        "Host: {}\r\nX-A2A-Sim-Caller: orchestrator\r\nA2A-Version: 1.0",
        s.addr
    );
    for extra in [
        "Content-Type: text/plain",
        "Content-Type: application/x-www-form-urlencoded",
        "Content-Type: application/json; charset=latin1",
        "Content-Type: application/json\r\nContent-Encoding: gzip",
        "Content-Encoding: br",
    ] {
        let (status, head, body) = raw(
            &s.addr,
            &format!("POST /agents/notary/ HTTP/1.1\r\n{h}\r\n{extra}"),
            rpc.as_bytes(),
        );
        assert_eq!(status, 415, "{extra}: {body}");
        assert!(head.contains("accept-encoding: identity"), "{head}");
        assert_eq!(error_of(&body)["code"], -32005, "{extra}: {body}");
        let (status, _, body) = raw(
            &s.addr,
            &format!("POST /agents/notary/message:send HTTP/1.1\r\n{h}\r\n{extra}"),
            rest.as_bytes(),
        );
        assert_eq!(status, 415, "{extra}: {body}");
        assert_eq!(error_of(&body)["code"], 415, "{extra}: {body}");
    }
    // A request without a body (no Content-Length, nothing chunked) is not looked at.
    let mut c = TcpStream::connect(&s.addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let get = format!(
        "GET /agents/notary/tasks HTTP/1.1\r\n{h}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
    );
    c.write_all(get.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = c.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // Refused before anything ran: no task was created.
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": "task-1"}});
    assert_eq!(
        error_of(&post(&s, "notary", "orchestrator", &get.to_string()).1)["code"],
        -32001
    );
    for taken in [
        "Content-Type: application/json",
        "Content-Type: Application/JSON; charset=\"UTF-8\"",
        "Content-Type: application/a2a+json",
        "Content-Type: application/json\r\nContent-Encoding: identity",
    ] {
        let (status, _, body) = raw(
            &s.addr,
            &format!("POST /agents/notary/ HTTP/1.1\r\n{h}\r\n{taken}"),
            rpc.as_bytes(),
        );
        assert_eq!(status, 200, "{taken}: {body}");
        assert!(body.contains("TASK_STATE_COMPLETED"), "{taken}: {body}");
    }
}

#[test]
fn only_the_names_the_server_answers_to_are_taken_as_host() {
    let s = start(SESSION, &["--advertise-host", "Sim.Example"]);
    let port = s.addr.rsplit(':').next().unwrap().to_string();
    let card = |host: Option<&str>| {
        let head = match host {
            Some(h) => {
                format!("GET /agents/notary/.well-known/agent-card.json HTTP/1.1\r\nHost: {h}")
            }
            None => "GET /agents/notary/.well-known/agent-card.json HTTP/1.1".to_string(),
        };
        raw(&s.addr, &head, b"")
    };
    for host in [
        s.addr.clone(),
        format!("localhost:{port}"),
        "LOCALHOST".to_string(),
        format!("sim.example:{port}"),
        format!("[::1]:{port}"),
        "10.0.0.7".to_string(),
    ] {
        assert_eq!(card(Some(&host)).0, 200, "{host}");
    }
    for host in [
        format!("evil.example:{port}"),
        "attacker.test".to_string(),
        format!("sim.example.evil.test:{port}"),
    ] {
        let (status, _, body) = card(Some(&host));
        assert_eq!(status, 421, "{host}: {body}");
        assert!(body.contains("--advertise-host"), "{body}");
    }
    assert_eq!(card(None).0, 421);
    // A rebound name gets no task either.
    let rpc = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("Screen")})
        .to_string();
    let (status, _, _) = raw(
        &s.addr,
        &format!(
            "POST /agents/notary/ HTTP/1.1\r\nHost: evil.example:{port}\r\nX-A2A-Sim-Caller: orchestrator"
        ),
        rpc.as_bytes(),
    );
    assert_eq!(status, 421);
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": "task-1"}});
    assert_eq!(
        error_of(&post(&s, "notary", "orchestrator", &get.to_string()).1)["code"],
        -32001
    );
}
