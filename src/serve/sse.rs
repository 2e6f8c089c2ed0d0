//! Server-sent events: the frame of one event, and a body that sends a live stream's events as
//! the world records them.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame};
use serde_json::Value;

use super::owner::LiveStream;

/// Appends `data: EVENT` and the blank line that ends an event.
pub fn frame(out: &mut Vec<u8>, event: &Value) {
    out.extend_from_slice(b"data: ");
    // A Value always serialises.
    let _ = serde_json::to_writer(&mut *out, event);
    out.extend_from_slice(b"\n\n");
}

type Wrap = Box<dyn Fn(Value) -> Value + Send + Sync>;

/// A response body fed by a live stream; it ends when the world drops the stream's sender.
pub struct LiveBody {
    stream: LiveStream,
    wrap: Wrap,
}

impl LiveBody {
    pub fn new(stream: LiveStream, wrap: impl Fn(Value) -> Value + Send + Sync + 'static) -> Self {
        LiveBody {
            stream,
            wrap: Box::new(wrap),
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
