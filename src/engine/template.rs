//! Handler texts, and the templates (`templates: true`) among them: literal pieces and references
//! to the subjects of `when` (`{{input.text}}`, `{{result.NAME.data.PATH}}`, ...), parsed once at
//! load time and rendered each time the step runs.

use std::borrow::Cow;
use std::ops::Deref;

use serde_json::Value;

use crate::engine::conditions::{Subject, lookup};
use crate::engine::scenario::DataMap;

/// A handler text: plain (the common case, rendered as it is) or a template.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Text {
    /// Plain: the text itself. A template: its source, as written (for analyses that show it).
    written: String,
    /// Empty for plain text.
    parts: Box<[Part]>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Literal(String),
    Ref(Subject, Field),
}

/// What a reference takes of its subject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field {
    Text,
    /// A path into the data, as in a `when`'s `data:` tests.
    Data(Vec<String>),
}

impl Text {
    pub fn plain(text: String) -> Text {
        Text {
            written: text,
            parts: Box::new([]),
        }
    }

    /// A template of these parts; plain text when it references nothing.
    pub fn template(written: String, parts: Vec<Part>) -> Text {
        if parts.iter().all(|p| matches!(p, Part::Literal(_))) {
            let text = parts
                .into_iter()
                .map(|p| match p {
                    Part::Literal(s) => s,
                    Part::Ref(..) => String::new(),
                })
                .collect();
            return Text::plain(text);
        }
        Text {
            written,
            parts: parts.into_boxed_slice(),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.written
    }

    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// The text with each reference replaced by its value: a string as it is, any other value
    /// as compact JSON, a missing one (absent subject, no data, no such path) as nothing.
    /// `subject` gives a subject's text and data.
    pub fn render<'t>(
        &'t self,
        mut subject: impl FnMut(Subject) -> (Option<Cow<'t, str>>, Option<Cow<'t, DataMap>>),
    ) -> Cow<'t, str> {
        if self.parts.is_empty() {
            return Cow::Borrowed(&self.written);
        }
        let mut out = String::new();
        for part in self.parts.iter() {
            match part {
                Part::Literal(s) => out.push_str(s),
                Part::Ref(s, Field::Text) => {
                    if let Some(t) = subject(*s).0 {
                        out.push_str(&t);
                    }
                }
                Part::Ref(s, Field::Data(path)) => {
                    if let Some(d) = subject(*s).1 {
                        match lookup(&d, path) {
                            Some(Value::String(v)) => out.push_str(v),
                            Some(v) => out.push_str(&v.to_string()),
                            None => {}
                        }
                    }
                }
            }
        }
        Cow::Owned(out)
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.written
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::plain(s.to_string())
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::plain(s)
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.written == *other
    }
}
