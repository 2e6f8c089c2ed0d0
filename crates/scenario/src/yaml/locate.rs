//! Positions of values (and keys) by path: the document (or the one item of it the path goes
//! into) is walked again to the offending one.

use std::fmt;
use std::sync::OnceLock;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::Seg;

/// The position of the value at `path` in `text`, if the document has one there.
pub fn locate(text: &str, path: &[Seg]) -> Option<(usize, usize)> {
    match probe(text, path) {
        Probed::Found(at) => Some(at),
        Probed::Absent | Probed::Unparsed => None,
    }
}

/// What one probe of a document found.
enum Probed {
    Found((usize, usize)),
    /// The document parsed and has nothing at the path.
    Absent,
    /// The document does not parse (a slice of a file may not, alone).
    Unparsed,
}

fn probe(text: &str, path: &[Seg]) -> Probed {
    PROBED.with(|n| n.set(n.get() + text.len()));
    let de = serde_norway::Deserializer::from_str(text);
    match (Probe { path }).deserialize(de) {
        Ok(()) => Probed::Absent,
        Err(e) if e.to_string().contains(PROBE) => e
            .location()
            .map_or(Probed::Absent, |l| Probed::Found((l.line(), l.column()))),
        Err(_) => Probed::Unparsed,
    }
}

thread_local! {
    static PROBED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The bytes of YAML this thread has parsed to locate values so far: locating stays linear in
/// the file however many problems it has (a test counts).
#[doc(hidden)]
pub fn probed_bytes() -> usize {
    PROBED.with(std::cell::Cell::get)
}

/// Where each top-level block of a text starts and ends, and where the items of each block
/// sequence start, found in one pass over its lines. A path is then located by parsing only the
/// item (or the block) it goes into: many problems in one large file cost one small parse each,
/// not a parse of the whole file each (a generated file's `steps` dwarf its `agents`).
///
/// A line that looks like an item or a top-level key may sit inside a quoted scalar or a flow
/// collection that spans lines (libyaml does not hold their lines to the indentation). Such a
/// construct leaves the slice it opens in unparseable alone, so the slices a value is located in
/// are trusted only once every slice before them has parsed alone (each checked once).
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// The whole text, cut before every top-level line (a key, `---`, anything not indented).
    sections: Vec<Section>,
}

/// A top-level line and the lines up to the next one.
#[derive(Debug, Clone)]
struct Section {
    /// The plain key of its first line, if it has one and no other section has it too.
    key: Option<String>,
    /// Byte range in the text.
    start: usize,
    end: usize,
    /// The 1-based line it starts on.
    line: usize,
    /// For a bare `key:` followed by a block sequence: each item's first byte and 1-based line.
    items: Vec<(usize, usize)>,
    /// Whether the section parses alone, and whether each of its items does.
    parses: OnceLock<bool>,
    items_parse: OnceLock<bool>,
}

impl Section {
    fn new(key: Option<String>, start: usize, line: usize) -> Self {
        Section {
            key,
            start,
            end: start,
            line,
            items: Vec::new(),
            parses: OnceLock::new(),
            items_parse: OnceLock::new(),
        }
    }

    /// Item `i` as a document of its own: `key:` and its lines.
    fn item(&self, text: &str, key: &str, i: usize) -> Option<(String, usize)> {
        let &(start, line) = self.items.get(i)?;
        let end = self.items.get(i + 1).map_or(self.end, |&(next, _)| next);
        let mut doc = String::with_capacity(key.len() + 2 + end - start);
        doc.push_str(key);
        doc.push_str(":\n");
        doc.push_str(&text[start..end]);
        Some((doc, line))
    }
}

