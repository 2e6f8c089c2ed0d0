//! The lines of the Mermaid diagram: each with its place in time, and its text: arrows and notes
//! between participants written `⟦name⟧`, labels cut and escaped so that Mermaid takes them
//! literally.

/// Message texts in labels are cut to this many characters.
pub const LABEL_CHARS: usize = 40;

/// One line (or block) of the diagram, with its place in time: `(tick, rank, seq)`. Ranks
/// within a tick: 0 driver steps and created tasks, 1 decisions (placed before the status change
/// they led to), 2 status changes, 3 pushes, 4 nested denials, 6 decisions followed by no status
/// change, 9 driver steps after everything of their tick.
pub(super) enum Item {
    Line((u64, u8, usize), String),
    /// A fan-out: its label and each member's lines.
    Par((u64, u8, usize), String, Vec<Vec<Item>>),
}

impl Item {
    pub(super) fn key(&self) -> (u64, u8, usize) {
        match self {
            Item::Line(k, _) | Item::Par(k, _, _) => *k,
        }
    }
}

/// A line to be written: participants by name, resolved to ids when written.
pub(super) fn line(key: (u64, u8, usize), text: String) -> Item {
    Item::Line(key, text)
}

pub(super) fn sort(items: &mut [Item]) {
    items.sort_by_key(Item::key);
}

/// Participants are written `⟦name⟧` until `Diagram::resolve` gives them ids; a name holding
/// `⟦` or `⟧` loses those characters.
fn who(name: &str) -> String {
    let clean: String = name.chars().filter(|c| *c != '⟦' && *c != '⟧').collect();
    format!("⟦{clean}⟧")
}

pub(super) fn arrow(from: &str, kind: &str, to: &str, label: &str) -> String {
    format!("{}{kind}{}: {label}", who(from), who(to))
}

pub(super) fn note(over: &str, label: &str) -> String {
    format!("Note over {}: {label}", who(over))
}

/// The host a push goes to, as the URL parser reads it; the URL itself if it has none.
pub(super) fn host(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| url.to_string())
}

/// A message text for a label: truncated, escaped.
pub(super) fn esc(text: &str) -> String {
    escape(text, LABEL_CHARS)
}

/// One line of text Mermaid takes literally: whitespace runs to one space, at most `max`
/// characters (then `…`), and the characters the sequence lexer gives a meaning written as
/// Mermaid entity codes.
pub fn escape(text: &str, max: usize) -> String {
    let flat: Vec<&str> = text.split_whitespace().collect();
    let flat = flat.join(" ");
    let mut out = String::new();
    for (n, c) in flat.chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        match c {
            ';' => out.push_str("#59;"),
            '#' => out.push_str("#35;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '%' => out.push_str("#37;"),
            '⟦' | '⟧' => {}
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_cuts_flattens_and_codes_what_the_lexer_reads() {
        assert_eq!(escape("a;b#c", 40), "a#59;b#35;c");
        assert_eq!(escape("a\n  b\tc", 40), "a b c");
        assert_eq!(escape("<x>", 40), "#lt;x#gt;");
        assert_eq!(escape("abcdef", 3), "abc…");
        assert_eq!(escape("100% {k: v}", 40), "100#37; {k: v}");
    }
}
