//! No push token in an error message: a load error that quotes a value must not print one.
//!
//! A message is text the loader and serde wrote, so the quoted values in it (`"…"` from serde,
//! `` `…` `` from us) are redacted when they hold a value that sat under a `token`, `push` or
//! `set_push_config` key in the source (an alias repeats its anchor's value, so it is caught by
//! value). URLs show no query or fragment, and long quoted values are cut.

use crate::diagnostic::Diagnostic;

const REDACTED: &str = "[redacted]";
/// Quoted values longer than this (in characters) are cut.
const LONG: usize = 80;

/// Redacts the messages of `diagnostics`, found in files whose texts are `texts`.
pub fn diagnostics(diagnostics: &mut [Diagnostic], texts: &[&str]) {
    if diagnostics.is_empty() {
        // Nothing to redact: the line scan of every text is skipped (it costs as much as a tenth
        // of a large file's load).
        return;
    }
    let mut secrets: Vec<String> = texts.iter().flat_map(|t| secrets(t)).collect();
    // A generated file repeats the same few URLs thousands of times: each quoted value is
    // compared with every secret, so once each is enough.
    secrets.sort_unstable();
    secrets.dedup();
    for d in diagnostics {
        d.message = message(&d.message, &secrets);
    }
}

/// The values under `token`, `push` and `set_push_config` keys, by a line scan (it must work on
/// text that does not parse).
pub fn secrets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<usize> = None;
    let b = text.as_bytes();
    let mut start = 0;
    while start < b.len() {
        // The line, and whether it may hold a key: each key ends in `n:`, `h:` or `g:`. A line
        // without one is nothing to a scan outside a block (most lines of a large file).
        let (mut at, mut keyed) = (start, false);
        let end = loop {
            at = crate::yaml::find(b, at, b.len(), b':', b'\n');
            if at == b.len() || b[at] == b'\n' {
                break at;
            }
            keyed |= at > start && matches!(b[at - 1], b'n' | b'h' | b'g');
            at += 1;
        };
        let line = &text[start..end];
        let line = match line.strip_suffix('\r') {
            Some(l) if end < b.len() => l,
            _ => line,
        };
        start = end + 1;
        if keyed || block.is_some() {
            scan_line(line, &mut block, &mut out);
        }
    }
    out
}

/// One line of [`secrets`]: `block` is the indentation of the `push:` or `set_push_config:` whose
/// block mapping the line may be in.
fn scan_line(line: &str, block: &mut Option<usize>, out: &mut Vec<String>) {
    let indent = line.len() - line.trim_start().len();
    if block.is_some_and(|b| indent <= b) && !line.trim().is_empty() {
        *block = None;
    }
    // Looking at the colons after `n`, `h` or `g` finds the same occurrences as searching the
    // line for each key (a substring searcher built three times a line: a fifth of a large
    // file's `check`).
    let bytes = line.as_bytes();
    for colon in 1..bytes.len() {
        if bytes[colon] != b':' || !matches!(bytes[colon - 1], b'n' | b'h' | b'g') {
            continue;
        }
        for key in KEYS {
            let Some(at) = colon.checked_sub(key.len() - 1) else {
                continue;
            };
            if line[..=colon].ends_with(key) {
                key_at(line, at, key, indent, block, out);
            }
        }
    }
    block_value(line, indent, *block, out);
}

/// The keys whose values are secrets: a `token:`'s value, and a `push:`'s or
/// `set_push_config:`'s whole value (a URL may carry one).
const KEYS: [&str; 3] = ["token:", "push:", "set_push_config:"];

/// What `key`, found at byte `at` of `line`, holds: its secrets go to `out`; a `push:` or
/// `set_push_config:` with nothing after it opens a block mapping at `indent`.
fn key_at(
    line: &str,
    at: usize,
    key: &str,
    indent: usize,
    block: &mut Option<usize>,
    out: &mut Vec<String>,
) {
    let before = line[..at].chars().next_back();
    if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
        return;
    }
    let whole_string = key != "token:";
    let rest = strip_anchor(line[at + key.len()..].trim());
    if rest.is_empty() && whole_string {
        // A block mapping: its lines are under the key.
        *block = Some(indent);
    } else if !whole_string {
        let value = up_to(strip_quotes(rest), |c| {
            matches!(c, ',' | '}' | '"' | '\'' | '#')
        });
        push(out, value.trim());
    } else if !rest.starts_with('{') {
        // Written as one string (`push: "URL TOKEN"`): every word of it.
        for w in strip_quotes(rest).split([' ', ',', '"', '\'', '}']) {
            if !w.ends_with(':') {
                push(out, w);
            }
        }
    } else if let Some(u) = rest.find("url:") {
        let url = up_to(strip_quotes(rest[u + 4..].trim()), |c| {
            matches!(c, ',' | '}' | '"' | '\'' | ' ')
        });
        push(out, url);
    }
}

