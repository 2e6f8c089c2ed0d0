//! What build.rs generates from `proto/a2a.proto`: the messages, the `A2AService` trait and its
//! server; and the descriptor set the JSON mapping reads.

#[allow(clippy::all, clippy::pedantic, missing_docs, unreachable_pub)]
pub(crate) mod v1 {
    include!(concat!(env!("OUT_DIR"), "/lf.a2a.v1.rs"));
}

/// The compiled descriptors of `a2a.proto` and its imports.
pub(crate) const DESCRIPTOR: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/a2a_descriptor.bin"));
