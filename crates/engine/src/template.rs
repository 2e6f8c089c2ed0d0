//! Handler texts, and the templates (`templates: true`) among them: literal pieces and references
//! to the subjects of `when` (`{{input.text}}`, `{{result.NAME.data.PATH}}`, ...), parsed once at
//! load time and rendered each time the step runs.

use std::borrow::Cow;
use std::ops::Deref;

use serde_json::Value;

use crate::conditions::{Subject, lookup};
use crate::data::DataMap;

/// A handler text: plain (the common case, rendered as it is) or a template. Two words: every
/// `send` and `reply` step of a scenario holds one.
#[derive(Clone, PartialEq, Eq)]
pub struct Text(Repr);

#[derive(Clone, PartialEq, Eq)]
enum Repr {
    /// The text itself.
    Plain(Box<str>),
    Template(Box<Template>),
}

#[derive(Clone, PartialEq, Eq)]
struct Template {
    /// Its source, as written (for analyses that show it).
    written: Box<str>,
    /// Never empty.
    parts: Box<[Part]>,
}

impl Default for Text {
    fn default() -> Self {
        Text(Repr::Plain(Box::default()))
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Text")
            .field("written", &self.as_str())
            .field("parts", &self.parts())
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Literal(String),
    Ref(Subject, Field),
}

/// The templates among a `data` mapping's strings (`templates: true`): where each sits (object
/// keys and list indexes from the mapping's root) and its pieces. A string that is exactly one
/// reference takes the referenced value with its type; any other is rendered as a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataTemplate {
    pub slots: Box<[(Vec<String>, Text)]>,
}

impl DataTemplate {
    /// The mapping as written with each template filled in, or the first reference that has no
    /// value (an absent subject, no data, no such path), as written.
    pub fn render<'t>(
        &'t self,
        written: &DataMap,
        mut subject: impl FnMut(Subject) -> (Option<Cow<'t, str>>, Option<Cow<'t, DataMap>>),
    ) -> Result<DataMap, String> {
        let mut out = written.clone();
        for (path, text) in self.slots.iter() {
            let value = match text.parts() {
                [Part::Ref(s, field)] => match resolve(&mut subject, *s, field) {
                    Some(v) => v,
                    None => return Err(text.as_str().to_string()),
                },
                parts => {
                    let mut rendered = String::new();
                    for part in parts {
                        match part {
                            Part::Literal(l) => rendered.push_str(l),
                            Part::Ref(s, field) => match resolve(&mut subject, *s, field) {
                                Some(Value::String(v)) => rendered.push_str(&v),
                                Some(v) => rendered.push_str(&v.to_string()),
                                None => return Err(text.as_str().to_string()),
                            },
                        }
                    }
                    Value::String(rendered)
                }
            };
            if let Some(slot) = slot_mut(&mut out, path) {
                *slot = value;
            }
        }
        Ok(out)
    }
}

/// The value a reference takes: a text as a string, a data path's value (the whole data for an
/// empty path); `None` when there is none.
fn resolve<'t>(
    subject: &mut impl FnMut(Subject) -> (Option<Cow<'t, str>>, Option<Cow<'t, DataMap>>),
    s: Subject,
    field: &Field,
) -> Option<Value> {
    let (text, data) = subject(s);
    match field {
        Field::Text => text.map(|t| Value::String(t.into_owned())),
        Field::Data(path) if path.is_empty() => data.map(|d| Value::Object(d.into_owned())),
        Field::Data(path) => data.and_then(|d| lookup(&d, path).cloned()),
    }
}

/// The value at `path` inside `map`.
fn slot_mut<'m>(map: &'m mut DataMap, path: &[String]) -> Option<&'m mut Value> {
    let (first, rest) = path.split_first()?;
    let mut at = map.get_mut(first)?;
    for key in rest {
        at = match at {
            Value::Object(o) => o.get_mut(key)?,
            Value::Array(a) => a.get_mut(key.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(at)
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
        Text(Repr::Plain(text.into_boxed_str()))
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
        Text(Repr::Template(Box::new(Template {
            written: written.into_boxed_str(),
            parts: parts.into_boxed_slice(),
        })))
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Plain(text) => text,
            Repr::Template(t) => &t.written,
        }
    }

    pub fn parts(&self) -> &[Part] {
        match &self.0 {
            Repr::Plain(_) => &[],
            Repr::Template(t) => &t.parts,
        }
    }

    /// The text with each reference replaced by its value: a string as it is, any other value
    /// as compact JSON, a missing one (absent subject, no data, no such path) as nothing.
    /// `subject` gives a subject's text and data.
    pub fn render<'t>(
        &'t self,
        mut subject: impl FnMut(Subject) -> (Option<Cow<'t, str>>, Option<Cow<'t, DataMap>>),
    ) -> Cow<'t, str> {
        let parts = match &self.0 {
            Repr::Plain(text) => return Cow::Borrowed(text),
            Repr::Template(t) => &t.parts,
        };
        let mut out = String::new();
        for part in parts.iter() {
            match part {
                Part::Literal(s) => out.push_str(s),
                Part::Ref(s, Field::Text) => {
                    if let Some(t) = subject(*s).0 {
                        out.push_str(&t);
                    }
                }
                Part::Ref(s, Field::Data(path)) => {
                    if let Some(d) = subject(*s).1 {
                        if path.is_empty() {
                            // The whole data, as compact JSON.
                            out.push_str(&Value::Object(d.into_owned()).to_string());
                            continue;
                        }
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
        self.as_str()
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
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_two_words_and_renders_as_it_is() {
        assert_eq!(
            std::mem::size_of::<Text>(),
            2 * std::mem::size_of::<usize>()
        );
        for s in ["", "Request 1: please screen documents", "é ☃ {{not a ref"] {
            let t = Text::from(s);
            assert_eq!(t.as_str(), s);
            assert_eq!(&*t, s);
            assert!(t.parts().is_empty());
            assert!(matches!(t.render(|_| (None, None)), Cow::Borrowed(r) if r == s));
            assert_eq!(t, Text::plain(s.to_string()));
            assert!(t == s);
        }
        assert_eq!(Text::default(), Text::from(""));
    }

    #[test]
    fn a_template_keeps_its_source_and_parts() {
        let parts = vec![
            Part::Literal("hello ".into()),
            Part::Ref(Subject::Input, Field::Text),
        ];
        let t = Text::template("hello {{input.text}}".into(), parts.clone());
        assert_eq!(t.as_str(), "hello {{input.text}}");
        assert_eq!(t.parts(), &parts[..]);
        let rendered = t.render(|_| (Some(Cow::Borrowed("you")), None));
        assert_eq!(rendered, "hello you");
        assert_ne!(t, Text::from("hello {{input.text}}"));
        assert_eq!(t.clone(), t);
        // Only literals: plain text.
        let lit = Text::template("a{{x}}".into(), vec![Part::Literal("ab".into())]);
        assert_eq!(lit, Text::from("ab"));
        assert!(lit.parts().is_empty());
    }

    #[test]
    fn debug_reads_as_before() {
        assert_eq!(
            format!("{:?}", Text::from("x\"")),
            r#"Text { written: "x\"", parts: [] }"#
        );
    }
}
