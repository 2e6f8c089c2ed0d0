//! Scalars on one line: plain (up to a `:`, a comment or, in a flow collection, a flow
//! indicator), single-quoted (`''` for a quote) and double-quoted (with libyaml's escapes; any
//! other escape is given up on).

use std::borrow::Cow;

use super::super::bytes::find;
use super::super::de::{GiveUp, R};
use super::{Scanner, is_blank_at};

impl<'t> Scanner<'t> {
    /// A plain scalar at `p` (its start already checked): its text without trailing spaces, and
    /// where it stops (a `:` that makes it a key, a comment, a flow indicator or the line's end).
    pub(super) fn plain(&self, p: usize, end: usize, flow: bool) -> R<(&'t str, usize)> {
        let b = self.b;
        let mut last = p;
        let mut q = p;
        while q < end {
            // The bytes that cannot end a plain scalar, in a tight loop.
            let run = q;
            while q < end && !STOPS[usize::from(b[q])] {
                q += 1;
            }
            if q > run {
                last = q;
            }
            if q == end {
                break;
            }
            match b[q] {
                b':' if is_blank_at(b, q + 1, end) => break,
                // libyaml: an error before `,?[]{}`, part of the scalar before anything else.
                b':' if flow && matches!(b[q + 1], b',' | b'?' | b'[' | b']' | b'{' | b'}') => {
                    return Err(GiveUp);
                }
                b'#' if b[q - 1] == b' ' => {
                    if flow {
                        return Err(GiveUp);
                    }
                    break;
                }
                b',' | b'[' | b']' | b'{' | b'}' if flow => break,
                b' ' => {}
                _ => last = q + 1,
            }
            q += 1;
        }
        let text = self.s.get(p..last).ok_or(GiveUp)?;
        Ok((text, if b.get(q) == Some(&b'#') { last } else { q }))
    }

    /// A quoted or plain scalar at `p` (`flow`: inside a flow collection): its text, the
    /// position after it, and whether it was plain (only a plain scalar resolves to a non-string).
    pub(super) fn scalar(
        &self,
        p: usize,
        end: usize,
        flow: bool,
    ) -> R<(Cow<'t, str>, usize, bool)> {
        if matches!(self.b[p], b'"' | b'\'') {
            let (text, after) = self.quoted(p, end)?;
            return Ok((text, after, false));
        }
        if !plain_start(self.b, p, end, flow) {
            return Err(GiveUp);
        }
        let (text, after) = self.plain(p, end, flow)?;
        Ok((Cow::Borrowed(text), after, true))
    }

    /// A quoted scalar at `p`, closed on its line: its text and the position after it.
    pub(super) fn quoted(&self, p: usize, end: usize) -> R<(Cow<'t, str>, usize)> {
        if self.b[p] == b'\'' {
            self.single(p, end)
        } else {
            self.double(p, end)
        }
    }

    fn single(&self, p: usize, end: usize) -> R<(Cow<'t, str>, usize)> {
        let (b, s) = (self.b, self.s);
        let mut owned: Option<String> = None;
        let mut seg = p + 1;
        let mut q = p + 1;
        loop {
            let k = find(b, q, end, b'\'', b'\'');
            if k == end {
                return Err(GiveUp);
            }
            if k + 1 < end && b[k + 1] == b'\'' {
                owned
                    .get_or_insert_with(String::new)
                    .push_str(s.get(seg..=k).ok_or(GiveUp)?);
                q = k + 2;
                seg = q;
                continue;
            }
            let tail = s.get(seg..k).ok_or(GiveUp)?;
            return Ok(match owned {
                None => (Cow::Borrowed(tail), k + 1),
                Some(mut o) => {
                    o.push_str(tail);
                    (Cow::Owned(o), k + 1)
                }
            });
        }
    }

    fn double(&self, p: usize, end: usize) -> R<(Cow<'t, str>, usize)> {
        let (b, s) = (self.b, self.s);
        let mut owned: Option<String> = None;
        let mut seg = p + 1;
        let mut q = p + 1;
        loop {
            let k = find(b, q, end, b'"', b'\\');
            if k == end {
                return Err(GiveUp);
            }
            let piece = s.get(seg..k).ok_or(GiveUp)?;
            if b[k] == b'"' {
                return Ok(match owned {
                    None => (Cow::Borrowed(piece), k + 1),
                    Some(mut o) => {
                        o.push_str(piece);
                        (Cow::Owned(o), k + 1)
                    }
                });
            }
            let o = owned.get_or_insert_with(String::new);
            o.push_str(piece);
            let (c, next) = escape(b, k + 1, end)?;
            o.push(c);
            q = next;
            seg = q;
        }
    }
}

/// The bytes at which [`Scanner::plain`] looks twice: every other byte is part of the scalar.
static STOPS: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    let stops = b":# ,[]{}";
    while i < stops.len() {
        t[stops[i] as usize] = true;
        i += 1;
    }
    t
};

/// Whether a plain scalar may start at `p`: not an indicator, but `-` before a non-blank (and,
/// in a flow collection, before anything but a flow indicator).
pub(super) fn plain_start(b: &[u8], p: usize, end: usize, flow: bool) -> bool {
    match b[p] {
        b'-' => {
            p + 1 < end
                && b[p + 1] != b' '
                && !(flow && matches!(b[p + 1], b',' | b'[' | b']' | b'{' | b'}'))
        }
        b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
        | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' | b' ' => false,
        _ => true,
    }
}

/// The escape after a `\` at `k` in a double-quoted scalar: the character and the position after.
fn escape(b: &[u8], k: usize, end: usize) -> R<(char, usize)> {
    let c = match *b.get(k).filter(|_| k < end).ok_or(GiveUp)? {
        b'\\' => '\\',
        b'"' => '"',
        b'/' => '/',
        b'n' => '\n',
        b't' => '\t',
        b'r' => '\r',
        b'0' => '\0',
        b'a' => '\x07',
        b'b' => '\x08',
        b'e' => '\x1b',
        b'f' => '\x0c',
        b'v' => '\x0b',
        b'x' => return hex(b, k + 1, 2, end),
        b'u' => return hex(b, k + 1, 4, end),
        b'U' => return hex(b, k + 1, 8, end),
        _ => return Err(GiveUp),
    };
    Ok((c, k + 1))
}

fn hex(b: &[u8], at: usize, len: usize, end: usize) -> R<(char, usize)> {
    if at + len > end {
        return Err(GiveUp);
    }
    let mut v = 0u32;
    for &d in &b[at..at + len] {
        v = v * 16 + (d as char).to_digit(16).ok_or(GiveUp)?;
    }
    Ok((char::from_u32(v).ok_or(GiveUp)?, at + len))
}
