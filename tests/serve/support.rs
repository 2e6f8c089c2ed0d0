//! What the serve tests share: the binary started on a scenario on port 0, raw HTTP/1.1 requests
//! (one a connection) and JSON-RPC calls, a stream's SSE events, and a webhook receiver on loopback.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::binary::scratch;

pub(super) struct Server {
    pub(super) child: Child,
    pub(super) addr: String,
    pub(super) dir: PathBuf,
}

impl Server {
    /// What the server printed on stderr so far.
    pub(super) fn stderr(&self) -> String {
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

pub(super) fn start(scenario: &str, extra: &[&str]) -> Server {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = scratch(&format!("serve-session-{n}"));
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
pub(super) fn http(
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
    // The version of the JSON-RPC method (a 0.3 name has a `/`), else 1.0, unless the test
    // says which version it asks for: a request without `A2A-Version` is 0.3
    // (`http_unversioned` sends none).
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("a2a-version") || k.is_empty())
    {
        let method = serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|b| b.get("method").and_then(Value::as_str).map(str::to_string));
        let v = match method {
            Some(m) if m.contains('/') => "0.3",
            _ => "1.0",
        };
        req.push_str(&format!("A2A-Version: {v}\r\n"));
    }
    for (k, v) in headers.iter().filter(|(k, _)| !k.is_empty()) {
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

/// One HTTP/1.1 request without an `A2A-Version` header (`http` sends 1.0's by default).
pub(super) fn http_unversioned(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, String) {
    let mut all = vec![("", "")];
    all.extend_from_slice(headers);
    http(addr, method, path, &all, body)
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
pub(super) fn terminate(s: &Server) {
    let killed = Command::new("kill")
        .arg("-TERM")
        .arg(s.child.id().to_string())
        .status()
        .unwrap();
    assert!(killed.success());
}

/// A JSON-RPC request of the orchestrator's on a thread of its own (a stream, read to its end),
/// given a moment to reach the server before the caller goes on.
pub(super) fn in_background(
    s: &Server,
    path: &str,
    body: Value,
) -> std::thread::JoinHandle<String> {
    let (addr, path) = (s.addr.clone(), path.to_string());
    let reader = std::thread::spawn(move || {
        http(&addr, "POST", &path, &[CALLER], body.to_string().as_bytes()).2
    });
    std::thread::sleep(Duration::from_millis(300));
    reader
}

pub(super) const CALLER: (&str, &str) = ("X-A2A-Sim-Caller", "orchestrator");

pub(super) const AGENT: &str = "/agents/payments-agent";

pub(super) fn rpc(s: &Server, method: &str, params: Value) -> (u16, Value) {
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

pub(super) fn send_params(text: &str) -> Value {
    json!({"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}})
}

/// A JSON-RPC SendMessage of `text` to the agent at `path`, with a push config for `url`; the
/// response.
pub(super) fn send_with_push(s: &Server, path: &str, text: &str, url: &str, token: &str) -> Value {
    let mut params = send_params(text);
    params["configuration"] = json!({"pushNotificationConfig": {"url": url, "token": token}});
    let send =
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params}).to_string();
    let (_, _, text) = http(&s.addr, "POST", path, &[CALLER], send.as_bytes());
    serde_json::from_str(&text).unwrap()
}

pub(super) fn sse_events(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter_map(|e| e.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

/// One HTTP request as a receiver reads it: the head, then the body its Content-Length names;
/// `None` when the peer went away first (or never finished a TLS handshake).
pub(super) fn read_request(stream: &mut impl Read) -> Option<String> {
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
pub(super) fn receiver() -> (String, std::sync::mpsc::Receiver<String>) {
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

pub(super) const SESSION: &str = "tests/serve/session.yaml";

pub(super) const SCREENER: &str = "/agents/screener";

/// A JSON-RPC call to the screener as `caller`; the parsed answer (an SSE answer's events are
/// in `events`).
pub(super) fn call(s: &Server, caller: &str, method: &str, params: Value) -> Value {
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
pub(super) fn start_task(s: &Server) -> String {
    let mut params = send_params("Screen Acme Trading FZE");
    params["configuration"] = json!({"returnImmediately": true});
    let r = call(s, "orchestrator", "SendMessage", params);
    r["result"]["task"]["id"].as_str().unwrap().to_string()
}

/// `a2a-sim serve ARGS` run in `dir` (it is given `--listen 127.0.0.1:0 --tick-ms 0
/// --ready-file ready`), its standard output piped; the child and the address it listens on.
#[expect(
    clippy::zombie_processes,
    reason = "the caller waits for the child it is handed"
)]
pub(super) fn serve_in(dir: &std::path::Path, args: &[&str]) -> (Child, String) {
    let ready = dir.join("ready");
    let _ = std::fs::remove_file(&ready);
    let mut child = Command::new(env!("CARGO_BIN_EXE_a2a-sim"))
        .arg("serve")
        .args(args)
        .args(["--listen", "127.0.0.1:0", "--tick-ms", "0", "--ready-file"])
        .arg(&ready)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(s) = std::fs::read_to_string(&ready)
            && s.ends_with('\n')
        {
            return (child, s.trim().to_string());
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server never became ready");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
