//! `a2a-sim serve` over raw HTTP: the binary on port 0, one request a connection.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod identity;
mod limits;
mod report;
mod robustness;
mod sessions;
mod strictness;
mod tls;
mod wire_faults;

struct Server {
    child: Child,
    addr: String,
    dir: PathBuf,
}

impl Server {
    /// What the server printed on stderr so far.
    fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.join("stderr")).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn start(scenario: &str, extra: &[&str]) -> Server {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("a2a-sim-serve-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ready = dir.join("ready");
    let child = Command::new(env!("CARGO_BIN_EXE_a2a-sim"))
        .arg("serve")
        // A bundled scenario by name, or a path from the repository's root.
        .arg(if scenario.contains('/') {
            format!("{}/{scenario}", env!("CARGO_MANIFEST_DIR"))
        } else {
            format!("{}/scenarios/{scenario}", env!("CARGO_MANIFEST_DIR"))
        })
        .args(["--listen", "127.0.0.1:0", "--ready-file"])
        .arg(&ready)
        // Ticks take no real time unless a test says otherwise.
        .args(if extra.contains(&"--tick-ms") {
            &[][..]
        } else {
            &["--tick-ms", "0"][..]
        })
        .args(extra)
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("stderr")).unwrap())
        .spawn()
        .unwrap();
    // Owned at once, so a failed wait below still kills and reaps it.
    let mut server = Server {
        child,
        addr: String::new(),
        dir,
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(s) = std::fs::read_to_string(&ready)
            && s.ends_with('\n')
        {
            server.addr = s.trim().to_string();
            return server;
        }
        assert!(Instant::now() < deadline, "the server never became ready");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One HTTP/1.1 request; (status, headers, body).
fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    (status, head.to_string(), body)
}

/// A chunked body's data (a live stream's events arrive chunk by chunk).
fn dechunk(mut rest: &str) -> String {
    let mut body = String::new();
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || tail.len() < n {
            break;
        }
        body.push_str(&tail[..n]);
        rest = tail[n..].strip_prefix("\r\n").unwrap_or(&tail[n..]);
    }
    body
}

/// SIGTERM to the server.
fn terminate(s: &Server) {
    let killed = Command::new("kill")
        .arg("-TERM")
        .arg(s.child.id().to_string())
        .status()
        .unwrap();
    assert!(killed.success());
}

/// A JSON-RPC request of the orchestrator's on a thread of its own (a stream, read to its end),
/// given a moment to reach the server before the caller goes on.
fn in_background(s: &Server, path: &str, body: Value) -> std::thread::JoinHandle<String> {
    let (addr, path) = (s.addr.clone(), path.to_string());
    let reader = std::thread::spawn(move || {
        http(&addr, "POST", &path, &[CALLER], body.to_string().as_bytes()).2
    });
    std::thread::sleep(Duration::from_millis(300));
    reader
}

const CALLER: (&str, &str) = ("X-A2A-Sim-Caller", "orchestrator");
const AGENT: &str = "/agents/payments-agent";

