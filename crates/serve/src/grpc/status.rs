//! A refusal as a gRPC status: the code the spec maps the A2A error to (the same google.rpc name
//! as the HTTP+JSON binding's), and in `grpc-status-details-bin` a `google.rpc.Status` holding
//! one `ErrorInfo` (reason, domain `a2a-protocol.org`, the denial codes) — the detail the SDK
//! clients raise their typed errors from.

use std::collections::HashMap;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::failure::Failure;
use crate::protocol::{ERROR_DOMAIN, codes, error_info};

pub(super) fn status(f: &Failure) -> Status {
    let (_, _, name, _) = codes(f.kind);
    let (reason, metadata) = error_info(f);
    let metadata: HashMap<String, String> = metadata.into_iter().collect();
    Status::with_error_details(
        code(name),
        f.message.clone(),
        ErrorDetails::with_error_info(reason, ERROR_DOMAIN, metadata),
    )
}

/// The gRPC code of a google.rpc status name.
fn code(name: &str) -> Code {
    match name {
        "NOT_FOUND" => Code::NotFound,
        "FAILED_PRECONDITION" => Code::FailedPrecondition,
        "INVALID_ARGUMENT" => Code::InvalidArgument,
        "UNAUTHENTICATED" => Code::Unauthenticated,
        "PERMISSION_DENIED" => Code::PermissionDenied,
        "UNAVAILABLE" => Code::Unavailable,
        "RESOURCE_EXHAUSTED" => Code::ResourceExhausted,
        "UNIMPLEMENTED" => Code::Unimplemented,
        _ => Code::Internal,
    }
}
