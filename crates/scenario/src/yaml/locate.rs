//! Positions of values (and keys) by path: the document is walked again to the offending one.

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::Seg;

/// The position of the value at `path` in `text`, if the document has one there.
pub fn locate(text: &str, path: &[Seg]) -> Option<(usize, usize)> {
    let de = serde_norway::Deserializer::from_str(text);
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
                        .push((key.to_string(), top_level_block(self.text, key)));
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
