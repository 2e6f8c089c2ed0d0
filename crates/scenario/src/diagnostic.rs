//! Located problems in input files: a [`Diagnostic`] points at one value (file, line, column); a
//! [`LoadError`] is every problem of a file that did not load. The binary turns them into text and
//! an exit status; this crate never prints.

use std::fmt;

use crate::escape::{self, Escaped};

/// One problem in one input file, pointing at the offending value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    pub message: String,
    /// Set on a coded finding of `check` (`warning[CODE]` / `note[CODE]`).
    pub coded: Option<Box<Coded>>,
}

/// What a coded finding adds to a diagnostic: its code and severity, and for
/// `authority_amplified` the path (ids, in order) and the scopes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coded {
    pub code: &'static str,
    pub severity: Severity,
    pub path: Vec<String>,
    pub scopes: Vec<String>,
    /// Lines printed after the message, indented: what the finding reaches, a hint. Kept apart
    /// so that no newline inside a message or a name can start a line.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Warning,
    /// Reported, but never an error, even under `--deny warnings`.
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

impl Diagnostic {
    /// `FILE:LINE:COL: ` (or `FILE: ` for a command-line value), for a terminal.
    pub fn place(&self) -> String {
        let file = Escaped(&self.file);
        // Line 0: a problem of a command-line value (`--set KEY=VALUE`), which has no position.
        if self.line == 0 {
            return format!("{file}: ");
        }
        format!("{file}:{}:{}: ", self.line, self.column)
    }

    /// The message for a terminal: escaped, each note on a line of its own.
    pub fn shown_message(&self) -> String {
        let mut out = escape::text(&self.message).into_owned();
        for note in self.coded.iter().flat_map(|c| &c.notes) {
            out.push_str("\n  ");
            out.push_str(&escape::text(note));
        }
        out
    }

    /// The message with its notes, as JSON output has it (one string, the notes on lines of
    /// their own).
    pub fn full_message(&self) -> String {
        let mut out = self.message.clone();
        for note in self.coded.iter().flat_map(|c| &c.notes) {
            out.push_str("\n  ");
            out.push_str(note);
        }
        out
    }
}

/// For a terminal: names and texts in a message come from files and traffic, so control
/// characters in them are shown escaped ([`escape`]).
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.place(), self.shown_message())
    }
}

/// A file that did not load: every problem found, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub diagnostics: Vec<Diagnostic>,
}

impl LoadError {
    pub fn single(file: &str, line: usize, column: usize, message: impl Into<String>) -> Self {
        LoadError {
            diagnostics: vec![Diagnostic {
                file: file.to_string(),
                line,
                column,
                message: message.into(),
                coded: None,
            }],
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// "did you mean `x`?" for a misspelt word, when one candidate is close enough.
/// Ties go to the alphabetically first candidate, so the hint never depends on iteration order.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    // Hints are for typos in names people type; very long words get none.
    if word.len() > 256 {
        return None;
    }
    for c in candidates {
        let (wn, cn) = (word.chars().count(), c.chars().count());
        let limit = (wn.max(cn) / 3).max(1);
        if wn.abs_diff(cn) > limit || cn > 256 {
            continue;
        }
        let d = edit_distance(word, c);
        if d <= limit && best.is_none_or(|(bd, bc)| d < bd || (d == bd && c < bc)) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Appends a "did you mean" hint to `message` when one applies.
pub fn with_hint<'a>(
    message: String,
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    match did_you_mean(word, candidates) {
        Some(c) => format!("{message} (did you mean `{c}`?)"),
        None => message,
    }
}

/// Optimal string alignment distance: edits, with a swap of two neighbours counting as one
/// (`sned` is one edit from `send`). Three rolling rows, so long names cost no big matrix.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(before[j - 2] + 1);
            }
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_words_only() {
        let keys = ["caller", "to", "text", "context_of"];
        for (word, want) in [
            ("txt", Some("text")),
            ("calller", Some("caller")),
            ("context_off", Some("context_of")),
            ("zzzzzz", None),
        ] {
            assert_eq!(did_you_mean(word, keys), want, "{word}");
        }
        assert_eq!(
            did_you_mean("sned", ["send", "stream"]),
            Some("send"),
            "a swap is one edit"
        );
        let long_a = "a".repeat(30_000);
        let long_b = "b".repeat(30_000);
        assert_eq!(
            did_you_mean(&long_a, [long_b.as_str()]),
            None,
            "long names cost no big matrix"
        );
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
