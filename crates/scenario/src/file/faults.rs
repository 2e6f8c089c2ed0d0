//! `faults:` entries and `policy.push_delivery`, as written (faults.md §1).

use schemars::JsonSchema;
use serde::Deserialize;

/// One fault: exactly one target (`agent` or `push_host`) and one kind of that target.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FaultFile {
    /// An agent of the file: takes `unavailable`, `slow`, `crash`, `http_error`, `reset`,
    /// `drop_stream` or `tampered_card`.
    pub agent: Option<String>,
    /// A push host name the allow-list admits: takes `down` or `duplicate`.
    pub push_host: Option<String>,
    /// Requests to the agent fail inside the window.
    pub unavailable: Option<WindowFile>,
    /// The agent's continuations wait `extra` ticks inside the window.
    pub slow: Option<SlowFile>,
    /// The agent's tasks fail at `at`; it is unavailable until `restart` (or forever).
    pub crash: Option<CrashFile>,
    /// Delivery attempts to the host fail inside the window.
    pub down: Option<WindowFile>,
    /// Every successful delivery to the host arrives twice.
    pub duplicate: Option<bool>,
    /// Requests to the agent fail with this HTTP status (on the wire; in process as refused).
    pub http_error: Option<HttpErrorFile>,
    /// Requests to the agent get the connection closed without an answer.
    pub reset: Option<WindowFile>,
    /// A stream the agent answers is cut after `after` events (on the wire).
    pub drop_stream: Option<DropStreamFile>,
    /// `serve` answers the agent's card with a signature that no longer verifies (needs
    /// `policy.card_signing_key`).
    pub tampered_card: Option<TamperedCardFile>,
}

/// `tampered_card: {}`: no settings (the card is tampered with on every request).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TamperedCardFile {}

/// A half-open tick window `[from, to)`; `from` defaults to 0, `to` to forever. Or, instead,
/// `calls: [K, ...]`: the K-th requests to the agent (1-based).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WindowFile {
    pub from: Option<i64>,
    pub to: Option<i64>,
    pub calls: Option<Vec<i64>>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlowFile {
    pub extra: i64,
    pub from: Option<i64>,
    pub to: Option<i64>,
    pub calls: Option<Vec<i64>>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpErrorFile {
    /// An HTTP error status, 400 to 599.
    pub status: i64,
    pub from: Option<i64>,
    pub to: Option<i64>,
    pub calls: Option<Vec<i64>>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropStreamFile {
    /// Events sent before the cut, 0 or more.
    pub after: i64,
    pub from: Option<i64>,
    pub to: Option<i64>,
    pub calls: Option<Vec<i64>>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CrashFile {
    pub at: i64,
    pub restart: Option<i64>,
}

/// `policy.push_delivery`: attempts 1..=64 (default 1), backoff ≥ 0 ticks (default 1).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushDeliveryFile {
    pub attempts: Option<i64>,
    pub backoff: Option<i64>,
}
