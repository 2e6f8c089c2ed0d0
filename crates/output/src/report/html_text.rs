//! What the HTML page writes inside its markup, for the timeline and the tables alike: text
//! escaped for content and attribute values, and each task state's colour.

use engine::record::TaskState;

/// Each state's colour (the legend's order).
pub(crate) const COLOURS: [(TaskState, &str); 8] = [
    (TaskState::Submitted, "#94a3b8"),
    (TaskState::Working, "#3b82f6"),
    (TaskState::InputRequired, "#f59e0b"),
    (TaskState::AuthRequired, "#a855f7"),
    (TaskState::Completed, "#16a34a"),
    (TaskState::Canceled, "#57534e"),
    (TaskState::Failed, "#dc2626"),
    (TaskState::Rejected, "#db2777"),
];

pub(crate) fn colour(state: TaskState) -> &'static str {
    COLOURS
        .iter()
        .find(|(s, _)| *s == state)
        .map_or("#000", |(_, c)| c)
}

/// Text for HTML (and SVG) content and attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}
