//! Webhook delivery: a POST a notification, over http (loopback receivers) or https (TLS with the
//! web's roots and any `--push-ca`), retried on the backoff of faults.md while attempts remain.
//! Each receiver has a queue of its own, in the order the world pushed to it, so a slow or dead
//! receiver delays nobody else's. The token goes in the header A2A names and is never logged.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::Request;
use hyper::header::CONTENT_TYPE;
use hyper_util::rt::TokioIo;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinSet;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto::ring};

use super::desk::Notification;
use super::push_address;

/// The TLS client of https webhooks: the web's roots (webpki-roots) and the PEM certificates of
/// `extra` (`--push-ca`: a private CA, or a local receiver's self-signed certificate).
pub fn tls_connector(extra: Option<&Path>) -> Result<TlsConnector, String> {
    let mut roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(path) = extra {
        let pem = scenario::regular_file::read(path, scenario::regular_file::KEY_LIMIT)
            .map_err(|e| format!("--push-ca {}: {e}", path.display()))?;
        let certs = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("--push-ca {}: {e}", path.display()))?;
        if certs.is_empty() {
            return Err(format!(
                "--push-ca {}: no PEM certificate in it",
                path.display()
            ));
        }
        for cert in certs {
            roots
                .add(cert)
                .map_err(|e| format!("--push-ca {}: {e}", path.display()))?;
        }
    }
    let config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(TlsConnector::from(Arc::new(config)))
}

/// Hands each notification to its receiver's queue (one task a URL), and waits for every queue
/// to drain once the world stops sending. `allow_loopback`: `--allow-loopback-push`.
pub(super) async fn deliver_all(
    mut rx: UnboundedReceiver<Notification>,
    tls: TlsConnector,
    allow_loopback: bool,
    log: fn(&str),
) {
    let mut queues: HashMap<String, UnboundedSender<Notification>> = HashMap::new();
    let mut workers = JoinSet::new();
    while let Some(n) = rx.recv().await {
        let queue = queues.entry(n.url.clone()).or_insert_with(|| {
            let (tx, rx) = unbounded_channel();
            workers.spawn(deliver_each(rx, tls.clone(), allow_loopback, log));
            tx
        });
        let _ = queue.send(n);
    }
    drop(queues);
    while workers.join_next().await.is_some() {}
}

/// One receiver's notifications in order, each retried on `backoff × 2^(k−2)` (faults.md §2).
/// A receiver whose name resolves where no webhook may go is said once, to `log`.
async fn deliver_each(
    mut rx: UnboundedReceiver<Notification>,
    tls: TlsConnector,
    allow_loopback: bool,
    log: fn(&str),
) {
    let mut warned = false;
    while let Some(n) = rx.recv().await {
        tokio::time::sleep_until(tokio::time::Instant::from_std(n.at)).await;
        for k in 1..=n.attempts {
            if k >= 2 {
                let factor = 1u32.checked_shl(k - 2).unwrap_or(u32::MAX);
                tokio::time::sleep(n.backoff.saturating_mul(factor)).await;
            }
            match post(&n, &tls, allow_loopback).await {
                Ok(true) => break,
                Ok(false) => {}
                Err(why) => {
                    if !std::mem::replace(&mut warned, true) {
                        log(&format!("webhook not sent: {why}"));
                    }
                }
            }
        }
    }
}

/// One webhook POST; whether the receiver answered 2xx, or why it was not sent at all.
async fn post(n: &Notification, tls: &TlsConnector, allow_loopback: bool) -> Result<bool, String> {
    let Ok(url) = url::Url::parse(&n.url) else {
        return Ok(false);
    };
    let Some(host) = url.host_str() else {
        return Ok(false);
    };
    let Some(port) = url.port_or_known_default() else {
        return Ok(false);
    };
    let bare = host.trim_matches(['[', ']']);
    let addrs = push_address::resolve(bare, port, allow_loopback).await?;
    let connect = tokio::net::TcpStream::connect(&addrs[..]);
    let Ok(Ok(stream)) = tokio::time::timeout(Duration::from_secs(5), connect).await else {
        return Ok(false);
    };
    let target = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_string(),
    };
    let authority = match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    };
    let mut req = Request::post(target)
        .header(hyper::header::HOST, authority)
        .header(CONTENT_TYPE, "application/json");
    // A config without a token (A2A's types allow it) sends no token header.
    if !n.token.is_empty() {
        req = req.header("X-A2A-Notification-Token", n.token.as_str());
    }
    let Ok(req) = req.body(Full::new(Bytes::from(n.body.clone()))) else {
        return Ok(false);
    };
    Ok(match url.scheme() {
        "http" => send(stream, req).await,
        "https" => {
            let Ok(name) = ServerName::try_from(bare.to_string()) else {
                return Ok(false);
            };
            let handshake = tls.connect(name, stream);
            match tokio::time::timeout(Duration::from_secs(5), handshake).await {
                Ok(Ok(stream)) => send(stream, req).await,
                _ => false,
            }
        }
        _ => false,
    })
}

async fn send<IO>(io: IO, req: Request<Full<Bytes>>) -> bool
where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let Ok((mut sender, conn)) = hyper::client::conn::http1::handshake(TokioIo::new(io)).await
    else {
        return false;
    };
    tokio::spawn(conn);
    matches!(
        tokio::time::timeout(Duration::from_secs(10), sender.send_request(req)).await,
        Ok(Ok(r)) if r.status().is_success()
    )
}
