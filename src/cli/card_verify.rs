//! `card --verify CARD --keys JWKS`: which of a card's signatures (A2A §8.4) verify with which
//! key, one line each, then the verdict. Exit 0 when at least one verifies and none is malformed
//! (what the official SDK's verifier accepts, stricter on malformed entries); 1 when not, or when
//! the card carries no signatures; 2 when the card or the key set cannot be read.

use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Status};
use crate::token::KeySet;
use crate::token::card::{self, Check};

fn read_json(path: &Path, what: &str) -> Result<Value, Error> {
    let text = crate::regular_file::read_text(path, crate::regular_file::KEY_LIMIT)
        .map_err(|e| Error::Input(format!("{}: cannot read the {what}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| {
        Error::Input(format!(
            "{}:{}:{}: the {what} is not JSON: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })
}

pub(super) fn verify(card_path: &Path, keys_path: &Path) -> Result<Status, Error> {
    let doc = read_json(card_path, "card")?;
    if !doc.is_object() {
        return Err(Error::Input(format!(
            "{}: an AgentCard is a JSON object",
            card_path.display()
        )));
    }
    let keys = KeySet::from_jwks(&read_json(keys_path, "key set")?).map_err(|errors| {
        let list: Vec<String> = errors
            .iter()
            .map(|e| match (e.key, &e.member) {
                (Some(i), Some(m)) => format!("keys[{i}].{m}: {}", e.message),
                (Some(i), None) => format!("keys[{i}]: {}", e.message),
                _ => e.message.clone(),
            })
            .collect();
        Error::Input(format!("{}: {}", keys_path.display(), list.join("; ")))
    })?;
    let name = card_path.display();
    let checks = match card::verify(&doc, &keys) {
        Ok(checks) => checks,
        Err(e) => {
            println!("{name}: does not verify: {e}");
            return Ok(Status::Failed);
        }
    };
    let mut out = String::new();
    for (n, c) in checks.iter().enumerate() {
        let line = match c {
            Check::Verified { kid, alg } => format!("verified (kid `{kid}`, {alg})"),
            Check::Invalid { kid, why } => format!("does not verify (kid `{kid}`): {why}"),
            Check::UnknownKey { kid } => format!(
                "not checked: no key of {} has kid `{kid}`",
                keys_path.display()
            ),
            Check::Malformed { why } => format!("malformed: {why}"),
        };
        out.push_str(&format!("signature {}: {line}\n", n + 1));
    }
    let verified = checks
        .iter()
        .filter(|c| matches!(c, Check::Verified { .. }))
        .count();
    let trusted = card::trusted(&checks);
    let verdict = if trusted {
        "verified"
    } else if verified > 0 {
        "does not verify (a signature is malformed)"
    } else {
        "does not verify"
    };
    out.push_str(&format!(
        "{name}: {verdict} ({verified} of {} signatures verified)\n",
        checks.len()
    ));
    print!("{}", crate::escape::lines(&out));
    Ok(if trusted {
        Status::Success
    } else {
        Status::Failed
    })
}
