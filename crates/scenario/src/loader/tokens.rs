//! Verified callers at load: the JWKS and the platform key (errors located in their own files),
//! `policy.token`, and token callers (a JWT or a file holding one). A bad token is not a load
//! error: it is refused, with its reason, when it is used.

use serde_json::Value;

use crate::diagnostic::{Diagnostic, with_hint};
use crate::file::*;
use crate::yaml::{self, Seg};
use engine::scenario::*;
use token::{
    Alg, DEFAULT_ALLOWED, KeyError, KeySet, PrivateKey, TokenPolicy, TokenService,
    unverified_claims,
};

use super::{Loader, Names};

/// A token written inline rather than as a file name: three dot-separated segments, the first a
/// base64url JSON object (`eyJ`).
pub fn is_inline_jwt(s: &str) -> bool {
    s.starts_with("eyJ") && s.split('.').count() == 3 && !s.contains(['/', '\\', ' '])
}

impl Loader<'_> {
    /// A key file's JSON, or a located problem (the file's own line and column).
    pub(super) fn key_file(&mut self, at: Vec<Seg>, name: &str) -> Option<(String, String, Value)> {
        let path = self.base.join(name);
        let display = path.display().to_string();
        let text = match crate::regular_file::read(&path, crate::regular_file::KEY_LIMIT) {
            Ok(bytes) => match super::decode_utf8(&display, &bytes) {
                Ok(t) => t.to_string(),
                Err(e) => {
                    self.extra.extend(e.diagnostics);
                    return None;
                }
            },
            Err(e) => {
                self.problem(at, format!("cannot read the key file `{name}`: {e}"));
                return None;
            }
        };
        match yaml::parse_value(&text) {
            Ok(v) => Some((display, text, v)),
            Err(e) => {
                self.extra.push(Diagnostic {
                    file: display,
                    line: e.line,
                    column: e.column,
                    message: format!("not a JSON key file: {}", e.message),
                    coded: None,
                });
                None
            }
        }
    }

    pub(super) fn key_errors(
        &mut self,
        display: &str,
        text: &str,
        root: &[Seg],
        errors: Vec<KeyError>,
    ) {
        for e in errors {
            let mut at = root.to_vec();
            if let Some(i) = e.key {
                at.extend([Seg::from("keys"), Seg::Index(i)]);
            }
            if let Some(m) = &e.member {
                at.push(Seg::from(m.as_str()));
            }
            let (line, column) = yaml::locate(text, &at).unwrap_or((1, 1));
            self.extra.push(Diagnostic {
                file: display.to_string(),
                line,
                column,
                message: e.message,
                coded: None,
            });
        }
    }

    pub(super) fn tokens(
        &mut self,
        keys: Option<String>,
        policy: Option<TokenPolicyFile>,
    ) -> Option<Box<dyn Tokens>> {
        let (keys, policy) = match (keys, policy) {
            (None, None) => return None,
            (Some(_), None) => {
                self.problem(
                    at!["keys"],
                    "`keys` needs `policy.token: {issuer, audience}` to say whose tokens to accept",
                );
                return None;
            }
            (None, Some(_)) => {
                self.problem(
                    at!["policy", "token"],
                    "`policy.token` needs `keys`: a JWKS file of the keys tokens are verified with",
                );
                return None;
            }
            (Some(k), Some(p)) => (k, p),
        };
        let set = match self.key_file(at!["keys"], &keys) {
            Some((display, text, doc)) => match KeySet::from_jwks(&doc) {
                Ok(set) => set,
                Err(errors) => {
                    self.key_errors(&display, &text, &[], errors);
                    KeySet::default()
                }
            },
            None => KeySet::default(),
        };
        let mut algorithms = Vec::new();
        let names = policy
            .algorithms
            .unwrap_or_else(|| DEFAULT_ALLOWED.map(String::from).to_vec());
        if names.is_empty() {
            self.problem(
                at!["policy", "token", "algorithms"],
                "`algorithms` needs at least one algorithm",
            );
        }
        for (i, name) in names.iter().enumerate() {
            match Alg::parse(name) {
                Some(a) => algorithms.push(a),
                None => {
                    let msg = if name.eq_ignore_ascii_case("none") {
                        "`none` is never allowed: an unsigned token proves nothing".to_string()
                    } else {
                        with_hint(format!("unknown algorithm `{name}`"), name, Alg::names())
                    };
                    self.problem(at!["policy", "token", "algorithms", i], msg);
                }
            }
        }
        let leeway_s = policy.leeway_s.unwrap_or(0);
        if leeway_s < 0 {
            self.problem(
                at!["policy", "token", "leeway_s"],
                format!("leeway_s must be 0 or more, not {leeway_s}"),
            );
        }
        let platform = policy.platform_key.as_ref().and_then(|name| {
            let at = at!["policy", "token", "platform_key"];
            let (display, text, doc) = self.key_file(at.clone(), name)?;
            match PrivateKey::from_jwk(&doc, true) {
                Ok(k) if k.alg.name == "EdDSA" => Some(k),
                Ok(_) => {
                    self.problem(
                        at,
                        "the platform key must be an Ed25519 (`OKP`) private JWK",
                    );
                    None
                }
                Err(e) => {
                    self.key_errors(&display, &text, &[], vec![e]);
                    None
                }
            }
        });
        let service = TokenService::new(
            set,
            TokenPolicy {
                issuer: Some(policy.issuer),
                audience: Some(policy.audience),
                algorithms,
                leeway_ms: leeway_s.max(0).saturating_mul(1000),
            },
            platform,
        );
        Some(Box::new(service))
    }

    /// An identity a token holds (its `sub`) is reachable only with that token: a caller given as
    /// parameters with the same id would act as the verified caller (see its tasks, cancel them)
    /// on nothing but a name, as `serve`'s `X-A2A-Sim-Caller` header does.
    pub(super) fn token_identities(&mut self, callers: &[Caller]) {
        let held: std::collections::BTreeMap<_, &str> = callers
            .iter()
            .filter(|c| c.token.is_some())
            .map(|c| (c.sym, c.id.as_str()))
            .collect();
        for (i, c) in callers.iter().enumerate() {
            if c.token.is_some() || c.id.is_empty() {
                continue;
            }
            if let Some(name) = held.get(&c.sym) {
                self.problem(
                    at!["callers", i, "id"],
                    format!(
                        "caller `{}` is the identity the token of caller `{name}` holds (its `sub`): only that token may act as it; give this caller another id",
                        c.id
                    ),
                );
            }
        }
    }

    /// A verified caller: its handle, and the names its token's claims use (interned so the engine
    /// can map verified claims to symbols; trusted only once verified).
    pub(super) fn token_caller(
        &mut self,
        i: usize,
        c: &CallerFile,
        token: &str,
        names: &Names,
        has_keys: bool,
    ) -> Caller {
        for (key, present) in [
            ("id", c.id.is_some()),
            ("tenant", c.tenant.is_some()),
            ("classification", c.classification.is_some()),
            ("scopes", !c.scopes.is_empty()),
            ("delegation_chain", !c.delegation_chain.is_empty()),
        ] {
            if present {
                self.problem(
                    at!["callers", i, key],
                    format!("`{key}` comes from the verified token: a caller with `token` has only `name` and `token`"),
                );
            }
        }
        let name = c.name.clone().unwrap_or_default();
        if c.name.is_none() {
            self.problem(
                at!["callers", i],
                "a caller with `token` needs `name`: the handle its steps use",
            );
        }
        if !has_keys {
            self.problem(
                at!["callers", i, "token"],
                "a caller with a token needs `keys` (a JWKS) and `policy.token` to verify it",
            );
        }
        let jwt = if is_inline_jwt(token) {
            token.to_string()
        } else {
            let path = self.base.join(token);
            match crate::regular_file::read_text(&path, crate::regular_file::KEY_LIMIT) {
                Ok(t) => t.trim().to_string(),
                Err(e) => {
                    self.problem(
                        at!["callers", i, "token"],
                        format!("cannot read the token file `{token}`: {e}"),
                    );
                    String::new()
                }
            }
        };
        let claims = unverified_claims(&jwt).unwrap_or_default();
        let text = |k: &str| {
            claims
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let scopes: Vec<String> = text("scope")
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let mut chain = Vec::new();
        let mut act = claims.get("act");
        while let Some(a) = act.filter(|_| chain.len() < 64) {
            if let Some(s) = a.get("sub").and_then(Value::as_str) {
                chain.push(self.symbols.intern(s));
            }
            act = a.get("act");
        }
        chain.reverse();
        let classification = names
            .levels
            .iter()
            .position(|l| *l == text("classification"))
            .unwrap_or(0);
        Caller {
            sym: self.symbols.intern(&text("sub")),
            id: name,
            tenant: self.symbols.intern(&text("tenant")),
            classification,
            scopes: self.syms(&scopes),
            delegation_chain: chain,
            token: Some(jwt),
        }
    }
}
