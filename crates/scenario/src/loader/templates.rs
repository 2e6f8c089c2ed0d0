//! Handler texts of a file with `templates: true`: `{{REFERENCE}}` pieces parsed once here, each
//! reference checked against the subjects `when` takes (an unknown one is a load error at the
//! text); `{{{{` is a literal `{{`. Without the opt-in a text is plain, `{{` and all.

use crate::diagnostic::with_hint;
use crate::yaml::Seg;
use engine::conditions::Subject;
use engine::scenario::*;
use engine::template::{Field, Part};

use super::conditions::parse_data_path;
use super::handlers::Scope;
use super::{Loader, child};

/// The references a template may make, for messages.
const FORMS: &str = "`input.text`, `input.data.PATH`, `reply.text`, `reply.data.PATH`, `result.NAME.text` or `result.NAME.data.PATH`";

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
        MessageSpec {
            text: self.text(child(at, "text"), text, scope),
            data: data.filter(|d| !d.is_empty()).map(Box::new),
        }
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
                    .is_some_and(|f| f == ".text" || f.starts_with(".data."))
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
