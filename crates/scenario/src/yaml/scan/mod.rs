//! The first path of [`super::parse`]: a byte scanner for the subset of YAML scenario files are
//! written in, feeding [`super::de`] with borrowed slices of the text. `saphyr-parser` alone reads
//! a large generated file at ~44 MB/s; this takes an eighth of its instructions because it knows
//! only what scenario files use:
//!
//! - block mappings (`key: value`, `key:` and a nested node) and block sequences (`- item`,
//!   `- key: value` compact mappings, `- - x`, a sequence as indented as its key);
//! - flow mappings and sequences on one line (`{a: b, c: [x, y]}`);
//! - plain scalars on one line, single- and double-quoted scalars on one line (with escapes);
//! - comments, blank lines, one leading `---`.
//!
//! It gives up (and `saphyr-parser`, then serde_norway, read the file) on anything else, and on
//! anything it is not certain to read exactly as serde_norway would: anchors, aliases, tags,
//! directives, block scalars, multi-line scalars and flow collections, tabs, CRs, BOMs, control
//! characters and the characters libyaml breaks lines at, complex keys, `key : value`, empty
//! values in flow collections, trailing commas, several documents. What a plain scalar resolves
//! to is [`super::de`]'s to decide (or refuse), exactly as on the `saphyr-parser` path.

use std::borrow::Cow;

use serde::de::DeserializeOwned;

use super::bytes::find;
use super::de::{self, Ev, GiveUp, MAX_KEY, R, Source};

mod flow;
mod scalar;

use super::fast::plain_text;

/// `text` read as `T`, or `None` when the other paths must read it.
pub(super) fn parse<T: DeserializeOwned>(text: &str) -> Option<T> {
    if !clean(text) {
        return None;
    }
    de::read(Scanner::new(text))
}

/// Only printable ASCII, line feeds and the non-ASCII characters [`plain_text`] accepts: no tab,
/// CR or other control character anywhere.
fn clean(text: &str) -> bool {
    let mut bad = false;
    let mut high = false;
    for chunk in text.as_bytes().chunks(64) {
        for &b in chunk {
            bad |= (b < 0x20 && b != b'\n') | (b == 0x7f);
            high |= b >= 0x80;
        }
        if bad {
            return false;
        }
    }
    !high || plain_text(text)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Map,
    Seq,
    /// A sequence as indented as the key it is the value of (`key:\n- a`): it ends at the next
    /// line of that indentation that is not an item.
    IndentlessSeq,
}

#[derive(Clone, Copy)]
struct Block {
    indent: usize,
    kind: Kind,
}

/// A `key:` or `-` with nothing after it on its line: its value starts on a later line.
#[derive(Clone, Copy)]
struct Open {
    indent: usize,
    after_key: bool,
}

struct Scanner<'t> {
    s: &'t str,
    b: &'t [u8],
    /// The start of the next line to read.
    pos: usize,
    /// The start of the line being read (columns count from it).
    line: usize,
    blocks: Vec<Block>,
    open: Option<Open>,
    /// The events of the line read last, from `head` on not pulled yet.
    queue: Vec<Ev<'t>>,
    head: usize,
    /// Whether a leading `---` may still come.
    marker_ok: bool,
    /// The root node was a flow collection, done: nothing may follow.
    root_done: bool,
    seen_root: bool,
    done: bool,
}

impl<'t> Source<'t> for Scanner<'t> {
    fn pull(&mut self) -> R<Ev<'t>> {
        loop {
            if let Some(slot) = self.queue.get_mut(self.head) {
                self.head += 1;
                return Ok(std::mem::replace(slot, Ev::End));
            }
            self.queue.clear();
            self.head = 0;
            if self.done {
                return Err(GiveUp);
            }
            self.next_line()?;
        }
    }
}

fn is_blank_at(b: &[u8], i: usize, end: usize) -> bool {
    i >= end || b[i] == b' '
}

