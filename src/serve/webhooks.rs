//! Webhook delivery: one POST a notification, in the order the world pushed them, retried on the
//! backoff of faults.md while attempts remain. The token goes in the header A2A names.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::Request;
use hyper::header::CONTENT_TYPE;
use hyper_util::rt::TokioIo;

use super::owner::Notification;

/// Delivers notifications one at a time, in the order the world pushed them, retrying on
/// `backoff × 2^(k−2)` (faults.md §2) while attempts remain.
pub(super) async fn deliver_all(mut rx: tokio::sync::mpsc::UnboundedReceiver<Notification>) {
    while let Some(n) = rx.recv().await {
        for k in 1..=n.attempts {
            if k >= 2 {
                let factor = 1u32.checked_shl(k - 2).unwrap_or(u32::MAX);
                tokio::time::sleep(n.backoff.saturating_mul(factor)).await;
            }
            if post(&n).await {
                break;
            }
        }
    }
}

/// One webhook POST; whether the receiver answered 2xx. The token goes in the header A2A names
/// and is never logged.
async fn post(n: &Notification) -> bool {
    let Ok(url) = url::Url::parse(&n.url) else {
        return false;
    };
    // Only plain http: https would need a TLS stack, and only loopback URLs get here.
    let (Some(host), "http") = (url.host_str(), url.scheme()) else {
        return false;
    };
    let port = url.port().unwrap_or(80);
    let connect = tokio::net::TcpStream::connect((host.trim_matches(['[', ']']), port));
    let Ok(Ok(stream)) = tokio::time::timeout(Duration::from_secs(5), connect).await else {
        return false;
    };
    let Ok((mut sender, conn)) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await
    else {
        return false;
    };
    tokio::spawn(conn);
    let target = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_string(),
    };
    let authority = match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    };
    let Ok(req) = Request::post(target)
        .header(hyper::header::HOST, authority)
        .header(CONTENT_TYPE, "application/json")
        .header("X-A2A-Notification-Token", n.token.as_str())
        .body(Full::new(Bytes::from(n.body.clone())))
    else {
        return false;
    };
    matches!(
        tokio::time::timeout(Duration::from_secs(10), sender.send_request(req)).await,
        Ok(Ok(r)) if r.status().is_success()
    )
}
