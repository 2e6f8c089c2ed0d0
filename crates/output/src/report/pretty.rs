//! The report's JSON layout, written fast: serde_json's pretty format with fewer writes, through
//! a buffer that hands the output on in chunks.

use std::io::Write;

/// Buffers the serializer's many small writes in a concrete type (so they inline) and hands the
/// output on in chunks: the report streams out without being built whole.
pub struct ChunkWriter<'a> {
    buf: Vec<u8>,
    out: &'a mut dyn Write,
}

const CHUNK: usize = 1 << 16;

impl<'a> ChunkWriter<'a> {
    pub fn new(out: &'a mut dyn Write) -> Self {
        ChunkWriter {
            buf: Vec::with_capacity(CHUNK * 2),
            out,
        }
    }
}

impl Write for ChunkWriter<'_> {
    #[inline]
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    #[inline]
    fn write_all(&mut self, data: &[u8]) -> std::io::Result<()> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()
    }
}

/// serde_json's pretty layout (two spaces), with each line break and its indentation written in
/// one piece instead of a write per level: the same bytes, fewer calls.
#[derive(Default)]
pub struct Pretty {
    depth: usize,
    has_value: bool,
}

/// `,` then a line break and 64 levels of indentation.
const BREAK: &[u8; 130] = b",\n                                                                                                                                ";

impl Pretty {
    fn line<W: ?Sized + Write>(&self, w: &mut W, comma: bool) -> std::io::Result<()> {
        let start = usize::from(!comma);
        let width = 2 * self.depth;
        if width <= BREAK.len() - 2 {
            return w.write_all(&BREAK[start..2 + width]);
        }
        w.write_all(&BREAK[start..2])?;
        for _ in 0..self.depth {
            w.write_all(b"  ")?;
        }
        Ok(())
    }
}

impl serde_json::ser::Formatter for Pretty {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(b"[")
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.line(w, false)?;
        }
        w.write_all(b"]")
    }
    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.line(w, !first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(b"{")
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.line(w, false)?;
        }
        w.write_all(b"}")
    }
    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.line(w, !first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    use super::*;

    #[test]
    fn pretty_writes_the_same_bytes_as_serde_json() {
        let mut deep = serde_json::json!({"leaf": [1, {"k": []}, {}], "empty": {}});
        for i in 0..100 {
            deep = serde_json::json!({ format!("level-{i}"): [deep, i] });
        }
        let mut ours = Vec::new();
        deep.serialize(&mut serde_json::Serializer::with_formatter(
            &mut ours,
            Pretty::default(),
        ))
        .unwrap();
        assert_eq!(
            String::from_utf8(ours).unwrap(),
            serde_json::to_string_pretty(&deep).unwrap()
        );
    }
}
