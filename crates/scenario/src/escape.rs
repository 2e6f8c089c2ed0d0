//! Text for a terminal: every human-readable output (`check`'s diagnostics, error messages, the
//! `run` table, `audit`, `explain`, `coverage`, `test`) passes the names and texts it prints
//! through [`text`]. A name comes from a file or from recorded traffic, and a control character in
//! it would reach the terminal raw: ESC starts colour and cursor sequences (OSC can set the
//! window title or a link), CR returns to the line's start, and a newline (or U+2028/U+2029, which
//! some terminals and editors break at) would start a line of its own, such as a forged
//! `fake.yaml:1:1: error:`. Each is shown as an escape instead (`\n`, `\u{1b}`), as are the
//! bidirectional overrides that make text read other than it is stored.
//!
//! Machine-readable outputs (JSON, JUnit XML, Mermaid, HTML) escape in their own syntax.

use std::borrow::Cow;
use std::fmt;

/// Whether `c` is shown escaped.
fn escaped(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `s` with its control characters escaped (borrowed when it has none).
pub fn text(s: &str) -> Cow<'_, str> {
    escape(s, false)
}

/// [`text`] for a table cell, whose lines stay lines: a multi-line text (an artifact's joined
/// results) is drawn inside the cell's borders, where no line can pass for another.
pub fn cell(s: &str) -> Cow<'_, str> {
    escape(s, true)
}

/// [`text`] for a message whose lines are its own (a message that quotes an agent's log, each
/// quoted line indented): every line escaped, the newlines between them kept.
pub fn lines(s: &str) -> String {
    s.split('\n')
        .map(|l| text(l).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

fn escape(s: &str, keep_lines: bool) -> Cow<'_, str> {
    let shown = |c: char| escaped(c) && !(keep_lines && c == '\n');
    if !s.chars().any(shown) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            c if !shown(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// [`text`] as a `Display`, for `format!` arguments: `format!("agent {}", Escaped(name))`.
pub struct Escaped<'a>(pub &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&text(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_escaped_and_nothing_else_changes() {
        for (s, want) in [
            ("agent-7 é 北 ✓ \\", "agent-7 é 北 ✓ \\"),
            ("a\nfake.yaml:1:1: error: x", "a\\nfake.yaml:1:1: error: x"),
            (
                "\u{1b}[31mred\u{1b}]0;title\u{7}",
                "\\u{1b}[31mred\\u{1b}]0;title\\u{7}",
            ),
            ("cr\rtab\t", "cr\\rtab\\t"),
            ("ls\u{2028}ps\u{2029}", "ls\\u{2028}ps\\u{2029}"),
            ("c1\u{9b}del\u{7f}", "c1\\u{9b}del\\u{7f}"),
            ("rlo\u{202e}fdp.exe", "rlo\\u{202e}fdp.exe"),
        ] {
            assert_eq!(text(s), want, "{s:?}");
            assert_eq!(Escaped(s).to_string(), want);
        }
        assert!(matches!(text("plain"), Cow::Borrowed(_)));
        assert_eq!(cell("two\nlines\u{1b}[2J"), "two\nlines\\u{1b}[2J");
    }
}