/// A line inside a `push:` block mapping (opened at `block`): its value is a secret.
fn block_value(line: &str, indent: usize, block: Option<usize>, out: &mut Vec<String>) {
    if block.is_some_and(|b| indent > b)
        && let Some((_, v)) = line.split_once(": ")
    {
        push(
            out,
            strip_quotes(strip_anchor(v.trim())).trim_end_matches(['"', '\'']),
        );
    }
}

/// `s` up to its first character that `stop`s it (a slice, not a copy).
fn up_to(s: &str, stop: impl Fn(char) -> bool) -> &str {
    &s[..s.find(stop).unwrap_or(s.len())]
}

fn push(out: &mut Vec<String>, word: &str) {
    let word = word.trim().trim_matches(['"', '\'']);
    if !word.is_empty() && !matches!(word, "null" | "~" | "\"\"" | "''") {
        out.push(word.to_string());
    }
}

fn strip_anchor(s: &str) -> &str {
    match s.strip_prefix('&') {
        Some(rest) => rest.split_once(' ').map_or("", |(_, v)| v.trim_start()),
        None => s,
    }
}

fn strip_quotes(s: &str) -> &str {
    s.trim_start_matches(['"', '\''])
}

/// Whether a quoted value holds a secret: whole for short ones, as a part for the rest.
fn holds_secret(value: &str, secrets: &[String]) -> bool {
    secrets.iter().any(|s| {
        value == s
            || s.len() <= value.len()
                // Three characters: at least three bytes, and surely so from twelve.
                && s.len() >= 3
                && (s.len() >= 12 || s.chars().count() >= 3)
                && value.contains(s.as_str())
    })
}

/// `message` with its quoted values redacted, URLs stripped of query and fragment, long values cut.
pub fn message(message: &str, secrets: &[String]) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
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
        if holds_secret(value, secrets) {
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

/// URLs with their query and fragment redacted.
fn urls(s: &str) -> String {
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

    #[test]
    fn redacts_what_came_from_a_token() {
        let text = "x:\n  push: {url: \"https://h/x\", token: &t SECRET}\n  limit: *t\n  push: \"https://h/y?q=1 TOK2\"\n  set_push_config:\n    token: TOK3\n";
        let s = secrets(text);
        for (m, want) in [
            (
                "invalid type: string \"SECRET\", expected i64",
                "invalid type: string \"[redacted]\", expected i64",
            ),
            ("string \"https://h/y?q=1 TOK2\"", "string \"[redacted]\""),
            ("unknown `TOK3`", "unknown `[redacted]`"),
            (
                "bad url https://a.example/p?k=v#frag here",
                "bad url https://a.example/p?[redacted]#[redacted] here",
            ),
            ("fine `orchestrator`", "fine `orchestrator`"),
        ] {
            assert_eq!(message(m, &s), want, "{m}");
        }
        let long = format!("`{}`", "y".repeat(200));
        assert!(message(&long, &s).chars().count() < 80);
    }

    /// The line scan as it was (a substring search for each key): the colon scan finds the same.
    fn secrets_by_key(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut block: Option<usize> = None;
        for line in text.lines() {
            let indent = line.len() - line.trim_start().len();
            if block.is_some_and(|b| indent <= b) && !line.trim().is_empty() {
                block = None;
            }
            for key in KEYS {
                for (at, _) in line.match_indices(key) {
                    key_at(line, at, key, indent, &mut block, &mut out);
                }
            }
            block_value(line, indent, block, &mut out);
        }
        out
    }

    #[test]
    fn the_colon_scan_finds_what_the_key_search_found() {
        let mut texts = vec![
            "a: {token: x, token: y, xtoken: z, push_token: w}\n".to_string(),
            "set_push_config: {url: u, token: t}\npush: {url: \"v\", token: '&q'}\n".to_string(),
            "push:\n  url: u2\n  token: &a t2\nnext: 1\n:token: :push: token:push:x\n".to_string(),
            "é token: ü\n  push: \"h://x y\" # c\n".to_string(),
            "push:\r\n  url: a\r\n  token: b\r\nx: 1\r".to_string(),
            "set_push_config:\n    token: t\n  # c\n\n    url: u\nz: 1\n  push: &p\n   k: v"
                .to_string(),
            "token:\ntoken: x\rtoken: y\n\n\n".to_string(),
        ];
        for dir in ["scenarios", "tests/malformed", "conformance"] {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join(dir);
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                if let Ok(t) = std::fs::read_to_string(e.path()) {
                    texts.push(t);
                }
            }
        }
        assert!(texts.len() > 50);
        for t in &texts {
            let (mut new, mut old) = (secrets(t), secrets_by_key(t));
            new.sort();
            old.sort();
            assert_eq!(new, old, "{t}");
        }
    }
}
