//! A client cannot hold a connection forever: slow heads and bodies, idle connections and
//! keep-alive connections left idle are closed on their timeouts, and past the connection cap a
//! client gets 503 at once, while other clients are served all along.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use super::support::*;

/// Limits short enough for a test.
const SHORT: &[&str] = &["--header-timeout", "1", "--keep-alive-timeout", "1"];

/// Whether the server closed `s` (end of stream, or a reset) within `within`.
fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
    s.set_read_timeout(Some(within)).unwrap();
    let mut byte = [0u8; 256];
    let start = Instant::now();
    loop {
        match s.read(&mut byte) {
            Ok(0) => return true,
            // What the server wrote before closing (a 408, say): read on.
            Ok(_) if start.elapsed() < within => {}
            Ok(_) => return false,
            Err(e) => {
                return !matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                );
            }
        }
    }
}

/// Writes `bytes` one every 0.2 s (at most 50: ten seconds) until the server closes the
/// connection; whether it did.
fn trickle(addr: &str, bytes: &[u8]) -> bool {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(1))).unwrap();
    for &b in bytes.iter().cycle().take(50) {
        if s.write_all(&[b]).is_err() {
            return true;
        }
        let mut buf = [0u8; 256];
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e)
                if !matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return true;
            }
            Err(_) => {}
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    false
}

#[test]
fn slow_and_idle_connections_are_closed_while_others_are_served() {
    let s = start("payment-decision.yaml", SHORT);
    let started = Instant::now();
    // A head a byte at a time, and a body a byte at a time after a whole head.
    let slow_head = {
        let addr = s.addr.clone();
        std::thread::spawn(move || {
            trickle(&addr, b"POST /agents/payments-agent/ HTTP/1.1\r\nX-Pad: ")
        })
    };
    let slow_body = {
        let addr = s.addr.clone();
        std::thread::spawn(move || {
            let mut c = TcpStream::connect(&addr).unwrap();
            let head = format!(
                "POST {AGENT}/ HTTP/1.1\r\nHost: {addr}\r\nX-A2A-Sim-Caller: orchestrator\r\nContent-Length: 1000\r\n\r\n"
            );
            c.write_all(head.as_bytes()).unwrap();
            drop(c);
            trickle(&addr, b"{")
        })
    };
    // Never a byte.
    let mut silent = TcpStream::connect(&s.addr).unwrap();
    // One request on a keep-alive connection, then nothing.
    let mut kept = TcpStream::connect(&s.addr).unwrap();
    let card = format!(
        "GET {AGENT}/.well-known/agent-card.json HTTP/1.1\r\nHost: {}\r\n\r\n",
        s.addr
    );
    kept.write_all(card.as_bytes()).unwrap();
    kept.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut first = [0u8; 64];
    assert!(kept.read(&mut first).unwrap() > 0);
    assert!(first.starts_with(b"HTTP/1.1 200"));
    // Everyone else is served meanwhile.
    for _ in 0..5 {
        assert_eq!(rpc(&s, "SendMessage", send_params("pay")).0, 200);
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(closed_within(&mut silent, Duration::from_secs(8)), "silent");
    assert!(
        closed_within(&mut kept, Duration::from_secs(8)),
        "keep-alive"
    );
    assert!(
        slow_head.join().unwrap(),
        "a head trickled in was never cut"
    );
    assert!(
        slow_body.join().unwrap(),
        "a body trickled in was never cut"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(rpc(&s, "SendMessage", send_params("still up")).0, 200);
}

#[test]
fn a_trickled_body_gets_408() {
    let s = start("payment-decision.yaml", SHORT);
    let mut c = TcpStream::connect(&s.addr).unwrap();
    let head = format!(
        "POST {AGENT}/ HTTP/1.1\r\nHost: {}\r\nX-A2A-Sim-Caller: orchestrator\r\nContent-Length: 1000\r\n\r\n{{",
        s.addr
    );
    c.write_all(head.as_bytes()).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(8))).unwrap();
    let mut answer = Vec::new();
    let _ = c.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

#[test]
fn past_the_connection_cap_a_client_gets_503_until_a_connection_closes() {
    let mut flags = SHORT.to_vec();
    flags.extend(["--max-connections", "3"]);
    let s = start("payment-decision.yaml", &flags);
    let mut held: Vec<TcpStream> = (0..3)
        .map(|_| TcpStream::connect(&s.addr).unwrap())
        .collect();
    // The accept loop counts them in order: give it a moment to take all three.
    std::thread::sleep(Duration::from_millis(200));
    let (status, head, body) = http(
        &s.addr,
        "GET",
        "/agents/payments-agent/tasks",
        &[CALLER],
        b"",
    );
    assert_eq!(status, 503, "{head}");
    assert!(
        head.to_ascii_lowercase().contains("retry-after: 1"),
        "{head}"
    );
    assert!(body.contains("--max-connections"), "{body}");
    for c in &mut held {
        assert!(closed_within(c, Duration::from_secs(8)));
    }
    // A permit comes back just after its connection closes.
    let served = (0..20).any(|_| {
        let ok = rpc(&s, "SendMessage", send_params("pay")).0 == 200;
        if !ok {
            std::thread::sleep(Duration::from_millis(100));
        }
        ok
    });
    assert!(served);
}

#[test]
fn a_live_stream_is_never_cut_as_idle() {
    // 20 ticks of 150 ms: the screener's stream takes three seconds, longer than both timeouts.
    let mut flags = SHORT.to_vec();
    flags.extend(["--tick-ms", "150"]);
    let s = start("tests/serve/session.yaml", &flags);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": send_params("Screen Acme")});
    let started = Instant::now();
    let (status, _, text) = http(
        &s.addr,
        "POST",
        "/agents/screener/",
        &[CALLER],
        body.to_string().as_bytes(),
    );
    assert_eq!(status, 200);
    assert!(
        started.elapsed() > Duration::from_millis(2500),
        "the stream was not slow"
    );
    let events = sse_events(&text);
    assert!(
        events.last().unwrap()["result"]["statusUpdate"].is_object(),
        "{text}"
    );
}

#[test]
fn bad_limit_flags_stop_serve() {
    for flags in [
        &["--header-timeout", "0"][..],
        &["--keep-alive-timeout", "inf"][..],
        &["--keep-alive-timeout", "1e9"][..],
        &["--max-connections", "0"][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_a2a-sim"))
            .arg("serve")
            .arg(format!(
                "{}/scenarios/payment-decision.yaml",
                env!("CARGO_MANIFEST_DIR")
            ))
            .args(["--listen", "127.0.0.1:0"])
            .args(flags)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(flags[0]),
            "{flags:?}"
        );
    }
}