impl<'t> Scanner<'t> {
    fn new(s: &'t str) -> Self {
        Scanner {
            s,
            b: s.as_bytes(),
            pos: 0,
            line: 0,
            blocks: Vec::new(),
            open: None,
            queue: Vec::new(),
            head: 0,
            marker_ok: true,
            root_done: false,
            seen_root: false,
            done: false,
        }
    }

    /// Reads lines up to the next one with content and turns it into events.
    fn next_line(&mut self) -> R<()> {
        let b = self.b;
        loop {
            if self.pos >= b.len() {
                return self.finish();
            }
            let start = self.pos;
            let end = find(b, start, b.len(), b'\n', b'\n');
            self.pos = end + 1;
            let mut at = start;
            while at < end && b[at] == b' ' {
                at += 1;
            }
            if at == end || b[at] == b'#' {
                continue;
            }
            if at == start && (b[at..end].starts_with(b"---") || b[at..end].starts_with(b"...")) {
                if self.marker_ok && b[at] == b'-' {
                    self.marker_ok = false;
                    self.rest_blank(at + 3, end)?;
                    continue;
                }
                return Err(GiveUp);
            }
            self.marker_ok = false;
            self.line = start;
            return self.content(at, end);
        }
    }

    fn finish(&mut self) -> R<()> {
        if !self.seen_root {
            return Err(GiveUp);
        }
        if self.open.take().is_some() {
            self.queue.push(null());
        }
        while let Some(block) = self.blocks.pop() {
            self.queue.push(end_of(block.kind));
        }
        self.queue.push(Ev::End);
        self.done = true;
        Ok(())
    }

    /// A line whose first non-space byte is at `at` (not a comment).
    fn content(&mut self, at: usize, end: usize) -> R<()> {
        let ind = at - self.line;
        if self.root_done {
            return Err(GiveUp);
        }
        if !self.seen_root {
            self.seen_root = true;
            if matches!(self.b[at], b'{' | b'[') {
                let q = self.flow(at, end, 0)?;
                self.rest_blank(q, end)?;
                self.root_done = true;
                return Ok(());
            }
            return self.node_start(at, end);
        }
        if let Some(open) = self.open.take() {
            if ind > open.indent {
                return self.node_start(at, end);
            }
            if ind == open.indent && open.after_key && self.is_dash(at, end) {
                self.push(ind, Kind::IndentlessSeq);
                return self.item(at, end);
            }
            self.queue.push(null());
        }
        while let Some(&top) = self.blocks.last() {
            let indentless_done =
                top.indent == ind && top.kind == Kind::IndentlessSeq && !self.is_dash(at, end);
            if top.indent <= ind && !indentless_done {
                break;
            }
            self.blocks.pop();
            self.queue.push(end_of(top.kind));
        }
        let top = self.blocks.last().ok_or(GiveUp)?;
        if top.indent != ind {
            return Err(GiveUp);
        }
        match top.kind {
            Kind::Map => self.entry(at, end),
            Kind::Seq | Kind::IndentlessSeq if self.is_dash(at, end) => self.item(at, end),
            _ => Err(GiveUp),
        }
    }

    fn is_dash(&self, at: usize, end: usize) -> bool {
        self.b[at] == b'-' && is_blank_at(self.b, at + 1, end)
    }

    fn push(&mut self, indent: usize, kind: Kind) {
        self.blocks.push(Block { indent, kind });
        self.queue.push(match kind {
            Kind::Map => Ev::MapStart,
            Kind::Seq | Kind::IndentlessSeq => Ev::SeqStart,
        });
    }

    /// A block collection starting at `at`: a sequence if the line is an item, else a mapping.
    fn node_start(&mut self, at: usize, end: usize) -> R<()> {
        let col = at - self.line;
        if self.is_dash(at, end) {
            self.push(col, Kind::Seq);
            self.item(at, end)
        } else {
            self.push(col, Kind::Map);
            self.entry(at, end)
        }
    }

