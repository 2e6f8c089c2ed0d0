//! The scanner reads what serde_norway reads, to the same value, or gives up.

use super::super::{scanned, slow_parse};

type V = serde_json::Value;

#[test]
fn smoke() {
    let doc = "a: 1\nb: [x, {k: v}]\nc:\n  - d: e\n    f: 'g'\n  - \"h\"\n";
    let v: V = scanned(doc).unwrap();
    assert_eq!(Ok(v), slow_parse::<V>(doc));
}
