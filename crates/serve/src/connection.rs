//! One client connection and the limits that keep a client from holding it forever: a request's
//! head must arrive within the header timeout (from the connection's start, or from its first
//! byte after an idle spell), a keep-alive connection may sit idle between requests for the
//! keep-alive timeout, and past the connection cap a new client gets 503 at once.
//!
//! The timeouts are enforced where the bytes are read ([`Guarded`]): while a response is on its
//! way (a live stream may run for minutes) the connection is busy, never idle.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::time::{Instant, Sleep};

use super::responses::Body;
use super::routing::handle;
use super::state::State;

/// How long a connection may take and how many may be open at once (`serve`'s flags).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// A request's head (and then its body) must arrive within this.
    pub header: Duration,
    /// An idle keep-alive connection is closed after this.
    pub keep_alive: Duration,
    /// Connections served at once; more get 503.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header: Duration::from_secs(10),
            keep_alive: Duration::from_secs(30),
            max_connections: 512,
        }
    }
}

/// The cap: a permit a connection, or a 503 for the client past it.
pub struct Cap(Arc<Semaphore>);

impl Cap {
    pub fn new(limits: &Limits) -> Self {
        Cap(Arc::new(Semaphore::new(limits.max_connections)))
    }

    pub fn admit(&self) -> Option<OwnedSemaphorePermit> {
        self.0.clone().try_acquire_owned().ok()
    }
}

/// Past the cap: a 503 that asks the client to come back, written without reading the request
/// (never longer than a second), and the connection closed.
/// The next connection to `listener`, its writes not held back (no Nagle). An accept that fails
/// (out of descriptors, say) is tried again 50 ms later, so that connections may close meanwhile.
pub async fn accept(listener: &tokio::net::TcpListener) -> TcpStream {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let _ = stream.set_nodelay(true);
                return stream;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// Waits for the connections still open to finish, 10 s at the most.
pub async fn drain(connections: &mut tokio::task::JoinSet<()>) {
    let _ = tokio::time::timeout(Duration::from_secs(10), async {
        while connections.join_next().await.is_some() {}
    })
    .await;
}

pub async fn refuse(mut stream: TcpStream) {
    const BODY: &str = r#"{"error":{"code":503,"status":"UNAVAILABLE","message":"too many connections: the server is at its --max-connections; retry shortly"}}"#;
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        BODY.len()
    );
    let write = async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(BODY.as_bytes()).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), write).await;
}

/// Serves one connection until the client or a timeout ends it, or the server stops.
pub async fn serve(
    stream: TcpStream,
    state: Arc<State>,
    limits: Limits,
    mut closing: watch::Receiver<bool>,
    _permit: OwnedSemaphorePermit,
) {
    let requests = Arc::new(Requests::default());
    let io = Guarded::new(stream, limits, requests.clone());
    let service = hyper::service::service_fn(move |req| {
        // Counted from the moment the head is in: the response's body holds the count until
        // it has been sent.
        let busy = InFlight::enter(&requests);
        let state = state.clone();
        async move {
            let response = handle(&state, req).await;
            if response
                .extensions()
                .get::<super::responses::ResetConnection>()
                .is_some()
            {
                // hyper closes a connection whose service fails, without an answer.
                return Err(std::io::Error::other("reset fault"));
            }
            Ok(response.map(|body| Tracked { body, _busy: busy }.boxed()))
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        // The timeouts are this module's (hyper's own would need its timer and count idle time
        // as header time).
        .header_read_timeout(None)
        .serve_connection(TokioIo::new(io), service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        _ = closing.changed() => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}

/// The requests a connection is answering, and who to wake when the last is done: the reader,
/// whose idle time starts then, though no byte may come to wake it.
#[derive(Default)]
struct Requests {
    in_flight: AtomicUsize,
    /// How many have been answered.
    done: AtomicUsize,
    reader: Mutex<Option<Waker>>,
}

impl Requests {
    fn busy(&self) -> bool {
        self.in_flight.load(Ordering::SeqCst) > 0
    }

    fn done(&self) -> usize {
        self.done.load(Ordering::SeqCst)
    }

    /// Called by a busy reader: wake it when the connection goes idle.
    fn wake_when_idle(&self, waker: &Waker) {
        if let Ok(mut reader) = self.reader.lock() {
            match reader.as_mut() {
                Some(w) => w.clone_from(waker),
                None => *reader = Some(waker.clone()),
            }
        }
    }
}

/// A request being answered on a connection, until its response's body is dropped.
struct InFlight(Arc<Requests>);

impl InFlight {
    fn enter(requests: &Arc<Requests>) -> Self {
        requests.in_flight.fetch_add(1, Ordering::SeqCst);
        InFlight(requests.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.done.fetch_add(1, Ordering::SeqCst);
        if self.0.in_flight.fetch_sub(1, Ordering::SeqCst) == 1
            && let Some(reader) = self.0.reader.lock().ok().and_then(|mut r| r.take())
        {
            reader.wake();
        }
    }
}

/// A response body that keeps its request counted as in flight.
struct Tracked {
    body: Body,
    _busy: InFlight,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// Where a connection's reading is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for a request's first byte after a response: the keep-alive timeout runs.
    Idle,
    /// A request's head is arriving (or, on a new connection, awaited): the header timeout runs.
    Head,
    /// A request is being answered: no read deadline.
    Busy,
}

/// A connection's socket with the read deadlines of its [`Phase`].
struct Guarded {
    io: TcpStream,
    limits: Limits,
    requests: Arc<Requests>,
    /// The requests answered when the phase last changed.
    done: usize,
    phase: Phase,
    deadline: Pin<Box<Sleep>>,
}

impl Guarded {
    fn new(io: TcpStream, limits: Limits, requests: Arc<Requests>) -> Self {
        Guarded {
            io,
            limits,
            requests,
            done: 0,
            phase: Phase::Head,
            deadline: Box::pin(tokio::time::sleep(limits.header)),
        }
    }

    fn enter(&mut self, phase: Phase) {
        self.phase = phase;
        let after = match phase {
            Phase::Idle => self.limits.keep_alive,
            Phase::Head | Phase::Busy => self.limits.header,
        };
        self.deadline.as_mut().reset(Instant::now() + after);
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        // A request answered since the last read (however quickly) starts an idle spell.
        let done = this.requests.done();
        if this.requests.busy() {
            this.phase = Phase::Busy;
            this.requests.wake_when_idle(cx.waker());
        } else if this.phase == Phase::Busy || done != this.done {
            this.done = done;
            this.enter(Phase::Idle);
        }
        let filled = buf.filled().len();
        let read = Pin::new(&mut this.io).poll_read(cx, buf);
        match read {
            Poll::Ready(Ok(())) => {
                if this.phase == Phase::Idle && buf.filled().len() > filled {
                    this.enter(Phase::Head);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending if this.phase == Phase::Busy => Poll::Pending,
            Poll::Pending => match this.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    match this.phase {
                        Phase::Idle => "the keep-alive connection was idle too long",
                        _ => "the request's head did not arrive in time",
                    },
                ))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}