fn rpc(s: &Server, method: &str, params: Value) -> (u16, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let (status, _, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/"),
        &[CALLER],
        body.to_string().as_bytes(),
    );
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn send_params(text: &str) -> Value {
    json!({"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}})
}

/// A JSON-RPC SendMessage of `text` to the agent at `path`, with a push config for `url`; the
/// response.
fn send_with_push(s: &Server, path: &str, text: &str, url: &str, token: &str) -> Value {
    let mut params = send_params(text);
    params["configuration"] = json!({"pushNotificationConfig": {"url": url, "token": token}});
    let send =
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params}).to_string();
    let (_, _, text) = http(&s.addr, "POST", path, &[CALLER], send.as_bytes());
    serde_json::from_str(&text).unwrap()
}

fn sse_events(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter_map(|e| e.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

#[test]
fn card_names_the_served_address() {
    let s = start("payment-decision.yaml", &[]);
    let (status, _, body) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/.well-known/agent-card.json"),
        &[],
        b"",
    );
    assert_eq!(status, 200);
    let card: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        card["supportedInterfaces"][0]["url"],
        json!(format!("http://{}{AGENT}/", s.addr))
    );
    assert_eq!(
        card["supportedInterfaces"][1]["protocolBinding"],
        "HTTP+JSON"
    );
    let s03 = start(
        "payment-decision.yaml",
        &["--a2a-version", "0.3", "--advertise-host", "sim.local"],
    );
    let (_, _, body) = http(
        &s03.addr,
        "GET",
        &format!("{AGENT}/.well-known/agent-card.json"),
        &[],
        b"",
    );
    let card: Value = serde_json::from_str(&body).unwrap();
    let port = s03.addr.rsplit(':').next().unwrap();
    assert_eq!(
        card["url"],
        json!(format!("http://sim.local:{port}{AGENT}/"))
    );
    assert_eq!(card["protocolVersion"], "0.3.0");
}

#[test]
fn jsonrpc_send_get_cancel_in_both_versions() {
    let s = start("payment-decision.yaml", &[]);
    let (status, r) = rpc(&s, "SendMessage", send_params("pay 100"));
    assert_eq!(status, 200);
    assert_eq!(r["id"], 7);
    let task = &r["result"]["task"];
    assert_eq!(task["id"], "task-1");
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    // 0.3 names answer on the same endpoint, in 0.3's shapes.
    let (_, r) = rpc(&s, "tasks/get", json!({"id": "task-1"}));
    assert_eq!(r["result"]["kind"], "task");
    assert_eq!(r["result"]["status"]["state"], "input-required");
    let (_, r) = rpc(&s, "CancelTask", json!({"id": "task-1"}));
    assert_eq!(r["result"]["status"]["state"], "TASK_STATE_CANCELED");
    let (_, r) = rpc(&s, "tasks/cancel", json!({"id": "task-1"}));
    assert_eq!(r["error"]["code"], -32002);
    let (_, r) = rpc(&s, "GetTask", json!({"id": "task-99"}));
    assert_eq!(r["error"]["code"], -32001);
}

#[test]
fn another_callers_task_is_not_found() {
    let s = start("push-notifications.yaml", &[]);
    let path = "/agents/ledger-agent/";
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("Book PMT-1")}).to_string();
    let (_, _, text) = http(&s.addr, "POST", path, &[CALLER], send.as_bytes());
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["result"]["task"]["id"], "task-1", "{r}");
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": "task-1"}})
        .to_string();
    let (_, _, text) = http(
        &s.addr,
        "POST",
        path,
        &[("X-A2A-Sim-Caller", "case-manager")],
        get.as_bytes(),
    );
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["error"]["code"],
        -32001
    );
    let (status, _, _) = http(
        &s.addr,
        "GET",
        "/agents/ledger-agent/tasks/task-1",
        &[("X-A2A-Sim-Caller", "case-manager")],
        b"",
    );
    assert_eq!(status, 404);
    // No caller, an unknown caller: authentication errors.
    let (status, _, _) = http(&s.addr, "POST", path, &[], get.as_bytes());
    assert_eq!(status, 401);
    let (status, _, _) = http(
        &s.addr,
        "POST",
        path,
        &[("X-A2A-Sim-Caller", "mallory")],
        get.as_bytes(),
    );
    assert_eq!(status, 401);
}

