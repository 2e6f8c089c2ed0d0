//! The one module that touches YAML.
//!
//! Scenario files are parsed with `serde_yaml` straight into the typed file model, so type errors,
//! unknown keys and YAML syntax errors come back located by the parser itself. Problems found later
//! (a dangling reference, a duplicate name) are located with [`locate`], which walks the document
//! again to the offending value.

use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor,
};

use crate::error::with_hint;

/// A step of a path into a YAML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    /// The second occurrence of a key in the same mapping (a duplicate).
    Duplicate(String),
    /// The value of the n-th entry (0-based) of a mapping, whatever its key.
    Entry(usize),
    Index(usize),
    /// The key itself (not its value): last in a path, for errors about a key that does not
    /// belong where it stands.
    KeyName(String),
}

impl From<&str> for Seg {
    fn from(key: &str) -> Self {
        Seg::Key(key.to_string())
    }
}

impl From<usize> for Seg {
    fn from(index: usize) -> Self {
        Seg::Index(index)
    }
}

/// A YAML problem with its 1-based position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Parses `text` into `T`, reporting the first problem with its position.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    serde_yaml::from_str(text).map_err(|e| convert_error(text, &e))
}

/// `("steps[3].send", "token")` from serde_yaml's "steps[3].send: duplicate field `token`".
fn duplicate_field(message: &str) -> Option<(&str, String)> {
    let (at, rest) = match message.split_once(": duplicate field `") {
        Some((at, rest)) => (at, rest),
        None => (".", message.strip_prefix("duplicate field `")?),
    };
    Some((at, rest.split('`').next()?.to_string()))
}

/// serde_yaml's path notation (`steps[3].send`, `.` for the root) as segments.
fn parse_path(path: &str) -> Vec<Seg> {
    let mut segs = Vec::new();
    if path == "." {
        return segs;
    }
    for part in path.split('.') {
        let (key, indices) = part.split_once('[').map_or((part, ""), |(k, i)| (k, i));
        if !key.is_empty() {
            segs.push(Seg::Key(key.to_string()));
        }
        for idx in indices.split('[') {
            if let Ok(n) = idx.trim_end_matches(']').parse() {
                segs.push(Seg::Index(n));
            }
        }
    }
    segs
}

/// Parses a YAML fragment that is not a scenario (for tests and tools).
pub fn parse_value(text: &str) -> Result<serde_json::Value, YamlError> {
    parse(text)
}

fn convert_error(text: &str, e: &serde_yaml::Error) -> YamlError {
    let (mut line, mut column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
    let mut message = e.to_string();
    if let Some(l) = e.location() {
        let suffix = format!(" at line {} column {}", l.line(), l.column());
        if let Some(at) = message.find(&suffix) {
            message.replace_range(at..at + suffix.len(), "");
        }
    }
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
        // serde_yaml gives a character offset, not a position: find the character ourselves.
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
    let doc: Option<serde_yaml::Value> = serde_yaml::from_str(text).ok();
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
                words.push(k.clone());
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

/// Whether the text holds anything but blank lines and comments.
pub fn has_content(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        !l.is_empty() && !l.starts_with('#') && l != "---" && l != "..."
    })
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

/// The position of the value at `path` in `text`, if the document has one there.
pub fn locate(text: &str, path: &[Seg]) -> Option<(usize, usize)> {
    let de = serde_yaml::Deserializer::from_str(text);
    match (Probe { path }).deserialize(de) {
        Ok(()) => None,
        Err(e) if e.to_string().contains(PROBE) => e.location().map(|l| (l.line(), l.column())),
        Err(_) => None,
    }
}

/// Locates many paths into one big file: each is looked up in just the top-level block its first
/// key names (the parser reads a whole document before the probe runs, and a generated file's
/// `steps` dwarf its `agents`), falling back to the whole text when that finds nothing.
pub struct Locator<'t> {
    text: &'t str,
    sections: Vec<(String, Option<String>)>,
}

impl<'t> Locator<'t> {
    pub fn new(text: &'t str) -> Self {
        Locator {
            text,
            sections: Vec::new(),
        }
    }

    pub fn locate(&mut self, path: &[Seg]) -> Option<(usize, usize)> {
        if let Some(Seg::Key(key)) = path.first() {
            let ix = match self.sections.iter().position(|(k, _)| k == key) {
                Some(ix) => ix,
                None => {
                    self.sections
                        .push((key.clone(), top_level_block(self.text, key)));
                    self.sections.len() - 1
                }
            };
            if let Some(block) = self.sections[ix].1.as_deref() {
                // Narrower still: the one item of a block sequence the path goes into.
                if let Some(Seg::Index(i)) = path.get(1)
                    && let Some(item) = sequence_item(block, key, *i)
                {
                    let inner = [&path[..1], &[Seg::Index(0)], &path[2..]].concat();
                    if let Some(found) = locate(&item, &inner) {
                        return Some(found);
                    }
                }
                if let Some(found) = locate(block, path) {
                    return Some(found);
                }
            }
        }
        locate(self.text, path)
    }
}

