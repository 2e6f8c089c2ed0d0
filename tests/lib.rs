//! One integration-test binary, a module per feature, each named after what it tests. What the
//! files share (loading and running scenarios, building them from parts, reading reports, running
//! the binary, goldens) is in `common`: tests/common.rs and tests/common/.

mod adapter;
mod analyses;
mod artifacts_from_results;
mod authority;
mod bad_input;
mod cancel;
mod card_conversion;
mod card_signing;
mod ci_output;
mod cli;
mod cli_conventions;
mod common;
mod conditions;
mod data_templates;
mod decisions;
mod delegation_outcomes;
mod driver_steps;
mod engine;
mod engine_corners;
mod escapes;
mod expectations;
mod fan_out;
mod fan_out_members;
mod faults;
mod faults_calls;
mod goldens;
mod handler_warnings;
mod imports;
mod invariants;
mod layers;
mod loading;
mod locating;
mod malformed;
mod overrides;
mod pauses_and_escalation;
mod properties;
mod protocol;
mod protocol_formats;
mod push_configs;
mod push_hosts;
mod readme;
#[cfg(all(unix, feature = "serve"))]
mod real_agents;
mod redaction;
mod report_stability;
mod reports;
mod reproducers;
mod result_conditions;
mod retries_and_timeouts;
mod scheduler;
mod schema;
#[cfg(feature = "serve")]
mod serve;
mod special_files;
mod templates;
mod tokens;
mod views;
mod webhook_claims;
mod yaml_scan;