#[test]
fn a_stream_ends_at_the_status_that_ends_or_pauses_its_task_and_subscribe_to_unknown_is_a_stream() {
    let s = start("payment-decision.yaml", &[]);
    let body = json!({"jsonrpc": "2.0", "id": "s", "method": "SendStreamingMessage", "params": send_params("pay")}).to_string();
    let (status, head, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/"),
        &[CALLER],
        body.as_bytes(),
    );
    assert_eq!(status, 200);
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/event-stream"),
        "{head}"
    );
    let events = sse_events(&text);
    assert!(events.len() >= 3, "{events:?}");
    assert!(events[0]["result"]["task"].is_object());
    // As the official servers end theirs: at the status update that pauses (or ends) the task.
    let last = &events.last().unwrap()["result"]["statusUpdate"];
    assert_eq!(
        last["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{events:?}"
    );
    assert!(events[1..].iter().all(|e| e["result"]["task"].is_null()));
    assert!(events.iter().all(|e| e["id"] == "s"));
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "SubscribeToTask", "params": {"id": "task-42"}}).to_string();
    let (status, head, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/"),
        &[CALLER],
        body.as_bytes(),
    );
    assert_eq!(status, 200);
    assert!(head.to_ascii_lowercase().contains("text/event-stream"));
    let events = sse_events(&text);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["error"]["code"], -32001);
    // REST form too.
    let (_, head, text) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-42:subscribe"),
        &[CALLER],
        b"",
    );
    assert!(head.to_ascii_lowercase().contains("text/event-stream"));
    assert_eq!(sse_events(&text)[0]["error"]["code"], 404);
}

#[test]
fn rest_binding() {
    let s = start("payment-decision.yaml", &[]);
    let body = send_params("pay").to_string();
    let (status, _, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/message:send"),
        &[CALLER],
        body.as_bytes(),
    );
    assert_eq!(status, 200);
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["task"]["id"], "task-1");
    let (status, _, text) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-1"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["id"],
        "task-1"
    );
    let (status, _, _) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-9"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 404);
    let (status, _, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/tasks/task-1:cancel"),
        &[CALLER],
        b"{}",
    );
    assert_eq!(status, 200, "{text}");
    let (status, _, _) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/tasks/task-1:cancel"),
        &[CALLER],
        b"{}",
    );
    assert_eq!(status, 409);
    let (_, _, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/message:stream"),
        &[CALLER],
        body.as_bytes(),
    );
    let events = sse_events(&text);
    assert!(events[0]["task"].is_object() && events.last().unwrap()["statusUpdate"].is_object());
    let (status, _, _) = http(&s.addr, "GET", "/agents/nobody/tasks", &[CALLER], b"");
    assert_eq!(status, 404);
}

