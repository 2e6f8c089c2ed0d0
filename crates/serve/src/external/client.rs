//! The HTTP client a2a-sim calls a real agent with: one request per connection (HTTP/1.1 over
//! loopback, or a URL's host), bounded in time and in size; nothing the agent sends is trusted.
//! What came back, tied to its task ([`Answered`]), goes to the world's thread as a request.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::Request;
use hyper_util::rt::TokioIo;

use engine::record::TaskIx;

/// The most a2a-sim reads of one answer.
pub const MAX_ANSWER: usize = 4 << 20;

pub struct Answer {
    pub status: u16,
    pub body: Bytes,
}

/// What came back from a request a2a-sim made to a real agent.
pub struct Answered {
    pub task: TaskIx,
    pub result: Result<Answer, String>,
}

/// GET (no body) or POST (`body`) to `url`, with `headers`; the whole answer within `timeout`.
pub async fn call(
    url: &str,
    headers: &[(&str, String)],
    body: Option<Vec<u8>>,
    timeout: Duration,
) -> Result<Answer, String> {
    match tokio::time::timeout(timeout, exchange(url, headers, body)).await {
        Ok(r) => r,
        Err(_) => Err(format!("no answer within {} s", timeout.as_secs_f64())),
    }
}

async fn exchange(
    url: &str,
    headers: &[(&str, String)],
    body: Option<Vec<u8>>,
) -> Result<Answer, String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("`{url}`: {e}"))?;
    if parsed.scheme() != "http" {
        return Err(format!("`{url}`: a2a-sim calls agents over http only"));
    }
    let host = parsed.host_str().ok_or(format!("`{url}` has no host"))?;
    let port = parsed.port_or_known_default().unwrap_or(80);
    let stream = tokio::net::TcpStream::connect((host.trim_matches(['[', ']']), port))
        .await
        .map_err(|e| format!("cannot connect ({e})"))?;
    let _ = stream.set_nodelay(true);
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("the connection failed ({e})"))?;
    tokio::spawn(conn);
    let target = match parsed.query() {
        Some(q) => format!("{}?{q}", parsed.path()),
        None => parsed.path().to_string(),
    };
    let authority = match parsed.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    };
    let mut req = match body {
        Some(_) => Request::post(target),
        None => Request::get(target),
    }
    .header(hyper::header::HOST, authority);
    if body.is_some() {
        req = req.header(hyper::header::CONTENT_TYPE, "application/json");
    }
    for (k, v) in headers {
        req = req.header(*k, v.as_str());
    }
    let req = req
        .body(Full::new(Bytes::from(body.unwrap_or_default())))
        .map_err(|e| e.to_string())?;
    let answer = sender
        .send_request(req)
        .await
        .map_err(|e| format!("the connection ended without an answer ({e})"))?;
    let status = answer.status().as_u16();
    let body = Limited::new(answer.into_body(), MAX_ANSWER)
        .collect()
        .await
        .map_err(|e| format!("its answer broke off or passed {} bytes ({e})", MAX_ANSWER))?
        .to_bytes();
    Ok(Answer { status, body })
}
