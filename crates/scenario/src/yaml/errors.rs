//! serde_norway's (serde_yaml's) errors made ours: located where the problem is, in the scenario's own words, with
//! a hint where a word was misspelled.

use crate::diagnostic::with_hint;

use super::{Seg, YamlError, has_content, locate};

/// `("steps[3].send", "token")` from serde_norway's "steps[3].send: duplicate field `token`".
fn duplicate_field(message: &str) -> Option<(&str, String)> {
    let (at, rest) = match message.split_once(": duplicate field `") {
        Some((at, rest)) => (at, rest),
        None => (".", message.strip_prefix("duplicate field `")?),
    };
    Some((at, rest.split('`').next()?.to_string()))
}

/// serde_norway's path notation (`steps[3].send`, `.` for the root) as segments.
pub(super) fn parse_path(path: &str) -> Vec<Seg> {
    let mut segs = Vec::new();
    if path == "." {
        return segs;
    }
    for part in path.split('.') {
        let (key, indices) = part.split_once('[').map_or((part, ""), |(k, i)| (k, i));
        if !key.is_empty() {
            segs.push(Seg::from(key));
        }
        for idx in indices.split('[') {
            if let Ok(n) = idx.trim_end_matches(']').parse() {
                segs.push(Seg::Index(n));
            }
        }
    }
    segs
}