    /// `- ...` at `at`, its sequence already open.
    fn item(&mut self, mut at: usize, end: usize) -> R<()> {
        loop {
            let mut p = at + 1;
            while p < end && self.b[p] == b' ' {
                p += 1;
            }
            if p == end || self.b[p] == b'#' {
                self.open = Some(Open {
                    indent: at - self.line,
                    after_key: false,
                });
                return Ok(());
            }
            if !self.is_dash(p, end) {
                return self.inline_node(p, end);
            }
            self.push(p - self.line, Kind::Seq);
            at = p;
        }
    }

    /// An item's node on the dash's line: a scalar, a flow collection, or a compact mapping.
    fn inline_node(&mut self, p: usize, end: usize) -> R<()> {
        if matches!(self.b[p], b'{' | b'[') {
            let q = self.flow(p, end, 0)?;
            return self.rest_blank(q, end);
        }
        let (scalar, q, key) = self.block_scalar(p, end)?;
        if key {
            self.push(p - self.line, Kind::Map);
            self.queue.push(scalar);
            return self.value(q, end);
        }
        self.queue.push(scalar);
        Ok(())
    }

    /// `key: value` (or `key:`) at `at`, its mapping already open.
    fn entry(&mut self, at: usize, end: usize) -> R<()> {
        let (scalar, q, key) = self.block_scalar(at, end)?;
        if !key {
            return Err(GiveUp);
        }
        self.queue.push(scalar);
        self.value(q, end)
    }

    /// The value after a key's `:` (at `p`), on the same line or, if none, on later lines.
    fn value(&mut self, mut p: usize, end: usize) -> R<()> {
        while p < end && self.b[p] == b' ' {
            p += 1;
        }
        if p == end || self.b[p] == b'#' {
            let indent = self.blocks.last().ok_or(GiveUp)?.indent;
            self.open = Some(Open {
                indent,
                after_key: true,
            });
            return Ok(());
        }
        if matches!(self.b[p], b'{' | b'[') {
            let q = self.flow(p, end, 0)?;
            return self.rest_blank(q, end);
        }
        let (scalar, _, key) = self.block_scalar(p, end)?;
        if key {
            return Err(GiveUp);
        }
        self.queue.push(scalar);
        Ok(())
    }

    /// A scalar of block context at `p`: the scalar, where its line goes on, and whether it is a
    /// key (then the position is after its `:`; else the rest of the line is blank or a comment).
    fn block_scalar(&mut self, p: usize, end: usize) -> R<(Ev<'t>, usize, bool)> {
        let b = self.b;
        let (text, q, plain) = self.scalar(p, end, false)?;
        if q < end && b[q] == b':' && is_blank_at(b, q + 1, end) {
            if q - p > MAX_KEY || b[q - 1] == b' ' {
                return Err(GiveUp);
            }
            return Ok((Ev::Scalar(text, plain), q + 1, true));
        }
        self.rest_blank(q, end)?;
        Ok((Ev::Scalar(text, plain), end, false))
    }

    /// Nothing but spaces and a comment from `q` to `end`.
    fn rest_blank(&self, mut q: usize, end: usize) -> R<()> {
        let start = q;
        while q < end && self.b[q] == b' ' {
            q += 1;
        }
        if q == end || self.b[q] == b'#' && q > start {
            return Ok(());
        }
        Err(GiveUp)
    }
}

fn skip_spaces(b: &[u8], mut q: usize, end: usize) -> usize {
    while q < end && b[q] == b' ' {
        q += 1;
    }
    q
}

fn null<'t>() -> Ev<'t> {
    Ev::Scalar(Cow::Borrowed(""), true)
}

fn end_of<'t>(kind: Kind) -> Ev<'t> {
    match kind {
        Kind::Map => Ev::MapEnd,
        Kind::Seq | Kind::IndentlessSeq => Ev::SeqEnd,
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod props;
