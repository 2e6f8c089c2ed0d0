//! Flow collections on one line: `{a: b, c: [x, y]}`, nested at most [`MAX_FLOW_DEPTH`] deep; no
//! empty value, trailing comma, complex key or collection that goes on to the next line.

use super::super::de::{Ev, GiveUp, MAX_KEY, R};
use super::{Scanner, is_blank_at, skip_spaces};

/// Flow collections nested deeper than this are not ours (and [`super::super::de`] stops at 64
/// anyway).
const MAX_FLOW_DEPTH: usize = 32;

impl<'t> Scanner<'t> {
    /// A flow collection at `p` (`{` or `[`), closed on its line: its events, and the position
    /// after it.
    pub(super) fn flow(&mut self, p: usize, end: usize, depth: usize) -> R<usize> {
        if depth > MAX_FLOW_DEPTH {
            return Err(GiveUp);
        }
        let b = self.b;
        let map = b[p] == b'{';
        let close = if map { b'}' } else { b']' };
        self.queue
            .push(if map { Ev::MapStart } else { Ev::SeqStart });
        let mut q = skip_spaces(b, p + 1, end);
        if q < end && b[q] == close {
            self.queue.push(if map { Ev::MapEnd } else { Ev::SeqEnd });
            return Ok(q + 1);
        }
        loop {
            if map {
                let (key, after, is_key) = self.flow_scalar(q, end)?;
                if !is_key || after - q > MAX_KEY {
                    return Err(GiveUp);
                }
                self.queue.push(key);
                q = skip_spaces(b, after + 1, end);
                q = self.flow_value(q, end, depth)?;
            } else {
                q = self.flow_value(q, end, depth)?;
            }
            q = skip_spaces(b, q, end);
            match b.get(q) {
                Some(b',') if q < end => {
                    q = skip_spaces(b, q + 1, end);
                    if q >= end || b[q] == close {
                        return Err(GiveUp);
                    }
                }
                Some(&c) if c == close && q < end => {
                    self.queue.push(if map { Ev::MapEnd } else { Ev::SeqEnd });
                    return Ok(q + 1);
                }
                _ => return Err(GiveUp),
            }
        }
    }

    /// A value in a flow collection: a nested collection or a scalar that is not a key.
    fn flow_value(&mut self, q: usize, end: usize, depth: usize) -> R<usize> {
        if q >= end {
            return Err(GiveUp);
        }
        if matches!(self.b[q], b'{' | b'[') {
            let after = self.flow(q, end, depth + 1)?;
            if skip_spaces(self.b, after, end) < end
                && self.b[skip_spaces(self.b, after, end)] == b':'
            {
                return Err(GiveUp);
            }
            return Ok(after);
        }
        let (scalar, after, is_key) = self.flow_scalar(q, end)?;
        if is_key {
            return Err(GiveUp);
        }
        self.queue.push(scalar);
        Ok(after)
    }

    /// A scalar in a flow collection at `q`: the scalar, the position after it (at its `:` when
    /// it is a key), and whether it is a key (`:` and a space right after it).
    fn flow_scalar(&self, q: usize, end: usize) -> R<(Ev<'t>, usize, bool)> {
        let b = self.b;
        if q >= end {
            return Err(GiveUp);
        }
        let (text, after, plain) = self.scalar(q, end, true)?;
        if after < end && b[after] == b':' {
            if !is_blank_at(b, after + 1, end) || after + 1 >= end || b[after - 1] == b' ' {
                return Err(GiveUp);
            }
            return Ok((Ev::Scalar(text, plain), after, true));
        }
        Ok((Ev::Scalar(text, plain), after, false))
    }
}
