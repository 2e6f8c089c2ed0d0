//! The fast path of [`super::parse`]: `saphyr-parser`'s events read straight into the typed file
//! model, one event at a time, with no buffer of the whole document (serde_norway reads every
//! event of a document into memory before deserialising: on a 100,000-step file that buffer is
//! three quarters of the peak memory and half the load time).
//!
//! It only ever says "here is the value" or "not mine": it reads a document exactly as
//! serde_norway would or gives up (`None`), and then serde_norway reads the file as before, so
//! every error keeps its text and position. It gives up on whatever it does not read identically:
//! any error of the parser or of the file model, anchors, aliases and tags, directives, a BOM,
//! tabs and control characters, duplicate or very long keys, deep nesting, and plain scalars that
//! YAML could resolve to anything but a string, a decimal integer, `true`, `false` or null.

use std::borrow::Cow;
use std::fmt;

use saphyr_parser::{Event, Parser, ScalarStyle, StrInput};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, VariantAccess,
    Visitor,
};

/// serde_norway stops at 128 levels; give up well before.
const MAX_DEPTH: usize = 64;
/// libyaml refuses implicit keys longer than 1024 characters; give up well before.
const MAX_KEY: usize = 512;

/// "Not mine": the caller reads the text with serde_norway instead.
#[derive(Debug)]
pub(super) struct GiveUp;

impl fmt::Display for GiveUp {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("not read by the fast path")
    }
}

impl std::error::Error for GiveUp {}

impl de::Error for GiveUp {
    fn custom<T: fmt::Display>(_: T) -> Self {
        GiveUp
    }
}

type R<T> = Result<T, GiveUp>;

/// `text` read as `T`, or `None` when serde_norway must read it.
pub(super) fn parse<T: DeserializeOwned>(text: &str) -> Option<T> {
    if !plain_text(text) {
        return None;
    }
    let mut de = Events {
        parser: Parser::new(StrInput::new(text)),
        peeked: None,
        depth: 0,
    };
    if !matches!(de.next().ok()?, Event::StreamStart) {
        return None;
    }
    if !matches!(de.next().ok()?, Event::DocumentStart(_)) {
        return None;
    }
    let value = T::deserialize(&mut de).ok()?;
    if !matches!(de.next().ok()?, Event::DocumentEnd)
        || !matches!(de.next().ok()?, Event::StreamEnd)
    {
        return None;
    }
    Some(value)
}

/// No BOM, directive, tab or character that YAML forbids or libyaml treats apart.
fn plain_text(text: &str) -> bool {
    if text.starts_with('%') || text.contains("\n%") {
        return false;
    }
    let ascii_ok = text
        .bytes()
        .all(|b| b == b'\n' || b == b'\r' || (0x20..0x7f).contains(&b) || b >= 0x80);
    ascii_ok
        && (text.is_ascii()
            || text.chars().all(|c| {
                let c = c as u32;
                c < 0x80 || c >= 0xa0 && c != 0xfeff && c != 0xfffe && c != 0xffff
            }))
}

struct Events<'t> {
    parser: Parser<'t, StrInput<'t>>,
    peeked: Option<Event<'t>>,
    depth: usize,
}

