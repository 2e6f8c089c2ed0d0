//! The second path of [`super::parse`]: `saphyr-parser`'s events read straight into the typed file
//! model by [`super::de`], one event at a time, with no buffer of the whole document (serde_norway
//! reads every event of a document into memory before deserialising: on a 100,000-step file that
//! buffer is three quarters of the peak memory and half the load time).
//!
//! It only ever says "here is the value" or "not mine": it reads a document exactly as
//! serde_norway would or gives up (`None`), and then serde_norway reads the file as before, so
//! every error keeps its text and position. Besides what [`super::de`] refuses, it gives up on any
//! error of the parser, anchors, aliases and tags, directives, a BOM, tabs and control characters.

use saphyr_parser::{Event, Parser, ScalarStyle, StrInput};
use serde::de::DeserializeOwned;

use super::de::{self, Ev, GiveUp, R, Source};

/// `text` read as `T`, or `None` when serde_norway must read it.
pub(super) fn parse<T: DeserializeOwned>(text: &str) -> Option<T> {
    if !plain_text(text) {
        return None;
    }
    let mut source = Saphyr {
        parser: Parser::new(StrInput::new(text)),
    };
    if !matches!(source.raw().ok()?, Event::StreamStart)
        || !matches!(source.raw().ok()?, Event::DocumentStart(_))
    {
        return None;
    }
    de::read(source)
}

/// No BOM, directive, tab or character that YAML forbids or libyaml treats apart (C1 controls
/// and NEL, the line and paragraph separators libyaml breaks lines at, non-characters).
pub(super) fn plain_text(text: &str) -> bool {
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
                c < 0x80
                    || c >= 0xa0
                        && c != 0xfeff
                        && c != 0xfffe
                        && c != 0xffff
                        && c != 0x2028
                        && c != 0x2029
            }))
}

struct Saphyr<'t> {
    parser: Parser<'t, StrInput<'t>>,
}

impl<'t> Saphyr<'t> {
    fn raw(&mut self) -> R<Event<'t>> {
        let (event, _) = self.parser.next().ok_or(GiveUp)?.map_err(|_| GiveUp)?;
        Ok(event)
    }
}

impl<'t> Source<'t> for Saphyr<'t> {
    fn pull(&mut self) -> R<Ev<'t>> {
        Ok(match self.raw()? {
            Event::Scalar(_, _, anchor, tag)
            | Event::SequenceStart(anchor, tag)
            | Event::MappingStart(anchor, tag)
                if anchor != 0 || tag.is_some() =>
            {
                return Err(GiveUp);
            }
            Event::Scalar(v, style, ..) => Ev::Scalar(v, style == ScalarStyle::Plain),
            Event::SequenceStart(..) => Ev::SeqStart,
            Event::SequenceEnd => Ev::SeqEnd,
            Event::MappingStart(..) => Ev::MapStart,
            Event::MappingEnd => Ev::MapEnd,
            Event::DocumentEnd if matches!(self.raw()?, Event::StreamEnd) => Ev::End,
            _ => return Err(GiveUp),
        })
    }
}
