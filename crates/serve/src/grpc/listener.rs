//! The gRPC port: HTTP/2 without TLS (h2c, as gRPC clients dial an `insecure` channel), each
//! connection served by hyper with the generated `A2AService` server; the connection cap and
//! the request size limit of the HTTP port; connections closed gracefully when the server stops.

use std::net::SocketAddr;
use std::sync::Arc;

use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tonic::codegen::Service;

use super::pb::v1::a2a_service_server::A2aServiceServer;
use super::service::Agents;
use crate::connection::{self, Cap, Limits};
use crate::state::State;

pub(crate) async fn bind(addr: SocketAddr) -> Result<TcpListener, String> {
    TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen for gRPC on {addr}: {e}"))
}

/// Serves the gRPC port until `closing` turns true; then lets open calls finish (a live stream
/// ends when the world ends it) within 10 s.
pub(crate) fn spawn(
    listener: TcpListener,
    state: Arc<State>,
    limits: Limits,
    mut closing: watch::Receiver<bool>,
) -> JoinHandle<()> {
    let server = A2aServiceServer::new(Agents(state.clone()))
        .max_decoding_message_size(state.max_body)
        .max_encoding_message_size(usize::MAX);
    tokio::spawn(async move {
        let cap = Cap::new(&limits);
        let mut connections = tokio::task::JoinSet::new();
        loop {
            tokio::select! {
                stream = connection::accept(&listener) => {
                    // Past the cap a client's connection is closed at once.
                    let Some(permit) = cap.admit() else { continue };
                    connections.spawn(connection(stream, server.clone(), limits, closing.clone(), permit));
                }
                _ = stopping(&mut closing) => break,
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
            }
        }
        drop(listener);
        connection::drain(&mut connections).await;
    })
}

async fn connection(
    stream: tokio::net::TcpStream,
    server: A2aServiceServer<Agents>,
    limits: Limits,
    mut closing: watch::Receiver<bool>,
    _permit: tokio::sync::OwnedSemaphorePermit,
) {
    let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        let mut server = server.clone();
        async move {
            std::future::poll_fn(|cx| {
                Service::<hyper::Request<Incoming>>::poll_ready(&mut server, cx)
            })
            .await?;
            server.call(req).await.map(resource_exhausted)
        }
    });
    let mut builder = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
    builder
        .timer(TokioTimer::new())
        .max_header_list_size(64 * 1024)
        // A client that stops answering pings is gone: its connection closes.
        .keep_alive_interval(Some(limits.keep_alive))
        .keep_alive_timeout(limits.header);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = stopping(&mut closing) => {}
    }
    conn.as_mut().graceful_shutdown();
    let _ = conn.await;
}

/// Until the server is stopping.
async fn stopping(closing: &mut watch::Receiver<bool>) {
    let _ = closing.wait_for(|&c| c).await;
}

/// tonic answers a message over the size limit with `OUT_OF_RANGE`; gRPC's own servers (and
/// its spec) say `RESOURCE_EXHAUSTED`, which is what the HTTP port's 413 is.
fn resource_exhausted<B>(mut response: hyper::Response<B>) -> hyper::Response<B> {
    let headers = response.headers_mut();
    let too_large = headers.get("grpc-status").is_some_and(|s| s == "11")
        && headers
            .get("grpc-message")
            .and_then(|m| m.to_str().ok())
            .is_some_and(|m| m.contains("too%20large") || m.contains("too large"));
    if too_large {
        headers.insert("grpc-status", HeaderValue::from_static("8"));
    }
    response
}