/// Item `i` of the block sequence under `key:` in `block`, alone under its key, at its own line.
fn sequence_item(block: &str, key: &str, i: usize) -> Option<String> {
    let mut lines = block.split_inclusive('\n').enumerate();
    // The header must be a bare `key:`; a flow sequence is left to the parser.
    let (header, text) = lines.find(|(_, l)| !l.trim().is_empty())?;
    if text.trim_end() != format!("{key}:") {
        return None;
    }
    let mut dash = None;
    let mut found: Option<(usize, String)> = None;
    let mut n = 0;
    for (line_ix, line) in lines {
        let indent = line.len() - line.trim_start().len();
        let is_item = line.trim_start().starts_with('-') && dash.is_none_or(|d| d == indent);
        if is_item {
            dash.get_or_insert(indent);
            if found.is_some() {
                break;
            }
            if n == i {
                found = Some((line_ix, String::new()));
            }
            n += 1;
        }
        if let Some((_, item)) = &mut found {
            item.push_str(line);
        }
    }
    let (line_ix, item) = found?;
    if line_ix <= header {
        return None;
    }
    let mut doc = format!("{key}:\n");
    doc.push_str(&"\n".repeat(line_ix - 1));
    doc.push_str(&item);
    Some(doc)
}

/// The block of a block-style top-level `key:` alone, preceded by as many empty lines as came
/// before it so that positions stay the file's. `None` when the file has no such block.
fn top_level_block(text: &str, key: &str) -> Option<String> {
    let mut start = None;
    let mut end = text.len();
    let mut offset = 0;
    let mut lines_before = 0;
    for line in text.split_inclusive('\n') {
        let top = line
            .chars()
            .next()
            .is_some_and(|c| !c.is_whitespace() && c != '#' && c != '-');
        match start {
            None if top && line.strip_prefix(key).is_some_and(|r| r.starts_with(':')) => {
                start = Some(offset);
            }
            None => lines_before += 1,
            Some(_) if top || line.starts_with("---") || line.starts_with("...") => {
                end = offset;
                break;
            }
            Some(_) => {}
        }
        offset += line.len();
    }
    let start = start?;
    let mut block = "\n".repeat(lines_before);
    block.push_str(&text[start..end]);
    Some(block)
}

const PROBE: &str = "a2a-sim position probe";

/// Walks to `path` and fails there on purpose: the parser stamps the failure with the position of
/// the value it was reading, which is exactly the position we want.
struct Probe<'a> {
    path: &'a [Seg],
}

impl<'de> DeserializeSeed<'de> for Probe<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Probe<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.scalar()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.scalar()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.scalar()
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.scalar()
    }
    fn visit_some<D: de::Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        self.deserialize(de)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some((first, rest)) = self.path.split_first() else {
            return Err(de::Error::custom(PROBE));
        };
        let Seg::Index(target) = first else {
            return Ok(());
        };
        let mut i = 0;
        loop {
            if i == *target {
                return seq.next_element_seed(Probe { path: rest }).map(drop);
            }
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some((first, rest)) = self.path.split_first() else {
            return Err(de::Error::custom(PROBE));
        };
        if let Seg::Entry(n) = first {
            let mut i = 0;
            while map.next_key::<IgnoredAny>()?.is_some() {
                if i == *n {
                    return map.next_value_seed(Probe { path: rest });
                }
                map.next_value::<IgnoredAny>()?;
                i += 1;
            }
            return Ok(());
        }
        let (target, mut skip) = match first {
            Seg::Key(k) => (k.as_str(), 0),
            Seg::Duplicate(k) => (k.as_str(), 1),
            Seg::KeyName(k) => {
                while map.next_key_seed(KeyProbe(k))?.is_some() {
                    map.next_value::<IgnoredAny>()?;
                }
                return Ok(());
            }
            Seg::Index(_) | Seg::Entry(_) => return Ok(()),
        };
        while let Some(key) = map.next_key::<serde_yaml::Value>()? {
            if key.as_str() == Some(target) {
                if skip == 0 {
                    return map.next_value_seed(Probe { path: rest });
                }
                skip -= 1;
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

/// Reads a key and fails on purpose when it is the one sought, so the error carries the key's
/// own position.
struct KeyProbe<'a>(&'a str);

impl<'de> DeserializeSeed<'de> for KeyProbe<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeyProbe<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<(), E> {
        if key == self.0 {
            Err(E::custom(PROBE))
        } else {
            Ok(())
        }
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

impl Probe<'_> {
    fn scalar<E: de::Error>(self) -> Result<(), E> {
        if self.path.is_empty() {
            Err(E::custom(PROBE))
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests;