#[test]
fn list_tasks_pages_and_refuses_a_bad_filter() {
    let s = start("payment-decision.yaml", &[]);
    for _ in 0..3 {
        rpc(&s, "SendMessage", send_params("pay"));
    }
    let (_, r) = rpc(&s, "ListTasks", json!({"pageSize": 2}));
    assert_eq!(r["result"]["tasks"].as_array().unwrap().len(), 2);
    assert_eq!(r["result"]["totalSize"], 3);
    assert_eq!(r["result"]["nextPageToken"], "2");
    let (_, r) = rpc(&s, "ListTasks", json!({"pageSize": 2, "pageToken": "2"}));
    assert_eq!(r["result"]["tasks"].as_array().unwrap().len(), 1);
    assert_eq!(r["result"]["nextPageToken"], "");
    let (_, r) = rpc(&s, "ListTasks", json!({"status": "TASK_STATE_BOGUS"}));
    assert_eq!(r["error"]["code"], -32602);
    let (_, r) = rpc(&s, "ListTasks", json!({"pageSize": 0}));
    assert_eq!(r["error"]["code"], -32602);
    let (status, _, text) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks?pageSize=1"),
        &[CALLER],
        b"",
    );
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["tasks"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn protocol_errors() {
    let s = start("payment-decision.yaml", &["--max-body", "1000"]);
    let post = |body: &[u8]| {
        let (status, _, text) = http(&s.addr, "POST", &format!("{AGENT}/"), &[CALLER], body);
        (
            status,
            serde_json::from_str::<Value>(&text).unwrap_or(Value::Null),
        )
    };
    assert_eq!(post(b"{not json").1["error"]["code"], -32700);
    assert_eq!(post(b"[1,2]").1["error"]["code"], -32600);
    assert_eq!(
        post(br#"{"jsonrpc":"2.0","id":1}"#).1["error"]["code"],
        -32600
    );
    assert_eq!(
        post(br#"{"jsonrpc":"2.0","id":1,"method":"tasks/frobnicate"}"#).1["error"]["code"],
        -32601
    );
    assert_eq!(post(br#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":1,"role":"ROLE_USER","parts":[]}}}"#).1["error"]["code"], -32602);
    assert_eq!(
        post(br#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":[]}"#).1["error"]["code"],
        -32602
    );
    assert_eq!(
        post(br#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":5}}"#).1["error"]["code"],
        -32602
    );
    assert_eq!(post(br#"{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/get","params":{"id":"task-1"}}"#).1["error"]["code"], -32001);
    assert_eq!(
        post(br#"{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"}"#).1["error"]["code"],
        -32007
    );
    let big = vec![b' '; 5000];
    assert_eq!(post(&big).0, 413);
    // The server is still up.
    assert_eq!(rpc(&s, "SendMessage", send_params("pay")).0, 200);
}

#[test]
fn a_denied_request_carries_every_code_and_creates_no_task() {
    let s = start("admission-denials.yaml", &[]);
    let text = std::fs::read_to_string(format!(
        "{}/scenarios/admission-denials.golden.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let golden: Value = serde_json::from_str(&text).unwrap();
    // The first denied step of the file's own run names the caller, the agent and the codes.
    let denied = golden["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|st| st["result"]["denied"].is_array())
        .unwrap()
        .clone();
    let caller = denied["caller"].as_str().unwrap().to_string();
    let denial = golden["denials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["step"] == denied["step"])
        .unwrap()
        .clone();
    let agent = denial["callee"].as_str().unwrap().to_string();
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("hi")})
            .to_string();
    let (_, _, text) = http(
        &s.addr,
        "POST",
        &format!("/agents/{agent}/"),
        &[("X-A2A-Sim-Caller", &caller)],
        body.as_bytes(),
    );
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["error"]["code"], -32050, "{r}");
    // The codes travel as A2A's servers send details: a google.rpc.ErrorInfo, metadata strings.
    let info = &r["error"]["data"][0];
    assert_eq!(info["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
    assert_eq!(info["reason"], "ADMISSION_DENIED");
    let codes: Vec<&str> = denied["result"]["denied"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(info["metadata"]["denials"], codes.join(","));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}).to_string();
    let (_, _, text) = http(
        &s.addr,
        "POST",
        &format!("/agents/{agent}/"),
        &[("X-A2A-Sim-Caller", &caller)],
        body.as_bytes(),
    );
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["result"]["totalSize"],
        0
    );
}

#[test]
fn root_agent_and_report_on_exit_after() {
    let mut s = start(
        "payment-decision.yaml",
        &[
            "--root-agent",
            "payments-agent",
            "--report",
            "report.json",
            "--exit-after",
            "3",
        ],
    );
    let (status, _, _) = http(&s.addr, "GET", "/.well-known/agent-card.json", &[], b"");
    assert_eq!(status, 200);
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("pay")})
            .to_string();
    let (_, _, text) = http(&s.addr, "POST", "/", &[CALLER], body.as_bytes());
    assert!(text.contains("task-1"), "{text}");
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": "task-1"}})
        .to_string();
    http(
        &s.addr,
        "POST",
        &format!("{AGENT}/"),
        &[CALLER],
        get.as_bytes(),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(st) = s.child.try_wait().unwrap() {
            break st;
        }
        assert!(
            Instant::now() < deadline,
            "the server did not exit after 3 requests"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(s.dir.join("report.json")).unwrap()).unwrap();
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0]["op"], "send");
    assert_eq!(steps[1]["op"], "get");
    assert_eq!(steps[1]["result"]["task"], "task-1");
}

/// One HTTP request as a receiver reads it: the head, then the body its Content-Length names;
/// `None` when the peer went away first (or never finished a TLS handshake).
fn read_request(stream: &mut impl Read) -> Option<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = match stream.read(&mut chunk) {
            Ok(n) if n > 0 => n,
            _ => return None,
        };
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).to_string();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let len = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length: ")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            if body.len() >= len {
                return Some(text);
            }
        }
    }
}

/// A webhook receiver on a free loopback port: every request it got, raw, through the channel.
fn receiver() -> (String, std::sync::mpsc::Receiver<String>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let Some(buf) = read_request(&mut stream) else {
                continue;
            };
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            if tx.send(buf).is_err() {
                return;
            }
        }
    });
    (addr, rx)
}

