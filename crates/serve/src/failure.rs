//! A refusal in protocol terms ([`Failure`]): its kind, its message and admission's denial codes,
//! as the world's side finds it and the bindings (JSON-RPC, HTTP+JSON) spell it. Both sides speak
//! it, so this module imports nothing of the crate.

/// A refusal in protocol terms; the bindings spell it.
#[derive(Debug, Clone)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    pub denials: Vec<&'static str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    TaskNotFound,
    TaskNotCancelable,
    PushNotSupported,
    Unsupported,
    ContentTypeNotSupported,
    ExtendedCardNotConfigured,
    InvalidParams,
    Unauthenticated,
    Denied,
    Unavailable,
    /// An `http_error` fault: this HTTP status, with the binding's error body.
    HttpError(u16),
    /// A `reset` fault: the connection is closed without an answer.
    Reset,
    VersionNotSupported,
    Internal,
}

impl Failure {
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            denials: Vec::new(),
        }
    }
}
