//! No secret in an error message: a load error that quotes a value must not print one.
//!
//! A message is text the loader and serde wrote about one value of the file. The quoted values in
//! it (`"…"` from serde, `` `…` `` from us) are redacted when they are that value's secret
//! ([`Redact`], found by what the value is: see [`secrets`](crate::secrets)), and, in
//! any message, when they look like a JWT (a credential by its shape, whatever key it was under).
//! URLs show no query or fragment, and long quoted values are cut.

use crate::secrets::Redact;

const REDACTED: &str = "[redacted]";
/// Quoted values longer than this (in characters) are cut.
const LONG: usize = 80;

/// Whether a quoted value is one of `redact`'s, as written or as serde escapes it in a message
/// (`"a\nb"`).
fn is_secret(value: &str, redact: &Redact) -> bool {
    match redact {
        Redact::All => true,
        Redact::Values(secrets) => secrets.iter().any(|s| {
            value == s || {
                let escaped = format!("{s:?}");
                value == &escaped[1..escaped.len() - 1]
            }
        }),
    }
}

/// Whether `value` holds a JWT: a base64url JSON header (`eyJ`) and a dot after it.
fn holds_jwt(value: &str) -> bool {
    value.match_indices("eyJ").any(|(at, _)| {
        let run = &value[at..];
        let end = run
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '=')))
            .unwrap_or(run.len());
        run[..end].contains('.')
    })
}

/// `message` with its quoted values redacted, URLs stripped of query and fragment, long values cut.
pub fn message(message: &str, redact: &Redact) -> String {
    // The value's secrets wherever the message holds them, quoted or not (a quote inside a
    // token would cut a quoted span short): the message is about that value. Short ones only as
    // whole quoted values, so that a word of the message itself stays.
    let mut whole = std::borrow::Cow::Borrowed(message);
    if let Redact::Values(secrets) = redact {
        for s in secrets.iter().filter(|s| s.chars().count() >= 4) {
            let escaped = format!("{s:?}");
            for form in [s.as_str(), &escaped[1..escaped.len() - 1]] {
                if whole.contains(form) {
                    whole = whole.replace(form, REDACTED).into();
                }
            }
        }
    }
    let mut out = String::with_capacity(whole.len());
    let mut rest = &*whole;
    while let Some(open) = rest.find(['"', '`']) {
        let q = rest[open..].chars().next().unwrap_or('"');
        out.push_str(&urls(&rest[..open]));
        let body = &rest[open + 1..];
        // serde escapes a quote inside a string as \"
        let mut end = None;
        let mut escaped = false;
        for (i, c) in body.char_indices() {
            if escaped {
                escaped = false;
            } else if c == '\\' && q == '"' {
                escaped = true;
            } else if c == q {
                end = Some(i);
                break;
            }
        }
        let Some(end) = end else {
            out.push(q);
            rest = body;
            continue;
        };
        let value = &body[..end];
        out.push(q);
        if is_secret(value, redact) || holds_jwt(value) {
            out.push_str(REDACTED);
        } else {
            let value = urls(value);
            if value.chars().count() > LONG {
                out.extend(value.chars().take(LONG - 20));
                out.push('…');
            } else {
                out.push_str(&value);
            }
        }
        out.push(q);
        rest = &body[end + 1..];
    }
    out.push_str(&urls(rest));
    out
}

/// Text outside quotes: URLs with their query and fragment redacted, a JWT redacted.
fn urls(s: &str) -> String {
    let s = without_urls_query(s);
    if !holds_jwt(&s) {
        return s;
    }
    s.split_inclusive(' ')
        .map(|w| match w.strip_suffix(' ') {
            _ if !holds_jwt(w) => w.to_string(),
            Some(_) => format!("{REDACTED} "),
            None => REDACTED.to_string(),
        })
        .collect()
}

/// URLs with their query and fragment redacted.
fn without_urls_query(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("http://").or_else(|| rest.find("https://")) {
        let at = [rest.find("http://"), rest.find("https://")]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(at);
        out.push_str(&rest[..at]);
        let len = rest[at..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '`' | '\'' | ',' | ')' | '}'))
            .unwrap_or(rest.len() - at);
        let url = &rest[at..at + len];
        let (base, fragment) = url
            .split_once('#')
            .map_or((url, None), |(b, f)| (b, Some(f)));
        let (base, query) = base
            .split_once('?')
            .map_or((base, None), |(b, q)| (b, Some(q)));
        out.push_str(base);
        if query.is_some() {
            out.push('?');
            out.push_str(REDACTED);
        }
        if fragment.is_some() {
            out.push('#');
            out.push_str(REDACTED);
        }
        rest = &rest[at + len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const JWT: &str = "eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJzdWIiOiJvcmNoZXN0cmF0b3IifQ.c2ln";

    #[test]
    fn redacts_the_values_of_the_value_and_nothing_equal_elsewhere() {
        let secret = Redact::Values(vec!["SECRET".into(), "a\nb".into()]);
        for (m, redact, want) in [
            (
                "invalid type: string \"SECRET\", expected i64",
                &secret,
                "invalid type: string \"[redacted]\", expected i64",
            ),
            (
                "invalid type: string \"a\\nb\", expected i64",
                &secret,
                "invalid type: string \"[redacted]\", expected i64",
            ),
            (
                "cannot read the token file `SECRET`",
                &secret,
                "cannot read the token file `[redacted]`",
            ),
            (
                "needs `keys` (a JWKS) and `policy.token`",
                &secret,
                "needs `keys` (a JWKS) and `policy.token`",
            ),
            // The same text in a message about another value is not the secret.
            (
                "the handler of `SECRET` can end",
                &Redact::NOTHING,
                "the handler of `SECRET` can end",
            ),
            (
                "any `x` and \"y\"",
                &Redact::All,
                "any `[redacted]` and \"[redacted]\"",
            ),
            (
                "bad url https://a.example/p?k=v#frag here",
                &Redact::NOTHING,
                "bad url https://a.example/p?[redacted]#[redacted] here",
            ),
            (
                "fine `orchestrator`",
                &Redact::NOTHING,
                "fine `orchestrator`",
            ),
            // A quote inside the token does not cut it short.
            (
                "cannot read the token file `a`b\"SECRET`",
                &Redact::Values(vec!["a`b\"SECRET".into()]),
                "cannot read the token file `[redacted]`",
            ),
        ] {
            assert_eq!(message(m, redact), want, "{m}");
        }
        let long = format!("`{}`", "y".repeat(200));
        assert!(message(&long, &Redact::NOTHING).chars().count() < 80);
    }

    #[test]
    fn a_jwt_is_never_printed_whole_nor_its_header() {
        for m in [
            format!("cannot read the token file `{JWT}`"),
            format!("cannot read the token file `{JWT} and more text to make it long`"),
            format!("the file {JWT} is missing"),
            format!("string \"x{JWT}\""),
        ] {
            let out = message(&m, &Redact::NOTHING);
            assert!(!out.contains("eyJ"), "{out}");
            assert!(out.contains(REDACTED), "{out}");
        }
        assert!(!holds_jwt("eyJ only a header"));
    }
}