#[test]
fn webhooks_are_posted_to_a_loopback_receiver_only_when_allowed() {
    let (hook, posts) = receiver();
    let s = start("push-notifications.yaml", &["--allow-loopback-push"]);
    let path = "/agents/sanctions-screener/";
    let url = format!("http://{hook}/hook");
    let r = send_with_push(&s, path, "Screen PMT-1", &url, "tok-1");
    assert_eq!(r["result"]["task"]["id"], "task-1", "{r}");
    let first = posts
        .recv_timeout(Duration::from_secs(10))
        .expect("no webhook arrived");
    let lower = first.to_ascii_lowercase();
    assert!(lower.starts_with("post /hook http/1.1"), "{first}");
    assert!(lower.contains("x-a2a-notification-token: tok-1"), "{first}");
    let body: Value = serde_json::from_str(first.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(body["statusUpdate"]["taskId"], "task-1");
    // Without the flag the loopback URL is refused by the allow-list, and nothing is posted.
    let (hook2, posts2) = receiver();
    let s2 = start("push-notifications.yaml", &[]);
    let set = json!({"jsonrpc": "2.0", "id": 2, "method": "CreateTaskPushNotificationConfig", "params": {"taskId": "task-1", "url": format!("http://{hook2}/hook"), "token": "t"}}).to_string();
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params("Screen")}).to_string();
    http(&s2.addr, "POST", path, &[CALLER], send.as_bytes());
    let (_, _, text) = http(&s2.addr, "POST", path, &[CALLER], set.as_bytes());
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["error"]["code"],
        -32602,
        "{text}"
    );
    assert!(posts2.recv_timeout(Duration::from_millis(300)).is_err());
    // An agent without push capability: PushNotificationNotSupported, for reads too (capability
    // first, so no task id is revealed).
    let get = json!({"jsonrpc": "2.0", "id": 3, "method": "GetTaskPushNotificationConfig", "params": {"taskId": "task-1", "id": "x"}}).to_string();
    for body in [&set, &get] {
        let (_, _, text) = http(
            &s2.addr,
            "POST",
            "/agents/ledger-agent/",
            &[CALLER],
            body.as_bytes(),
        );
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap()["error"]["code"],
            -32003,
            "{text}"
        );
    }
}

#[test]
fn version_header_history_length_and_wall_clock() {
    let s = start("payment-decision.yaml", &[]);
    let body = send_params("pay").to_string();
    let (_, _, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/message:send"),
        &[CALLER],
        body.as_bytes(),
    );
    let scenario_ts =
        serde_json::from_str::<Value>(&text).unwrap()["task"]["status"]["timestamp"].clone();
    let (_, _, text) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-1"),
        &[CALLER, ("A2A-Version", "0.3")],
        b"",
    );
    let t: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(t["kind"], "task");
    assert_eq!(t["status"]["state"], "input-required");
    let (status, _, text) = http(
        &s.addr,
        "GET",
        &format!("{AGENT}/tasks/task-1"),
        &[CALLER, ("A2A-Version", "9.9")],
        b"",
    );
    assert_eq!(status, 400);
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["error"]["details"][0]["reason"],
        "VERSION_NOT_SUPPORTED"
    );
    let (_, r) = rpc(&s, "GetTask", json!({"id": "task-1", "historyLength": 1}));
    assert_eq!(r["result"]["history"].as_array().unwrap().len(), 1);
    // --wall-clock: the same request stamped from the session's start, not the file's epoch.
    let w = start("payment-decision.yaml", &["--wall-clock"]);
    let (_, _, text) = http(
        &w.addr,
        "POST",
        &format!("{AGENT}/message:send"),
        &[CALLER],
        body.as_bytes(),
    );
    let wall_ts =
        serde_json::from_str::<Value>(&text).unwrap()["task"]["status"]["timestamp"].clone();
    assert!(wall_ts.is_string());
    assert_ne!(wall_ts, scenario_ts);
}