impl<'t> Events<'t> {
    fn pull(&mut self) -> R<Event<'t>> {
        let (event, _) = self.parser.next().ok_or(GiveUp)?.map_err(|_| GiveUp)?;
        match &event {
            Event::Alias(_) | Event::Nothing => Err(GiveUp),
            Event::Scalar(_, _, anchor, tag)
            | Event::SequenceStart(anchor, tag)
            | Event::MappingStart(anchor, tag)
                if *anchor != 0 || tag.is_some() =>
            {
                Err(GiveUp)
            }
            _ => Ok(event),
        }
    }

    fn next(&mut self) -> R<Event<'t>> {
        match self.peeked.take() {
            Some(e) => Ok(e),
            None => self.pull(),
        }
    }

    fn peek(&mut self) -> R<&Event<'t>> {
        if self.peeked.is_none() {
            self.peeked = Some(self.pull()?);
        }
        self.peeked.as_ref().ok_or(GiveUp)
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(GiveUp);
        }
        Ok(())
    }

    /// Skips one node, however deep, without recursion.
    fn skip(&mut self) -> R<()> {
        let mut open = 0usize;
        loop {
            match self.next()? {
                Event::SequenceStart(..) | Event::MappingStart(..) => open += 1,
                Event::SequenceEnd | Event::MappingEnd => {
                    open = open.checked_sub(1).ok_or(GiveUp)?
                }
                Event::Scalar(..) => {}
                _ => return Err(GiveUp),
            }
            if open == 0 {
                return Ok(());
            }
        }
    }
}

fn is_null(v: &str) -> bool {
    v.is_empty() || v == "~" || v == "null"
}

/// A plain scalar that might resolve to something other than a string, which we do not decide.
fn ambiguous(v: &str) -> bool {
    let Some(&first) = v.as_bytes().first() else {
        return true;
    };
    if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'.') {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "null"
            | "true"
            | "false"
            | "inf"
            | "infinity"
            | "nan"
            | "y"
            | "n"
            | "yes"
            | "no"
            | "on"
            | "off"
    )
}

fn str_visit<'de, V: Visitor<'de>>(v: Cow<'de, str>, visitor: V) -> R<V::Value> {
    match v {
        Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
        Cow::Owned(s) => visitor.visit_string(s),
    }
}

fn decimal(v: &str) -> Option<&str> {
    let digits = v.strip_prefix('-').unwrap_or(v);
    let ok = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" && digits.len() == v.len() || !digits.starts_with('0'));
    ok.then_some(digits)
}

