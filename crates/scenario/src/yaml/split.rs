//! A large document read on two threads: the second half of its long top-level list (a
//! scenario's `steps`) is cut out and read by the byte scanner on a helper thread while this
//! thread reads the rest, and the halves are joined. Either half the scanner does not read, and
//! every other doubt, sends the whole text down the one-thread path of [`super::parse`], so the
//! result, and every error, is what that path gives.
//!
//! The cut is safe because of what the scanner accepts: at the list's indentation, a line
//! starting `- ` begins one of its items (block scalars, multi-line scalars and multi-line flow
//! collections, the only things that could hold such a line otherwise, are refused), and a line
//! at column 0 that is not a comment ends the list. The items cut out, read as a document of
//! their own (a list at that indentation), are the same nodes; what is left reads as the same
//! mapping with a shorter list.

use serde::de::DeserializeOwned;

use super::{YamlError, parse, scan};

/// Texts shorter than this are read on one thread: a thread costs more than it saves.
pub const SPLIT_FROM: usize = 1 << 20;

/// [`parse`] of `text` as `T`, with the second half of its top-level block list `key` (indented
/// by two spaces) read as `U` on a helper thread and handed to `join`. Texts shorter than
/// `from` bytes, or without such a list, are read by [`parse`] alone.
pub fn parse_split<T, U>(
    text: &str,
    key: &str,
    from: usize,
    join: impl FnOnce(&mut T, U),
) -> Result<T, YamlError>
where
    T: DeserializeOwned,
    U: DeserializeOwned + Send,
{
    let two_threads = text.len() >= from && crate::parallel::default_jobs() >= 2;
    let Some(cut) = two_threads.then(|| cut(text, key)).flatten() else {
        return parse(text);
    };
    let rest: String;
    let head = if cut.end == text.len() {
        &text[..cut.start]
    } else {
        rest = [&text[..cut.start], &text[cut.end..]].concat();
        &rest
    };
    let tail = &text[cut.start..cut.end];
    let (first, second) = std::thread::scope(|s| {
        let second = s.spawn(|| scan::parse::<U>(tail));
        let first = scan::parse::<T>(head);
        (first, second.join().ok().flatten())
    });
    match (first, second) {
        (Some(mut value), Some(items)) => {
            join(&mut value, items);
            Ok(value)
        }
        _ => parse(text),
    }
}

/// The bytes of the second half of `key`'s items: from the start of an item line near the middle
/// of the list to the end of the list.
#[derive(Debug, PartialEq, Eq)]
struct Cut {
    start: usize,
    end: usize,
}

fn cut(text: &str, key: &str) -> Option<Cut> {
    let b = text.as_bytes();
    let line = format!("{key}:\n");
    let first = if text.starts_with(&line) {
        line.len()
    } else {
        text.find(&format!("\n{line}"))? + 1 + line.len()
    };
    // The list: from `first` to the first line at column 0 that is not a comment.
    let mut end = b.len();
    let mut at = first;
    while at < b.len() {
        let next = b[at..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |i| at + i + 1);
        if !matches!(b[at], b' ' | b'#' | b'\n') {
            end = at;
            break;
        }
        at = next;
    }
    // Its items are indented by two: the first line with content says so.
    if !text[first..end]
        .lines()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))?
        .starts_with("  - ")
    {
        return None;
    }
    let middle = first + (end - first) / 2;
    let start = text[middle..end].find("\n  - ").map(|i| middle + i + 1)?;
    (start < end).then_some(Cut { start, end })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cut_starts_at_an_item_near_the_middle_and_ends_with_the_list() {
        let text = "a: 1\nsteps:\n  - x: 1\n  - x: 2\n  # note\n  - x: 3\n  - x: 4\nend: 2\n";
        let c = cut(text, "steps").unwrap();
        assert!(text[c.start..].starts_with("  - x: 3"), "{c:?}");
        assert!(text[c.end..].starts_with("end: 2"));
        // At the very end of the text, and a list at column 0 (not cut).
        let text = "steps:\n  - 1\n  - 2\n  - 3\n";
        let c = cut(text, "steps").unwrap();
        assert_eq!((&text[c.start..c.end], c.end), ("  - 3\n", text.len()));
        assert_eq!(cut("steps:\n- 1\n- 2\n- 3\n", "steps"), None);
        assert_eq!(cut("other:\n  - 1\n  - 2\n", "steps"), None);
        assert_eq!(cut("steps: [1, 2, 3]\n", "steps"), None);
    }

    /// Both ways agree on `text`: the whole on one thread, and split at any size.
    fn agrees(text: &str) {
        let one: Result<serde_json::Value, _> = parse(text);
        let two = parse_split(
            text,
            "steps",
            0,
            |v: &mut serde_json::Value, rest: Vec<_>| {
                if let Some(list) = v.get_mut("steps").and_then(|s| s.as_array_mut()) {
                    list.extend(rest);
                }
            },
        );
        assert_eq!(one, two, "{text}");
    }

    /// The scanner reads both halves of `text`: the split path, not the fallback, answers.
    fn both_halves_read(text: &str) {
        let c = cut(text, "steps").unwrap();
        let head = [&text[..c.start], &text[c.end..]].concat();
        assert!(scan::parse::<serde_json::Value>(&head).is_some(), "{head}");
        let tail = &text[c.start..c.end];
        assert!(
            scan::parse::<Vec<serde_json::Value>>(tail).is_some(),
            "{tail}"
        );
    }

    #[test]
    fn split_and_whole_read_the_same() {
        for text in [
            "a: 1\nsteps:\n  - x: 1\n  - x: 2\n  - {y: [1, 2]}\n  - x: 4\nend: 2\n",
            "steps:\n  - x: 1\n  - x: 2\n  - 'q'\n  - \"d\\n\"\n",
            // Comments, blank lines, nested lists and mappings inside items.
            "steps:\n  - x:\n      - 1\n      - 2\n\n  # c\n  - y: {a: b}\n  - z\n  - w\n",
        ] {
            both_halves_read(text);
            agrees(text);
        }
        // What the scanner refuses, on either side of the cut, goes down the whole-text path
        // (errors included).
        agrees("steps:\n  - x: 1\n  - x: 2\n  - |\n    block\n  - x: &a 4\n");
        agrees("steps:\n  - x: 1\n  - x: 2\n  - x: [1,\n  - 2]\n  - 5\n");
        agrees("steps:\n  - x: 1\n  - x: 2\n  - x: 3\n  - x: 4\nsteps: 2\n");
        agrees("steps:\n  - x: 1\n  - x: 2\n  -x: 3\n  - x: 4\n\t\n");
    }
}
