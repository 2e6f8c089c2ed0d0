//! The serde `Deserializer` both streaming readers share: it reads a stream of [`Ev`]ents (from
//! `saphyr-parser` in [`super::fast`], from the byte scanner in [`super::scan`]) straight into the
//! typed file model, one event at a time, with no buffer of the whole document.
//!
//! It only ever says "here is the value" or "not mine" ([`GiveUp`]): it gives up on any error of
//! the file model, duplicate or very long keys, deep nesting, and plain scalars that YAML could
//! resolve to anything but a string, a decimal integer, `true`, `false` or null.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, VariantAccess,
    Visitor,
};
use smallvec::SmallVec;

/// serde_norway stops at 128 levels; give up well before.
const MAX_DEPTH: usize = 64;
/// libyaml refuses implicit keys longer than 1024 characters; give up well before.
pub(super) const MAX_KEY: usize = 512;

/// "Not mine": the caller reads the text another way.
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

pub(super) type R<T> = Result<T, GiveUp>;

/// One event of a document's node tree (the document's own start and end are the source's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Ev<'t> {
    /// A scalar; `true` when plain (unquoted), whose text YAML resolves by its look.
    Scalar(Cow<'t, str>, bool),
    SeqStart,
    SeqEnd,
    MapStart,
    MapEnd,
    /// The end of the document.
    End,
}

/// Where events come from: anchors, aliases, tags and the like are the source's to refuse.
pub(super) trait Source<'t> {
    fn pull(&mut self) -> R<Ev<'t>>;
}

/// The document `source` streams, read as `T`: `None` when it is not ours to read.
pub(super) fn read<'t, T: DeserializeOwned, S: Source<'t>>(source: S) -> Option<T> {
    let mut de = Events {
        source,
        peeked: None,
        depth: 0,
    };
    let value = T::deserialize(&mut de).ok()?;
    matches!(de.next().ok()?, Ev::End).then_some(value)
}

struct Events<'t, S> {
    source: S,
    peeked: Option<Ev<'t>>,
    depth: usize,
}

impl<'t, S: Source<'t>> Events<'t, S> {
    fn next(&mut self) -> R<Ev<'t>> {
        match self.peeked.take() {
            Some(e) => Ok(e),
            None => self.source.pull(),
        }
    }

    fn peek(&mut self) -> R<&Ev<'t>> {
        if self.peeked.is_none() {
            self.peeked = Some(self.source.pull()?);
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
                Ev::SeqStart | Ev::MapStart => open += 1,
                Ev::SeqEnd | Ev::MapEnd => open = open.checked_sub(1).ok_or(GiveUp)?,
                Ev::Scalar(..) => {}
                Ev::End => return Err(GiveUp),
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

impl<'de, Src: Source<'de>> de::Deserializer<'de> for &mut Events<'de, Src> {
    type Error = GiveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.next()? {
            Ev::Scalar(v, true) => {
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
            Ev::Scalar(v, _) => str_visit(v, visitor),
            Ev::SeqStart => self.seq(visitor),
            Ev::MapStart => self.map(visitor),
            _ => Err(GiveUp),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.next()? {
            Ev::Scalar(v, _) => str_visit(v, visitor),
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
            Ev::Scalar(v, true) if is_null(v) => {
                self.next()?;
                visitor.visit_none()
            }
            Ev::Scalar(v, true) if v.eq_ignore_ascii_case("null") => Err(GiveUp),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> R<V::Value> {
        match self.next()? {
            Ev::Scalar(v, true) if is_null(&v) => visitor.visit_unit(),
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
            Ev::SeqStart => self.seq(visitor),
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
            Ev::MapStart => self.map(visitor),
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
            Ev::Scalar(v, _) => visitor.visit_enum(UnitVariant(v)),
            Ev::MapStart => {
                self.enter()?;
                let value = visitor.visit_enum(&mut *self)?;
                self.depth -= 1;
                match self.next()? {
                    Ev::MapEnd => Ok(value),
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

impl<'de, Src: Source<'de>> Events<'de, Src> {
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
            keys: Keys::default(),
        };
        let value = visitor.visit_map(&mut access)?;
        if !access.done {
            return Err(GiveUp);
        }
        self.depth -= 1;
        Ok(value)
    }
}

struct Items<'a, 'de, Src> {
    de: &'a mut Events<'de, Src>,
    done: bool,
}

impl<'de, Src: Source<'de>> SeqAccess<'de> for Items<'_, 'de, Src> {
    type Error = GiveUp;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> R<Option<S::Value>> {
        if self.done {
            return Ok(None);
        }
        if matches!(self.de.peek()?, Ev::SeqEnd) {
            self.de.next()?;
            self.done = true;
            return Ok(None);
        }
        seed.deserialize(&mut *self.de).map(Some)
    }
}

struct Entries<'a, 'de, Src> {
    de: &'a mut Events<'de, Src>,
    done: bool,
    /// The keys read so far: a repeated one is serde_norway's to report (or not).
    keys: Keys<'de>,
}

/// A mapping's keys: inline while few (a mapping of a scenario file has a handful, and one
/// allocation a mapping was a tenth of the parse), hashed beyond (so a mapping of many keys costs
/// no quadratic time).
#[derive(Default)]
struct Keys<'de> {
    few: SmallVec<[Cow<'de, str>; 8]>,
    many: HashSet<Cow<'de, str>>,
}

impl<'de> Keys<'de> {
    /// Whether `key` is new (then it is kept).
    fn insert(&mut self, key: Cow<'de, str>) -> bool {
        if self.many.is_empty() {
            if self.few.contains(&key) {
                return false;
            }
            if self.few.len() < 16 {
                self.few.push(key);
                return true;
            }
            self.many.extend(self.few.drain(..));
        }
        self.many.insert(key)
    }
}

impl<'de, Src: Source<'de>> MapAccess<'de> for Entries<'_, 'de, Src> {
    type Error = GiveUp;

    fn next_key_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> R<Option<S::Value>> {
        if self.done {
            return Ok(None);
        }
        match self.de.peek()? {
            Ev::MapEnd => {
                self.de.next()?;
                self.done = true;
                return Ok(None);
            }
            Ev::Scalar(k, _) => {
                if k.len() > MAX_KEY || !self.keys.insert(k.clone()) {
                    return Err(GiveUp);
                }
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
impl<'de, Src: Source<'de>> EnumAccess<'de> for &mut Events<'de, Src> {
    type Error = GiveUp;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> R<(S::Value, Self)> {
        if !matches!(self.peek()?, Ev::Scalar(..)) {
            return Err(GiveUp);
        }
        let variant = seed.deserialize(&mut *self)?;
        Ok((variant, self))
    }
}

impl<'de, Src: Source<'de>> VariantAccess<'de> for &mut Events<'de, Src> {
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
