//! `a2a-sim token mint` and `a2a-sim token inspect`: authoring tools for scenarios' tokens.

use std::path::PathBuf;

use clap::Subcommand;
use serde_json::{Map, Value, json};

use crate::engine::parse_rfc3339;
use crate::error::{Error, Status};
use ::token::DEFAULT_ALLOWED;
use ::token::{Alg, KeySet, PrivateKey, TokenPolicy};
use ::token::{Verdict, inspect};
use ::token::{act_claim, sign};

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Sign a JWT with a private JWK (EC P-256 or P-384, RSA, Ed25519 `OKP` or `oct`):
    /// deterministic but for RSA-PSS, so the same key and claims give the same token. Prints the
    /// token.
    Mint {
        /// The private JWK file; its `kid` goes in the header.
        #[arg(long)]
        key: PathBuf,
        /// The whole claims object as JSON (then the claim flags add to it).
        #[arg(long)]
        claims: Option<String>,
        #[arg(long)]
        sub: Option<String>,
        #[arg(long)]
        iss: Option<String>,
        #[arg(long)]
        aud: Option<String>,
        #[arg(long)]
        tenant: Option<String>,
        #[arg(long)]
        classification: Option<String>,
        /// Space-separated scopes.
        #[arg(long)]
        scope: Option<String>,
        /// The actor chain, earliest first, comma-separated: becomes the nested `act` claim.
        #[arg(long, value_delimiter = ',')]
        act: Vec<String>,
        /// RFC 3339 timestamps or seconds since the Unix epoch.
        #[arg(long)]
        iat: Option<String>,
        #[arg(long)]
        nbf: Option<String>,
        #[arg(long)]
        exp: Option<String>,
    },
    /// Show a token's header and claims and every verification check with its verdict. Exit
    /// status 1 when a check fails.
    Inspect {
        /// The JWT, or a file holding it.
        token: String,
        /// A JWKS to check the signature with (without it, signature checks are skipped).
        #[arg(long)]
        keys: Option<PathBuf>,
        /// The issuer `iss` must equal.
        #[arg(long)]
        iss: Option<String>,
        /// The audience `aud` must contain.
        #[arg(long)]
        aud: Option<String>,
        /// The allow-list (default EdDSA, ES256, RS256).
        #[arg(long, value_delimiter = ',')]
        alg: Vec<String>,
        #[arg(long, default_value_t = 0)]
        leeway_s: i64,
        /// The moment to check at, RFC 3339 (default: the scenarios' default epoch,
        /// 2026-01-01T00:00:00Z, so the bundled tokens inspect the same on any day).
        #[arg(long)]
        at: Option<String>,
    },
}

pub fn run(cmd: TokenCommand) -> Result<Status, Error> {
    let result: Result<Status, String> = match cmd {
        TokenCommand::Mint {
            key,
            claims,
            sub,
            iss,
            aud,
            tenant,
            classification,
            scope,
            act,
            iat,
            nbf,
            exp,
        } => (|| -> Result<Status, String> {
            let key = PrivateKey::from_jwk(&read_json(&key)?, false)
                .map_err(|e| format!("{}: {}", key.display(), e.message))?;
            let mut c: Map<String, Value> = match claims {
                Some(text) => serde_json::from_str(&text)
                    .map_err(|e| format!("--claims is not a JSON object: {e}"))?,
                None => Map::new(),
            };
            for (name, v) in [("iss", iss), ("sub", sub), ("aud", aud)] {
                if let Some(v) = v {
                    c.insert(name.into(), json!(v));
                }
            }
            for (name, v) in [("iat", iat), ("nbf", nbf), ("exp", exp)] {
                if let Some(v) = v {
                    c.insert(name.into(), json!(seconds(&v)?));
                }
            }
            for (name, v) in [
                ("tenant", tenant),
                ("classification", classification),
                ("scope", scope),
            ] {
                if let Some(v) = v {
                    c.insert(name.into(), json!(v));
                }
            }
            let act: Vec<&str> = act.iter().map(String::as_str).collect();
            if let Some(a) = act_claim(&act) {
                c.insert("act".into(), a);
            }
            let token = sign(&key, &c)?;
            println!("{token}");
            Ok(Status::Success)
        })(),
        TokenCommand::Inspect {
            token,
            keys,
            iss,
            aud,
            alg,
            leeway_s,
            at,
        } => (|| -> Result<Status, String> {
            let token = if std::path::Path::new(&token).is_file() {
                crate::regular_file::read_text(
                    std::path::Path::new(&token),
                    crate::regular_file::KEY_LIMIT,
                )
                .map_err(|e| format!("{token}: {e}"))?
            } else {
                token
            };
            let keys = match keys {
                Some(p) => Some(KeySet::from_jwks(&read_json(&p)?).map_err(|errors| {
                    let list: Vec<String> = errors.iter().map(|e| e.message.clone()).collect();
                    format!("{}: {}", p.display(), list.join("; "))
                })?),
                None => None,
            };
            let names = if alg.is_empty() {
                DEFAULT_ALLOWED.map(String::from).to_vec()
            } else {
                alg
            };
            let algorithms = names
                .iter()
                .map(|n| Alg::parse(n).ok_or(format!("unknown algorithm `{n}`")))
                .collect::<Result<Vec<_>, _>>()?;
            let at = at.unwrap_or_else(|| crate::engine::scenario::DEFAULT_EPOCH.to_string());
            let now_ms = parse_rfc3339(&at).ok_or(format!("--at `{at}` is not RFC 3339"))?;
            let policy = TokenPolicy {
                issuer: iss,
                audience: aud,
                algorithms,
                leeway_ms: leeway_s.max(0).saturating_mul(1000),
            };
            let report = inspect(&token, keys.as_ref(), &policy, now_ms);
            let checks: Vec<Value> = report
                .checks
                .iter()
                .map(|c| match &c.verdict {
                    Verdict::Pass => json!({"check": c.name, "verdict": "pass"}),
                    Verdict::Fail(d) => json!({"check": c.name, "verdict": "fail", "detail": d}),
                    Verdict::Skipped(d) => {
                        json!({"check": c.name, "verdict": "skipped", "detail": d})
                    }
                })
                .collect();
            let failed = report
                .checks
                .iter()
                .any(|c| matches!(c.verdict, Verdict::Fail(_)));
            let doc = json!({"header": report.header, "claims": report.claims, "checks": checks, "verified": !failed && keys.is_some()});
            println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
            Ok(if failed {
                Status::Failed
            } else {
                Status::Success
            })
        })(),
    };
    result.map_err(|e| Error::Input(format!("a2a-sim token: {e}")))
}

fn read_json(path: &std::path::Path) -> Result<Value, String> {
    let text = crate::regular_file::read_text(path, crate::regular_file::KEY_LIMIT)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))
}

/// Seconds since the Unix epoch, from a number or an RFC 3339 timestamp.
fn seconds(v: &str) -> Result<i64, String> {
    v.parse::<i64>()
        .ok()
        .or_else(|| parse_rfc3339(v).map(|ms| ms.div_euclid(1000)))
        .ok_or(format!(
            "`{v}` is neither seconds nor an RFC 3339 timestamp"
        ))
}
