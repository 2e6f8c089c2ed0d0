//! Verified callers: tokens checked rule by rule, tokens in a run (refusals, nested hops,
//! tampering), key files at load, cards that ask for a token, and the `token` commands. This file
//! holds what they share: the bundled keys, claims and a minted token, a scratch directory.

use std::path::{Path, PathBuf};

use a2a_sim::token::PrivateKey;
use a2a_sim::token::sign;
use serde_json::{Map, Value, json};

use crate::common::binary::scratch;

mod cards;
mod commands;
mod identities;
mod key_files;
mod requests;
mod verification;

/// 2026-01-01T00:00:00Z: tick 0 of the default clock, in seconds.
const EPOCH: i64 = 1_767_225_600;
const ISS: &str = "https://idp.acme.example";
const AUD: &str = "a2a-sim.acme.example";

fn keys_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/keys")
}

fn json_file(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(keys_dir().join(name)).unwrap()).unwrap()
}

fn private(name: &str) -> PrivateKey {
    PrivateKey::from_jwk(&json_file(name), false).unwrap()
}

fn claims(edit: impl FnOnce(&mut Map<String, Value>)) -> Map<String, Value> {
    let mut c = json!({"iss": ISS, "sub": "orchestrator", "aud": AUD, "iat": EPOCH, "nbf": EPOCH,
        "exp": EPOCH + 60, "tenant": "acme", "classification": "confidential",
        "scope": "payments:release"})
    .as_object()
    .unwrap()
    .clone();
    edit(&mut c);
    c
}

fn token(edit: impl FnOnce(&mut Map<String, Value>)) -> String {
    sign(&private("issuer.private.jwk.json"), &claims(edit)).unwrap()
}

fn segments(t: &str) -> Vec<String> {
    t.trim().split('.').map(String::from).collect()
}

/// A scratch directory holding `files`, plus the bundled keys as keys/.
fn dir(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let d = scratch(&format!("tokens-{name}"));
    std::fs::create_dir_all(d.join("keys")).unwrap();
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/keys");
    for e in std::fs::read_dir(&bundled).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), d.join("keys").join(e.file_name())).unwrap();
    }
    for (file, text) in files {
        std::fs::write(d.join(file), text).unwrap();
    }
    d
}
