//! A pretty JSON writer without serde's machinery: serde_json's two-space layout
//! (`to_string_pretty`), byte for byte, written straight into a buffer that is handed on in
//! chunks. The report knows its keys and value types, so each byte is written once; going through
//! a `Serializer` and a `Formatter` cost the report twice the instructions.

use std::io::Write;

use serde_json::Value;

/// A chunk is handed on once the buffer holds this much (at the next [`Out::boundary`]).
const CHUNK: usize = 1 << 16;

/// Writes one JSON document. Containers are opened and closed by the caller; a key or an
/// element starts with the separator and the line break the layout wants there.
pub(crate) struct Out<'a> {
    buf: Vec<u8>,
    out: &'a mut dyn Write,
    depth: usize,
    /// Nothing written yet in the innermost open container.
    first: bool,
    /// Keeps everything in `buf` (a continuing writer's blocks are handed on whole).
    hold: bool,
}

impl<'a> Out<'a> {
    pub fn new(out: &'a mut dyn Write) -> Self {
        Out {
            buf: Vec::with_capacity(CHUNK * 2),
            out,
            depth: 0,
            first: true,
            hold: false,
        }
    }

    /// Hands the buffer on once it holds a chunk: call it between elements.
    #[inline]
    pub fn boundary(&mut self) -> std::io::Result<()> {
        if self.buf.len() >= CHUNK && !self.hold {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// How deep the writer is: a [`Out::continuing`] of it starts there.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// A writer of a run of elements inside an array, at `depth`, that already has some: the
    /// bytes it renders follow on from its first writer's exactly (see [`Out::splice`]).
    pub fn continuing(sink: &'a mut dyn Write, depth: usize) -> Self {
        Out {
            buf: Vec::with_capacity(CHUNK * 2),
            out: sink,
            depth,
            first: false,
            hold: true,
        }
    }

    /// What a continuing writer rendered, leaving it empty to render the next run.
    pub fn take(&mut self, into: &mut Vec<u8>) {
        into.clear();
        std::mem::swap(&mut self.buf, into);
    }

    /// Appends bytes a [`Out::continuing`] writer at this one's depth rendered, as if this writer had
    /// rendered them.
    pub fn splice(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if !bytes.is_empty() {
            self.first = false;
        }
        if self.buf.len() + bytes.len() < CHUNK {
            self.buf.extend_from_slice(bytes);
            return Ok(());
        }
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.write_all(bytes)
    }

    /// Ends the document with a line break and flushes everything.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.buf.push(b'\n');
        self.out.write_all(&self.buf)?;
        self.out.flush()
    }

    /// A line break and the indentation of the current depth, after a comma unless `first`.
    #[inline]
    fn line(&mut self, comma: bool) {
        let start = usize::from(!comma);
        let width = 2 * self.depth;
        if width <= BREAK.len() - 2 {
            self.buf.extend_from_slice(&BREAK[start..2 + width]);
        } else {
            self.buf.extend_from_slice(&BREAK[start..2]);
            self.buf.resize(self.buf.len() + width, b' ');
        }
    }

    #[inline]
    fn separate(&mut self) {
        self.line(!self.first);
        self.first = false;
    }

    #[inline]
    pub fn open_object(&mut self) {
        self.open(b'{');
    }

    #[inline]
    pub fn close_object(&mut self) {
        self.close(b'}');
    }

    #[inline]
    pub fn open_array(&mut self) {
        self.open(b'[');
    }

    #[inline]
    pub fn close_array(&mut self) {
        self.close(b']');
    }

    #[inline]
    fn open(&mut self, c: u8) {
        self.buf.push(c);
        self.depth += 1;
        self.first = true;
    }

    #[inline]
    fn close(&mut self, c: u8) {
        self.depth -= 1;
        if !self.first {
            self.line(false);
        }
        self.buf.push(c);
        self.first = false;
    }

    /// A key the report spells itself, written as `"key": ` (see [`key!`]): plain ASCII that
    /// needs no escaping.
    #[inline]
    pub fn key_literal(&mut self, quoted: &'static str) {
        self.separate();
        self.buf.extend_from_slice(quoted.as_bytes());
    }

    /// A key that comes from the scenario (a data mapping's, an agent name).
    pub fn key_escaped(&mut self, key: &str) {
        self.separate();
        self.str(key);
        self.buf.extend_from_slice(b": ");
    }

    /// Starts the next element of an array.
    #[inline]
    pub fn element(&mut self) {
        self.separate();
    }

    /// A string value, escaped as serde_json escapes it.
    pub fn str(&mut self, s: &str) {
        self.buf.push(b'"');
        let bytes = s.as_bytes();
        let mut start = 0;
        loop {
            let i = next_escape(bytes, start);
            self.buf.extend_from_slice(&bytes[start..i]);
            let Some(&b) = bytes.get(i) else { break };
            match ESCAPE[b as usize] {
                b'u' => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    self.buf.extend_from_slice(b"\\u00");
                    self.buf.push(HEX[(b >> 4) as usize]);
                    self.buf.push(HEX[(b & 0xF) as usize]);
                }
                c => self.buf.extend_from_slice(&[b'\\', c]),
            }
            start = i + 1;
        }
        self.buf.push(b'"');
    }

    /// A string the report spells itself (a state, an op, a code): nothing to escape.
    #[inline]
    pub fn plain(&mut self, s: &'static str) {
        debug_assert_eq!(next_escape(s.as_bytes(), 0), s.len());
        self.buf.push(b'"');
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(b'"');
    }

    /// A string made of a prefix and a number, such as `task-7`.
    #[inline]
    pub fn id(&mut self, prefix: &'static str, n: u64) {
        self.buf.push(b'"');
        self.buf.extend_from_slice(prefix.as_bytes());
        self.u64(n);
        self.buf.push(b'"');
    }