#[test]
fn report_on_sigterm_and_idle_exit() {
    let mut s = start("payment-decision.yaml", &["--report", "r.json"]);
    rpc(&s, "SendMessage", send_params("pay"));
    terminate(&s);
    let status = s.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(s.dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(report["steps"].as_array().unwrap().len(), 1);
    let mut s = start(
        "payment-decision.yaml",
        &["--report", "r.json", "--idle-exit", "0.3"],
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while s.child.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "--idle-exit did not stop the server"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(s.dir.join("r.json").exists());
}

/// A reply to payment-decision's input-required task-1, as a stream, on a server started with
/// `flags`: its events' results.
fn streamed_reply(flags: &[&str]) -> Vec<Value> {
    let s = start("payment-decision.yaml", flags);
    let (_, r) = rpc(&s, "SendMessage", send_params("pay 100"));
    assert_eq!(
        r["result"]["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    let mut params = send_params("ACME GmbH, Germany");
    params["message"]["taskId"] = json!("task-1");
    let body =
        json!({"jsonrpc": "2.0", "id": 9, "method": "SendStreamingMessage", "params": params})
            .to_string();
    let (_, head, text) = http(
        &s.addr,
        "POST",
        &format!("{AGENT}/"),
        &[CALLER],
        body.as_bytes(),
    );
    assert!(
        head.to_ascii_lowercase().contains("text/event-stream"),
        "{head}"
    );
    sse_events(&text)
        .into_iter()
        .map(|e| e["result"].clone())
        .collect()
}

#[test]
fn a_reply_continues_the_task_and_on_a_stream_answers_as_a_stream() {
    let events = streamed_reply(&[]);
    // The task as it stood, its own transitions, and the status update the reply left it in,
    // last (nothing follows it); the stream carries its own task only.
    assert_eq!(events[0]["task"]["id"], "task-1");
    let last = &events[events.len() - 1]["statusUpdate"];
    assert_eq!(last["taskId"], "task-1");
    assert_ne!(last["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert!(
        events
            .iter()
            .any(|e| e["statusUpdate"]["taskId"] == "task-1"
                && e["statusUpdate"]["status"]["state"] == "TASK_STATE_WORKING"),
        "the reply's own working: {events:?}"
    );
    assert!(
        events.iter().all(|e| {
            let inner = e.as_object().unwrap().values().next().unwrap();
            inner["taskId"] == "task-1" || inner["id"] == "task-1"
        }),
        "a child task's event was relayed: {events:?}"
    );
}

#[test]
fn relay_children_adds_the_child_tasks_events_to_a_stream() {
    let events = streamed_reply(&["--relay-children"]);
    // The screener's events are relayed (its artifact carries the recommendation); the stream
    // still ends at its own task's last status update.
    assert_eq!(events[0]["task"]["id"], "task-1");
    let last = &events[events.len() - 1]["statusUpdate"];
    assert_eq!(last["taskId"], "task-1");
    assert_ne!(last["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let working = events
        .iter()
        .position(|e| {
            e["statusUpdate"]["taskId"] == "task-1"
                && e["statusUpdate"]["status"]["state"] == "TASK_STATE_WORKING"
        })
        .expect("the reply's own working");
    let artifact = events
        .iter()
        .position(|e| e["artifactUpdate"]["taskId"] == "task-2")
        .expect("the screener's artifact, relayed");
    assert!(working < artifact, "{events:?}");
    assert_eq!(
        events[artifact]["artifactUpdate"]["artifact"]["parts"][1]["data"]["recommendation"],
        "clear"
    );
    // Only the stream's own task appears as a Task.
    assert!(
        events
            .iter()
            .filter_map(|e| e.get("task"))
            .all(|t| t["id"] == "task-1")
    );
}