impl<'de> de::Deserializer<'de> for &mut Events<'de> {
    type Error = GiveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.next()? {
            Event::Scalar(v, ScalarStyle::Plain, ..) => {
                if is_null(&v) {
                    visitor.visit_unit()
                } else if v == "true" || v == "false" {
                    visitor.visit_bool(v == "true")
                } else if decimal(&v).is_some() {
                    if v.starts_with('-') {
                        visitor.visit_i64(v.parse().map_err(|_| GiveUp)?)
                    } else {
                        visitor.visit_u64(v.parse().map_err(|_| GiveUp)?)
                    }
                } else if ambiguous(&v) {
                    Err(GiveUp)
                } else {
                    str_visit(v, visitor)
                }
            }
            Event::Scalar(v, ..) => str_visit(v, visitor),
            Event::SequenceStart(..) => self.seq(visitor),
            Event::MappingStart(..) => self.map(visitor),
            _ => Err(GiveUp),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.next()? {
            Event::Scalar(v, ..) => str_visit(v, visitor),
            _ => Err(GiveUp),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.peek()? {
            Event::Scalar(v, ScalarStyle::Plain, ..) if is_null(v) => {
                self.next()?;
                visitor.visit_none()
            }
            Event::Scalar(v, ScalarStyle::Plain, ..) if v.eq_ignore_ascii_case("null") => {
                Err(GiveUp)
            }
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.next()? {
            Event::Scalar(v, ScalarStyle::Plain, ..) if is_null(&v) => visitor.visit_unit(),
            _ => Err(GiveUp),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> R<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> R<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.next()? {
            Event::SequenceStart(..) => self.seq(visitor),
            _ => Err(GiveUp),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> R<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> R<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.next()? {
            Event::MappingStart(..) => self.map(visitor),
            _ => Err(GiveUp),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> R<V::Value> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> R<V::Value> {
        match self.next()? {
            Event::Scalar(v, ..) => visitor.visit_enum(UnitVariant(v)),
            Event::MappingStart(..) => {
                self.enter()?;
                let value = visitor.visit_enum(&mut *self)?;
                self.depth -= 1;
                match self.next()? {
                    Event::MappingEnd => Ok(value),
                    _ => Err(GiveUp),
                }
            }
            _ => Err(GiveUp),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        self.skip()?;
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf
    }
}

impl<'de> Events<'de> {
    fn seq<V: Visitor<'de>>(&mut self, visitor: V) -> R<V::Value> {
        self.enter()?;
        let mut access = Items {
            de: self,
            done: false,
        };
        let value = visitor.visit_seq(&mut access)?;
        if !access.done {
            return Err(GiveUp);
        }
        self.depth -= 1;
        Ok(value)
    }

    fn map<V: Visitor<'de>>(&mut self, visitor: V) -> R<V::Value> {
        self.enter()?;
        let mut access = Entries {
            de: self,
            done: false,
            keys: Vec::new(),
        };
        let value = visitor.visit_map(&mut access)?;
        if !access.done {
            return Err(GiveUp);
        }
        self.depth -= 1;
        Ok(value)
    }
}

struct Items<'a, 'de> {
    de: &'a mut Events<'de>,
    done: bool,
}

impl<'de> SeqAccess<'de> for Items<'_, 'de> {
    type Error = GiveUp;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> R<Option<S::Value>> {
        if self.done {
            return Ok(None);
        }
        if matches!(self.de.peek()?, Event::SequenceEnd) {
            self.de.next()?;
            self.done = true;
            return Ok(None);
        }
        seed.deserialize(&mut *self.de).map(Some)
    }
}

struct Entries<'a, 'de> {
    de: &'a mut Events<'de>,
    done: bool,
    /// The keys read so far: a repeated one is serde_norway's to report (or not).
    keys: Vec<Cow<'de, str>>,
}

impl<'de> MapAccess<'de> for Entries<'_, 'de> {
    type Error = GiveUp;

    fn next_key_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> R<Option<S::Value>> {
        if self.done {
            return Ok(None);
        }
        match self.de.peek()? {
            Event::MappingEnd => {
                self.de.next()?;
                self.done = true;
                return Ok(None);
            }
            Event::Scalar(k, ..) => {
                if k.len() > MAX_KEY || self.keys.iter().any(|seen| seen == k) {
                    return Err(GiveUp);
                }
                self.keys.push(k.clone());
            }
            _ => return Err(GiveUp),
        }
        seed.deserialize(&mut *self.de).map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> R<S::Value> {
        seed.deserialize(&mut *self.de)
    }
}

/// `variant` alone: a unit variant.
struct UnitVariant<'de>(Cow<'de, str>);

impl<'de> EnumAccess<'de> for UnitVariant<'de> {
    type Error = GiveUp;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> R<(S::Value, Self)> {
        let name = de::value::StrDeserializer::<GiveUp>::new(&self.0);
        Ok((seed.deserialize(name)?, self))
    }
}

impl<'de> VariantAccess<'de> for UnitVariant<'de> {
    type Error = GiveUp;

    fn unit_variant(self) -> R<()> {
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, _: S) -> R<S::Value> {
        Err(GiveUp)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> R<V::Value> {
        Err(GiveUp)
    }

    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], _: V) -> R<V::Value> {
        Err(GiveUp)
    }
}

/// `{variant: value}`: the mapping's one key names the variant.
impl<'de> EnumAccess<'de> for &mut Events<'de> {
    type Error = GiveUp;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> R<(S::Value, Self)> {
        if !matches!(self.peek()?, Event::Scalar(..)) {
            return Err(GiveUp);
        }
        let variant = seed.deserialize(&mut *self)?;
        Ok((variant, self))
    }
}

impl<'de> VariantAccess<'de> for &mut Events<'de> {
    type Error = GiveUp;

    fn unit_variant(self) -> R<()> {
        Err(GiveUp)
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> R<S::Value> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> R<V::Value> {
        de::Deserializer::deserialize_seq(self, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        visitor: V,
    ) -> R<V::Value> {
        de::Deserializer::deserialize_map(self, visitor)
    }
}
