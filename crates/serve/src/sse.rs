//! Server-sent events: the frame of one event, and a body that sends a live stream's events as
//! the world records them.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame};
use serde_json::Value;
use tokio::sync::watch;

use super::job::LiveStream;

/// Appends `data: EVENT` (serialised JSON, one line) and the blank line that ends an event.
pub fn frame(out: &mut Vec<u8>, event: &[u8]) {
    out.extend_from_slice(b"data: ");
    out.extend_from_slice(event);
    out.extend_from_slice(b"\n\n");
}

type Wrap = Box<dyn Fn(Value) -> Vec<u8> + Send + Sync>;

/// What the live streams share: whether the server is stopping, and how many are open (a server
/// with an open stream is not idle).
#[derive(Clone)]
pub struct Streams {
    pub closing: watch::Receiver<bool>,
    open: Arc<AtomicUsize>,
}

impl Streams {
    pub fn new(closing: watch::Receiver<bool>) -> Self {
        Streams {
            closing,
            open: Arc::new(AtomicUsize::new(0)),
        }
    }

    pub fn open(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }

    /// One more stream open (an SSE body's or a gRPC stream's), until the guard is dropped.
    pub fn hold(&self) -> Open {
        self.open.fetch_add(1, Ordering::SeqCst);
        Open(self.open.clone())
    }
}

/// A stream counted open while it lives.
pub struct Open(Arc<AtomicUsize>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A response body fed by a live stream; it ends when the world drops the stream's sender.
pub struct LiveBody {
    stream: LiveStream,
    wrap: Wrap,
    _open: Open,
}

impl LiveBody {
    pub fn new(
        streams: &Streams,
        stream: LiveStream,
        wrap: impl Fn(Value) -> Vec<u8> + Send + Sync + 'static,
    ) -> Self {
        LiveBody {
            stream,
            wrap: Box::new(wrap),
            _open: streams.hold(),
        }
    }
}

impl Body for LiveBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.stream.poll_recv(cx) {
            Poll::Ready(Some(event)) => {
                let mut out = Vec::new();
                frame(&mut out, &(self.wrap)(event));
                Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}