    /// Any `Display` as a string value, escaped.
    pub fn display(&mut self, value: impl std::fmt::Display) {
        let mut s = String::new();
        let _ = std::fmt::write(&mut s, format_args!("{value}"));
        self.str(&s);
    }

    pub fn u64(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        while n >= 100 {
            let pair = (n % 100) as usize * 2;
            n /= 100;
            at -= 2;
            digits[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
        }
        if n >= 10 {
            let pair = n as usize * 2;
            at -= 2;
            digits[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
        } else {
            at -= 1;
            digits[at] = b'0' + n as u8;
        }
        self.buf.extend_from_slice(&digits[at..]);
    }

    pub fn i64(&mut self, n: i64) {
        if n < 0 {
            self.buf.push(b'-');
        }
        self.u64(n.unsigned_abs());
    }

    /// A literal such as `null` or `true`.
    #[inline]
    pub fn raw(&mut self, s: &'static str) {
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// A mapping, keys in its order.
    pub fn map(&mut self, map: &serde_json::Map<String, Value>) {
        self.open_object();
        for (k, v) in map {
            self.key_escaped(k);
            self.value(v);
        }
        self.close_object();
    }

    pub fn value(&mut self, v: &Value) {
        match v {
            Value::Null => self.raw("null"),
            Value::Bool(true) => self.raw("true"),
            Value::Bool(false) => self.raw("false"),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    self.u64(u);
                } else if let Some(i) = n.as_i64() {
                    self.i64(i);
                } else {
                    // A float: serde_json's own formatting (ryu), as before.
                    let _ = serde_json::to_writer(&mut self.buf, n);
                }
            }
            Value::String(s) => self.str(s),
            Value::Array(items) => {
                self.open_array();
                for item in items {
                    self.element();
                    self.value(item);
                }
                self.close_array();
            }
            Value::Object(map) => self.map(map),
        }
    }
}

/// Writes a key the report spells itself: `key!(out, "tick")`.
macro_rules! key {
    ($out:expr, $key:literal) => {
        $out.key_literal(concat!("\"", $key, "\": "))
    };
}
pub(crate) use key;

/// `,` then a line break and 64 levels of indentation.
const BREAK: &[u8; 130] = b",\n                                                                                                                                ";

/// "00" to "99".
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// The position of the first byte from `from` on that needs escaping, or the length.
#[inline]
fn next_escape(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        if needs_escape(u64::from_le_bytes(word)) {
            break;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if ESCAPE[b as usize] != 0 {
            return i;
        }
        i += 1;
    }
    i
}

/// Whether any of the eight bytes of `word` is a control character, `"` or `\\`.
#[inline]
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    below_space | has_zero(word ^ (ONES * b'"' as u64)) | has_zero(word ^ (ONES * b'\\' as u64))
        != 0
}

/// What each byte becomes in a JSON string: 0 for itself, else the letter after the backslash
/// (`u` for `\u00XX`), as serde_json writes it.
static ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = b'u';
        i += 1;
    }
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0A] = b'n';
    t[0x0C] = b'f';
    t[0x0D] = b'r';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    fn render(v: &Value) -> String {
        let mut bytes = Vec::new();
        let mut out = Out::new(&mut bytes);
        out.value(v);
        out.finish().unwrap();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn values_come_out_as_serde_json_pretty_prints_them() {
        let mut deep = serde_json::json!({
            "leaf": [1, {"k": []}, {}, -7, 2.5, 1e300, -0.0, null, true, false, u64::MAX, i64::MIN],
            "empty": {},
            "s": "quote \" backslash \\ controls \u{0}\u{1f}\u{8}\t\n\u{c}\r del \u{7f} é ☃ 𝄞 /",
            "": ""
        });
        for i in 0..70 {
            deep = serde_json::json!({ format!("level-{i}\n"): [deep, i, []] });
        }
        assert_eq!(
            render(&deep),
            serde_json::to_string_pretty(&deep).unwrap() + "\n"
        );
    }

    #[test]
    fn scalars_and_empty_containers_at_the_top() {
        for v in [
            serde_json::json!([]),
            serde_json::json!({}),
            serde_json::json!("x"),
            serde_json::json!(0),
        ] {
            assert_eq!(render(&v), serde_json::to_string_pretty(&v).unwrap() + "\n");
        }
    }

    #[test]
    fn ids_and_numbers() {
        let mut bytes = Vec::new();
        let mut out = Out::new(&mut bytes);
        out.open_array();
        out.element();
        out.id("task-", 0);
        out.element();
        out.id("msg-", u64::MAX);
        out.element();
        out.i64(-1);
        out.element();
        out.display(format_args!("a{}\"", 1));
        for n in [0, 9, 10, 99, 100, 101, 999, 1000, 12345678901234567890] {
            out.element();
            out.u64(n);
        }
        out.close_array();
        out.finish().unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "[\n  \"task-0\",\n  \"msg-18446744073709551615\",\n  -1,\n  \"a1\\\"\",\n  0,\n  9,\n  10,\n  99,\n  100,\n  101,\n  999,\n  1000,\n  12345678901234567890\n]\n"
        );
    }

    #[test]
    fn chunks_are_handed_on_at_boundaries_only() {
        let mut bytes = Vec::new();
        let mut out = Out::new(&mut bytes);
        out.open_array();
        for i in 0..20_000 {
            out.element();
            out.u64(i);
            out.boundary().unwrap();
        }
        out.close_array();
        out.finish().unwrap();
        let v: Vec<u64> = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v.len(), 20_000);
    }
}
