//! `a2a-sim serve` over raw HTTP: the binary on port 0, one request a connection; a module per
//! feature, the helpers they share in `support`.

mod access;
mod binding_rules;
mod bindings;
mod cards;
mod grpc;
mod grpc_client;
mod identity;
mod lifecycle;
mod limits;
mod list_tasks;
mod push_configs;
mod record;
mod replies;
mod report;
mod requests;
mod robustness;
mod session_expect;
mod signed_cards;
mod streams;
mod strictness;
mod subscriptions;
mod support;
mod tls;
mod versions;
mod webhooks;
mod wire_faults;