impl Index {
    /// The index of `text`: one pass over its lines.
    pub fn new(text: &str) -> Self {
        let b = text.as_bytes();
        let mut sections = vec![Section::new(None, 0, 1)];
        // Whether the open section's header is a bare `key:` whose value may be a block
        // sequence, and the indentation of its dashes once met.
        let (mut bare, mut dash) = (false, None);
        let (mut at, mut line) = (0, 1);
        while at < b.len() {
            let end = super::find(b, at, b.len(), b'\n', b'\n');
            let l = &text[at..end];
            let first = l.as_bytes().first().copied();
            let top = first.is_some_and(|c| !c.is_ascii_whitespace() && c != b'#' && c != b'-');
            if top || l.starts_with("---") {
                let key = if top { top_key(l) } else { None };
                bare = key.is_some_and(|(_, bare)| bare);
                dash = None;
                if let Some(open) = sections.last_mut() {
                    open.end = at;
                }
                sections.push(Section::new(key.map(|(k, _)| k.to_string()), at, line));
            } else if bare && let Some(open) = sections.last_mut() {
                let rest = l.trim_start_matches(' ');
                let indent = l.len() - rest.len();
                let item = rest == "-" || rest == "-\r" || rest.starts_with("- ");
                let content = !rest.trim().is_empty() && !rest.starts_with('#');
                if item && dash.is_none_or(|d| d == indent) {
                    dash = Some(indent);
                    open.items.push((at, line));
                } else if content && dash.is_none() {
                    // The value is no block sequence (a mapping, a scalar on the next line).
                    bare = false;
                }
            }
            at = end + 1;
            line += 1;
        }
        if let Some(open) = sections.last_mut() {
            open.end = b.len();
        }
        // A key twice at the top level: the parser decides which one counts.
        for i in 0..sections.len() {
            let key = &sections[i].key;
            if key.is_some() && sections.iter().filter(|s| s.key == *key).count() > 1 {
                let key = key.clone();
                for s in sections.iter_mut().filter(|s| s.key == key) {
                    s.key = None;
                }
            }
        }
        Index { sections }
    }

    /// The position of the value at `path` in `text` (the text this index was built from): in
    /// the one item or block the path goes into when that is safe, else in the whole text.
    pub fn locate(&self, text: &str, path: &[Seg]) -> Option<(usize, usize)> {
        if let Some(Seg::Key(key)) = path.first()
            && let Some(k) = self
                .sections
                .iter()
                .position(|s| s.key.as_deref() == Some(key))
            && self.sections[..k].iter().all(|s| s.parses(text))
        {
            let s = &self.sections[k];
            if let Some(Seg::Index(i)) = path.get(1)
                && s.items_parse(text, key)
                && let Some((doc, line)) = s.item(text, key, *i)
            {
                let inner = [&path[..1], &[Seg::Index(0)], &path[2..]].concat();
                // The item's first line is the document's second.
                match probe(&doc, &inner) {
                    Probed::Found((l, c)) => return Some((l + line - 2, c)),
                    Probed::Absent => return None,
                    Probed::Unparsed => {}
                }
            }
            match probe(&text[s.start..s.end], path) {
                Probed::Found((l, c)) => return Some((l + s.line - 1, c)),
                Probed::Absent => return None,
                Probed::Unparsed => {}
            }
        }
        locate(text, path)
    }
}

impl Section {
    fn parses(&self, text: &str) -> bool {
        *self
            .parses
            .get_or_init(|| parses(&text[self.start..self.end]))
    }

    fn items_parse(&self, text: &str, key: &str) -> bool {
        *self.items_parse.get_or_init(|| {
            (0..self.items.len())
                .all(|i| self.item(text, key, i).is_some_and(|(doc, _)| parses(&doc)))
        })
    }
}

/// Whether `text` parses as YAML on its own.
fn parses(text: &str) -> bool {
    PROBED.with(|n| n.set(n.get() + text.len()));
    serde_norway::from_str::<IgnoredAny>(text).is_ok()
}

/// The plain key of a top-level line (`key:` or `key: value`) and whether it stands alone.
fn top_key(line: &str) -> Option<(&str, bool)> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let colon = line
        .char_indices()
        .find(|&(i, c)| c == ':' && line[i + 1..].chars().next().is_none_or(|n| n == ' '))?
        .0;
    let key = &line[..colon];
    if key.is_empty() || key.contains(['"', '\'', '{', '[', '&', '*', '!', '?', '#', '|', '>']) {
        return None;
    }
    Some((key, line[colon + 1..].trim().is_empty()))
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
            Seg::Key(k) => (k.as_ref(), 0),
            Seg::Duplicate(k) => (k.as_str(), 1),
            Seg::KeyName(k) => {
                while map.next_key_seed(KeyProbe(k))?.is_some() {
                    map.next_value::<IgnoredAny>()?;
                }
                return Ok(());
            }
            Seg::Index(_) | Seg::Entry(_) => return Ok(()),
        };
        while let Some(key) = map.next_key::<serde_norway::Value>()? {
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
