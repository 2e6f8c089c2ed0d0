//! Byte searches of the scanner (and of the secret scan of `redact`, which reads text that may not
//! parse): a word at a time, without a dependency.

/// The first index in `from..end` of byte `x` or `y`, or `end`: eight bytes at a time.
pub fn find(b: &[u8], from: usize, end: usize, x: u8, y: u8) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let (xs, ys) = (ONES * u64::from(x), ONES * u64::from(y));
    let mut i = from;
    while let Some(chunk) = b.get(i..end).and_then(<[u8]>::first_chunk::<8>) {
        let w = u64::from_le_bytes(*chunk);
        let (a, c) = (w ^ xs, w ^ ys);
        // A byte of `a` or `c` is zero where `w` holds `x` or `y`; the lowest flagged byte is
        // always a true one.
        let zero = (a.wrapping_sub(ONES) & !a | c.wrapping_sub(ONES) & !c) & HIGHS;
        if zero != 0 {
            return i + (zero.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < end && b[i] != x && b[i] != y {
        i += 1;
    }
    i
}
