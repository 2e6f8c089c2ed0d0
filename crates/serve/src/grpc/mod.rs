//! The gRPC binding (A2A 1.0's third): `proto/a2a.proto`'s `A2AService` on a port of its own
//! (`serve --grpc-listen`), served by hyper over HTTP/2 without TLS. Each RPC is turned into the
//! JSON the other bindings read, answered by the same desk, and its answer turned back: every
//! rule of `run` applies unchanged. One port serves every agent: a request's `tenant` names the
//! agent as its HTTP path does (`agents/NAME`, or `as/CALLER/agents/NAME`).

pub(crate) mod codec;
mod convert;
pub(super) mod listener;
mod pb;
mod service;
mod status;
pub mod wire;
