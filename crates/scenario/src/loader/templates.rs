//! Handler texts of a file with `templates: true`: `{{REFERENCE}}` pieces parsed once here, each
//! reference checked against the subjects `when` takes (an unknown one is a load error at the
//! text); `{{{{` is a literal `{{`. Without the opt-in a text is plain, `{{` and all.

use crate::diagnostic::with_hint;
use crate::yaml::Seg;
use engine::scenario::*;
use engine::scenario::{DataTemplate, Field, Part};

use super::handlers::Scope;
use super::value_tests::parse_data_path;
use super::{Loader, child};

/// The references a template may make, for messages.
const FORMS: &str = "`input.text`, `input.data`, `input.data.PATH`, `reply.text`, `reply.data.PATH`, `result.NAME.text`, `result.NAME.data` or `result.NAME.data.PATH`";

impl Loader<'_> {
    /// A text of a handler step at `at`: a template when the agent's file opted in.
    pub(super) fn text(&mut self, at: Vec<Seg>, text: String, scope: &Scope) -> Text {
        if !self.templates {
            return Text::plain(text);
        }
        match parse(&text, scope) {
            Ok(parts) => Text::template(text, parts),
            Err(message) => {
                self.problem(at, message);
                Text::plain(text)
            }
        }
    }

    /// A handler's `delegate` / `fan_out` message or scripted reply: its text may be a template.
    pub(super) fn handler_message(
        &mut self,
        at: &[Seg],
        text: String,
        data: Option<DataMap>,
        scope: &Scope,
    ) -> MessageSpec {
        self.non_empty_text(child(at, "text"), &text);
        let data = data.filter(|d| !d.is_empty());
        let template = data
            .as_ref()
            .and_then(|d| self.data_template(&child(at, "data"), d, scope));
        MessageSpec::new(self.text(child(at, "text"), text, scope), data).with_template(template)
    }

    /// The templates among a handler's `data` strings, when the agent's file opted in: each
    /// string parsed like a handler text (its problems located at the string), `None` when no
    /// string references anything.
    pub(super) fn data_template(
        &mut self,
        at: &[Seg],
        data: &DataMap,
        scope: &Scope,
    ) -> Option<DataTemplate> {
        if !self.templates {
            return None;
        }
        let mut slots = Vec::new();
        let mut stack: Vec<(Vec<String>, &serde_json::Value)> = data
            .iter()
            .rev()
            .map(|(k, v)| (vec![k.clone()], v))
            .collect();
        while let Some((path, value)) = stack.pop() {
            match value {
                serde_json::Value::String(s) if s.contains("{{") => {
                    let mut here = at.to_vec();
                    here.extend(path.iter().map(|p| Seg::from(p.as_str())));
                    match parse(s, scope) {
                        Ok(parts) => {
                            let text = Text::template(s.clone(), parts);
                            if !text.parts().is_empty() {
                                slots.push((path, text));
                            }
                        }
                        Err(message) => self.problem(here, message),
                    }
                }
                serde_json::Value::Object(o) => {
                    for (k, v) in o.iter().rev() {
                        let mut p = path.clone();
                        p.push(k.clone());
                        stack.push((p, v));
                    }
                }
                serde_json::Value::Array(a) => {
                    for (i, v) in a.iter().enumerate().rev() {
                        let mut p = path.clone();
                        p.push(i.to_string());
                        stack.push((p, v));
                    }
                }
                _ => {}
            }
        }
        (!slots.is_empty()).then(|| DataTemplate {
            slots: slots.into_boxed_slice(),
        })
    }
}

/// The pieces of a template, or the message of its first problem.
pub fn parse(text: &str, scope: &Scope) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        literal.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        if let Some(tail) = after.strip_prefix("{{") {
            literal.push_str("{{");
            rest = tail;
            continue;
        }
        // A `{{` before the closing `}}` means the first one was never closed.
        let close = after.find("}}").filter(|&c| !after[..c].contains("{{"));
        let Some(close) = close else {
            return Err(
                "a template reference opened with `{{` is not closed with `}}` (write `{{{{` for a literal `{{`)"
                    .into(),
            );
        };
        let reference = after[..close].trim();
        let (subject, field) = reference_of(reference, scope)?;
        if !literal.is_empty() {
            parts.push(Part::Literal(std::mem::take(&mut literal)));
        }
        parts.push(Part::Ref(subject, field));
        rest = &after[close + 2..];
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        parts.push(Part::Literal(literal));
    }
    Ok(parts)
}

fn reference_of(reference: &str, scope: &Scope) -> Result<(Subject, Field), String> {
    let unknown = || {
        with_hint(
            format!(
                "unknown template reference `{{{{{reference}}}}}`: a template references {FORMS} (write `{{{{{{{{` for a literal `{{{{`)"
            ),
            reference,
            ["input.text", "reply.text"],
        )
    };
    let (subject, rest) = if let Some(rest) = reference.strip_prefix("input.") {
        (Subject::Input, rest)
    } else if let Some(rest) = reference.strip_prefix("reply.") {
        (Subject::Reply, rest)
    } else if let Some(rest) = reference.strip_prefix("result.") {
        // The longest name defined so far that the field follows (a name may hold a dot).
        let named = scope
            .results
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                rest.strip_prefix(r.name.as_str())
                    .is_some_and(|f| f == ".text" || f == ".data" || f.starts_with(".data."))
            })
            .max_by_key(|(_, r)| r.name.len());
        let Some((ix, r)) = named else {
            let name = rest.split('.').next().unwrap_or(rest);
            return Err(with_hint(
                format!(
                    "unknown result `{name}` in template reference `{{{{{reference}}}}}`: no earlier `delegate` or `fan_out` of this handler has `as: {name}` (a reference is `result.NAME.text` or `result.NAME.data.PATH`)"
                ),
                name,
                scope.results.iter().map(|r| r.name.as_str()),
            ));
        };
        (Subject::Result(ix), &rest[r.name.len() + 1..])
    } else {
        return Err(unknown());
    };
    let field = if rest == "text" {
        Field::Text
    } else if rest == "data" {
        // The whole data (in a data template, the object itself).
        Field::Data(Vec::new())
    } else if let Some(path) = rest.strip_prefix("data.") {
        Field::Data(
            parse_data_path(path)
                .map_err(|e| format!("template reference `{{{{{reference}}}}}`: {e}"))?,
        )
    } else {
        return Err(unknown());
    };
    Ok((subject, field))
}