pub(super) fn convert_error(text: &str, e: &serde_norway::Error) -> YamlError {
    let (mut line, mut column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
    let mut message = e.to_string();
    if let Some(l) = e.location() {
        let suffix = format!(" at line {} column {}", l.line(), l.column());
        if let Some(at) = message.find(&suffix) {
            message.replace_range(at..at + suffix.len(), "");
        }
    }
    let path = value_path(&message);
    let mut relocate = |path: Vec<Seg>| {
        if let Some(pos) = locate(text, &path) {
            (line, column) = pos;
        }
    };
    if let Some((at, key)) = duplicate_field(&message) {
        // serde points at the mapping; point at the second definition instead.
        relocate([parse_path(at), vec![Seg::Duplicate(key)]].concat());
    } else if let Some(at) = message
        .split_once(": ")
        .filter(|(_, m)| m.contains("has exactly one key"))
        .map(|(at, _)| at)
    {
        // A missing `-` between two steps: point at the second key.
        relocate([parse_path(at), vec![Seg::Entry(1)]].concat());
    }
    // An unclosed bracket or quote is best shown where it opened.
    for context in [
        "while parsing a flow sequence at ",
        "while parsing a flow mapping at ",
        "while scanning a quoted scalar at ",
    ] {
        if let Some(pos) = message
            .find(context)
            .and_then(|at| parse_line_column(&message[at + context.len()..]))
        {
            (line, column) = pos;
        }
    }
    if let Some(field) = message
        .split("missing field `")
        .nth(1)
        .and_then(|r| r.split('`').next())
    {
        // A key indented too little is folded into the value before it: look for it in the rest of
        // this mapping's block (lines indented more than its parent) and say so.
        let mut misplaced = None;
        for (i, l) in text.lines().enumerate().skip(line) {
            let key = l.trim_start();
            if key.is_empty() || key.starts_with('#') {
                continue;
            }
            let col = l.len() - key.len() + 1;
            if col + 2 <= column {
                break;
            }
            if col < column && key.starts_with(&format!("{field}:")) {
                misplaced = Some((i + 1, col));
                break;
            }
        }
        if let Some((l, c)) = misplaced {
            message = format!(
                "{message}: `{field}:` on this line is not part of that mapping; indent it like the mapping's other keys"
            );
            (line, column) = (l, c);
        }
    }
    if message.contains(" as u128, expected") || message.contains(" as i128, expected") {
        message = format!("{message}: the number is out of range");
    }
    if message.contains("found a tab character") {
        message = "a tab character in indentation: YAML indents with spaces only; replace the tab with spaces".to_string();
    }
    // Our own type checks say "PATH: `KEY` must be …": point at that key's value, not at the
    // mapping that holds it.
    if let Some((at, rest)) = message.split_once(": `")
        && let Some((key, tail)) = rest.split_once('`')
        && tail.starts_with(" must be")
        && let Some(pos) = locate(text, &[parse_path(at), vec![Seg::from(key)]].concat())
    {
        (line, column) = pos;
    }
    message = name_path(text, &message);
    if message.starts_with("control characters are not allowed") {
        // serde_norway gives a character offset, not a position: find the character ourselves.
        if let Some((l, c, ch)) = first_control_character(text) {
            (line, column) = (l, c);
            message = format!(
                "a control character (U+{:04X}) is not allowed in a YAML file; remove it",
                ch as u32
            );
        }
    }
    if message.contains("recursion limit exceeded") {
        message = "values are nested too deeply (more than 128 levels)".to_string();
    }
    if message.contains("repetition limit exceeded") {
        message =
            "aliases expand to too many values (an alias bomb?); use fewer `*alias` references"
                .to_string();
        if let Some(pos) = first_alias(text) {
            (line, column) = pos;
        }
    }
    if message.contains("more than one document") {
        message =
            "a scenario file holds one YAML document; remove the second `---` or split the file"
                .to_string();
        if let Some(pos) = second_document(text) {
            (line, column) = pos;
        }
    }
    if !has_content(text) {
        (line, column) = (1, 1);
        message = "the file is empty: a scenario needs `agents`, `callers` and `steps`".to_string();
    }
    YamlError {
        line,
        column,
        message: add_serde_hint(plain_types(message)),
        path,
    }
}

/// The path of the value a serde message is about (`steps[3].send: invalid type: …`), the root's
/// for a message without one that quotes a value; `None` for a message about the YAML itself.
fn value_path(message: &str) -> Option<Vec<Seg>> {
    let about_a_value = |m: &str| {
        [
            "invalid type: ",
            "invalid value: ",
            "unknown variant ",
            "invalid length ",
        ]
        .iter()
        .any(|w| m.starts_with(w))
    };
    match message.split_once(": ") {
        Some((at, rest))
            if !at.is_empty()
                && !at.contains([' ', '`', '"'])
                && (at == "." || !at.starts_with('.')) =>
        {
            Some(parse_path(at)).filter(|_| !rest.is_empty())
        }
        _ if about_a_value(message) => Some(Vec::new()),
        _ => None,
    }
}

/// The first character YAML does not allow (C0 controls but tab, LF, CR; DEL; C1 controls but
/// NEL), with its 1-based line and column.
fn first_control_character(text: &str) -> Option<(usize, usize, char)> {
    for (i, l) in text.split('\n').enumerate() {
        for (j, ch) in l.chars().enumerate() {
            let bad = (ch < ' ' && !matches!(ch, '\t' | '\r'))
                || ch == '\u{7f}'
                || (('\u{80}'..='\u{9f}').contains(&ch) && ch != '\u{85}');
            if bad {
                return Some((i + 1, j + 1, ch));
            }
        }
    }
    None
}

/// serde's path prefix (`steps[2].send: …`, `agents[1].handler[0].artifact: …`) in the words of
/// the report: `step 3 (send): …`, `agent sanctions-screener, handler step 1 (artifact): …`.
fn name_path(text: &str, message: &str) -> String {
    let Some((at, rest)) = message.split_once(": ") else {
        return message.to_string();
    };
    if at.contains(' ')
        || !(at.starts_with("steps[") || at.starts_with("agents[") || at.starts_with("callers["))
    {
        return message.to_string();
    }
    let segs = parse_path(at);
    let doc: Option<serde_norway::Value> = serde_norway::from_str(text).ok();
    let name = |list: &str, i: usize, field: &str| -> Option<String> {
        let item = doc.as_ref()?.get(list)?.get(i)?;
        item.get(field)
            .or_else(|| item.get("card"))
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    let mut words = Vec::new();
    let mut i = 0;
    while i < segs.len() {
        match (&segs[i], segs.get(i + 1)) {
            (Seg::Key(k), Some(Seg::Index(n))) if i == 0 && k == "steps" => {
                let op = match segs.get(i + 2) {
                    Some(Seg::Key(op)) => {
                        i += 1;
                        format!(" ({op})")
                    }
                    _ => String::new(),
                };
                words.push(format!("step {}{op}", n + 1));
                i += 2;
            }
            (Seg::Key(k), Some(Seg::Index(n))) if i == 0 && (k == "agents" || k == "callers") => {
                let (what, field) = if k == "agents" {
                    ("agent", "name")
                } else {
                    ("caller", "id")
                };
                words.push(match name(k, *n, field) {
                    Some(nm) => format!("{what} {nm}"),
                    None => format!("{what} {}", n + 1),
                });
                i += 2;
            }
            (Seg::Key(k), Some(Seg::Index(n))) if k == "handler" => {
                let op = match segs.get(i + 2) {
                    Some(Seg::Key(op)) => {
                        i += 1;
                        format!(" ({op})")
                    }
                    _ => String::new(),
                };
                words.push(format!("handler step {}{op}", n + 1));
                i += 2;
            }
            (Seg::Key(k), _) => {
                words.push(k.to_string());
                i += 1;
            }
            (Seg::Index(n), _) => {
                if let Some(last) = words.last_mut() {
                    last.push_str(&format!("[{n}]"));
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    format!("{}: {rest}", words.join(", "))
}

/// "line 8 column 15" at the start of `s`.
fn parse_line_column(s: &str) -> Option<(usize, usize)> {
    let rest = s.strip_prefix("line ")?;
    let (line, rest) = rest.split_once(" column ")?;
    let column: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((line.parse().ok()?, column.parse().ok()?))
}

/// The first `*alias` outside a quoted string, roughly: where an alias bomb starts expanding.
fn first_alias(text: &str) -> Option<(usize, usize)> {
    text.lines().enumerate().find_map(|(i, l)| {
        let code = l.split(" #").next().unwrap_or(l);
        code.char_indices()
            .find(|&(j, c)| c == '*' && code[j + 1..].starts_with(|n: char| n.is_alphanumeric()))
            .map(|(j, _)| (i + 1, code[..j].chars().count() + 1))
    })
}

/// The `---` that starts a second document.
fn second_document(text: &str) -> Option<(usize, usize)> {
    let mut seen_content = false;
    for (i, l) in text.lines().enumerate() {
        if l == "---" || l.starts_with("--- ") {
            if seen_content {
                return Some((i + 1, 1));
            }
        } else if !l.trim().is_empty() && !l.trim_start().starts_with('#') {
            seen_content = true;
        }
    }
    None
}

/// A serde message without Rust type names, with a "did you mean" where one applies.
pub fn plain_message(message: &str) -> String {
    add_serde_hint(plain_types(message.to_string()))
}

/// serde names our Rust types (`struct ScenarioFile`); users wrote YAML mappings.
fn plain_types(message: String) -> String {
    let mut out = message;
    while let Some(at) = out.find("struct ") {
        let name_end = out[at + 7..]
            .find(|c: char| !c.is_alphanumeric() && c != '_')
            .map_or(out.len(), |e| at + 7 + e);
        out.replace_range(at..name_end, "a mapping");
    }
    out
}

/// serde reports unknown keys and variants as "unknown field `x`, expected one of `a`, `b`";
/// turn the list into a "did you mean" when one of them is close.
fn add_serde_hint(message: String) -> String {
    for marker in ["unknown field `", "unknown variant `"] {
        let Some(start) = message.find(marker) else {
            continue;
        };
        let rest = &message[start + marker.len()..];
        let Some(end) = rest.find('`') else { continue };
        let word = rest[..end].to_string();
        let expected: Vec<String> = rest[end + 1..]
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        return with_hint(message.clone(), &word, expected.iter().map(String::as_str));
    }
    message
}
