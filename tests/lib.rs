//! One integration-test binary, a module per feature.

mod adapter;
mod analyses;
mod authority;
mod behaviour;
mod card_conversion;
mod cli;
mod common;
mod engine;
mod engine_corners;
mod escapes;
mod everyday;
mod faults;
mod goldens;
mod invariants;
mod layers;
mod loading;
mod locating;
mod malformed;
mod properties;
mod protocol;
mod redaction;
mod reports;
mod reproducers;
#[cfg(feature = "serve")]
mod serve;
mod special_files;
mod tokens;
mod views;
mod webhook_claims;
mod yaml_scan;
