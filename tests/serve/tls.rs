//! Webhooks over https: a receiver with a self-signed certificate gets the POSTs when `--push-ca`
//! trusts it, and none when nothing does.

use std::io::Write;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use a2a_sim_tls::{ServerConfig, ServerConnection, StreamOwned, crypto::ring};
use tokio_rustls::rustls as a2a_sim_tls;

use serde_json::Value;

use super::support::*;
use crate::common::binary::scratch;

/// A TLS receiver on a free loopback port (certificate for `localhost`): each request it read,
/// through the channel; and the certificate's PEM.
fn tls_receiver() -> (u16, String, std::sync::mpsc::Receiver<String>) {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let pem = cert.cert.pem();
    let key = rustls_pki_types::PrivateKeyDer::Pkcs8(cert.signing_key.serialize_der().into());
    let config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.cert.der().clone()], key)
        .unwrap();
    let config = Arc::new(config);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let conn = ServerConnection::new(config.clone()).unwrap();
            let mut tls = StreamOwned::new(conn, stream);
            // A client that does not trust the certificate ends the handshake here.
            let Some(text) = read_request(&mut tls) else {
                continue;
            };
            let _ =
                tls.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            let _ = tls.flush();
            if tx.send(text).is_err() {
                return;
            }
        }
    });
    (port, pem, rx)
}

fn send_with_hook(s: &Server, port: u16) -> Value {
    let url = format!("https://localhost:{port}/hook");
    send_with_push(s, "/agents/screener/", "Screen Acme", &url, "tls-token")
}

#[test]
fn https_webhooks_reach_a_receiver_the_push_ca_trusts() {
    let (port, pem, posts) = tls_receiver();
    let dir = scratch("tls-push-ca");
    let ca = dir.join("receiver.pem");
    std::fs::write(&ca, pem).unwrap();
    let s = start(
        "tests/serve/session.yaml",
        &["--allow-loopback-push", "--push-ca", ca.to_str().unwrap()],
    );
    let r = send_with_hook(&s, port);
    assert_eq!(r["result"]["task"]["id"], "task-1", "{r}");
    let first = posts
        .recv_timeout(Duration::from_secs(10))
        .expect("no webhook arrived over https");
    let lower = first.to_ascii_lowercase();
    assert!(lower.starts_with("post /hook http/1.1"), "{first}");
    assert!(
        lower.contains("x-a2a-notification-token: tls-token"),
        "{first}"
    );
    let body: Value = serde_json::from_str(first.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(body["statusUpdate"]["taskId"], "task-1");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_untrusted_certificate_gets_no_webhook() {
    let (port, _, posts) = tls_receiver();
    let s = start("tests/serve/session.yaml", &["--allow-loopback-push"]);
    let r = send_with_hook(&s, port);
    assert_eq!(r["result"]["task"]["id"], "task-1", "{r}");
    assert!(posts.recv_timeout(Duration::from_millis(700)).is_err());
}

#[test]
fn a_push_ca_that_is_no_certificate_stops_serve() {
    let dir = scratch("tls-bad-push-ca");
    let ca = dir.join("not.pem");
    std::fs::write(&ca, "not a certificate").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_a2a-sim"))
        .args([
            "serve",
            "tests/serve/session.yaml",
            "--listen",
            "127.0.0.1:0",
            "--push-ca",
        ])
        .arg(&ca)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--push-ca"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An allow-listed name that resolves to this machine gets no webhook, on any port, unless the
/// session admits loopback receivers: the address the name resolves to is checked, not the name.
#[test]
fn an_allow_listed_name_that_resolves_to_loopback_gets_no_webhook() {
    let (port, pem, posts) = tls_receiver();
    let dir = scratch("tls-push-by-name");
    let ca = dir.join("receiver.pem");
    std::fs::write(&ca, pem).unwrap();
    let scenario = "tests/serve/push-by-name.yaml";
    let s = start(scenario, &["--push-ca", ca.to_str().unwrap()]);
    let r = send_with_hook(&s, port);
    // The name is on the allow-list: the config is taken, and the task runs.
    assert_eq!(r["result"]["task"]["id"], "task-1", "{r}");
    assert!(posts.recv_timeout(Duration::from_millis(1500)).is_err());
    let said = s.stderr();
    assert!(
        said.contains("`localhost` resolves to 127.0.0.1, a loopback address"),
        "{said}"
    );
    assert!(!said.contains("tls-token"), "{said}");
    // Admitted for local tests, the same push arrives.
    let admitted = start(
        scenario,
        &["--push-ca", ca.to_str().unwrap(), "--allow-loopback-push"],
    );
    send_with_hook(&admitted, port);
    assert!(posts.recv_timeout(Duration::from_secs(10)).is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}
