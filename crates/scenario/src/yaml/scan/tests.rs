//! The scanner reads what serde_norway reads, to the same value, or gives up.

use super::super::{scanned, slow_parse, streamed};
use crate::file::ScenarioFile;

type V = serde_json::Value;

/// What a one-liner must do: be read by the scanner, or be given up on.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Want {
    Read,
    GiveUp,
    /// serde_norway's own reading decides (the scanner must agree if it reads it).
    Either,
}
use Want::*;

/// The scanner either gives up on `doc` or reads it as serde_norway does (as a value tree, so
/// every scalar's resolution shows).
pub(super) fn agrees(doc: &str) -> Option<V> {
    let got = scanned::<V>(doc)?;
    assert_eq!(Ok(&got), slow_parse::<V>(doc).as_ref(), "{doc:?}");
    Some(got)
}

const TABLE: &[(&str, Want)] = &[
    // Structure.
    ("a: b\n", Read),
    ("a: b", Read),
    ("a: b # c\n", Read),
    ("a: b#c\n", Read),
    ("a: 'b' # c\n", Read),
    ("a: \"b\"   # c\n", Read),
    ("# c\n\na: 1\n\n# d\n", Read),
    ("---\na: 1\n", Read),
    ("--- # c\na: 1\n", Read),
    ("a:b\n", GiveUp),
    ("a: b:c\n", Read),
    ("a: b: c\n", GiveUp),
    ("a :b\n", GiveUp),
    ("a : b\n", GiveUp),
    ("- - x\n  - w\n- z\n", Read),
    ("- - - x\n", Read),
    ("-\n  a: 1\n-\n- x\n", Read),
    ("{a: [1, 2]}\n", Read),
    ("[a, {b: c}, [d]]\n", Read),
    ("{}\n", Read),
    ("[]\n", Read),
    ("a: {}\nb: []\n", Read),
    ("a:\nb: 1\n", Read),
    ("a:\n", Read),
    ("a:\n  b:\n    c: 1\n  d: 2\ne: 3\n", Read),
    ("a:\n- x\n- w\nb: 1\n", Read),
    ("a:\n  - x\n  -\n  - w\n", Read),
    ("- a:\n  - x\n  b: 1\n- c\n", Read),
    ("- a: 1\n  b: [x, w]\n- {c: d}\n", Read),
    ("- a: 1\n   b: 2\n", GiveUp),
    ("a:\n    b: 1\n  c: 2\n", GiveUp),
    ("a: 1\n b: 2\n", GiveUp),
    ("  a: 1\n  b: 2\n", Read),
    ("  a: 1\nb: 2\n", GiveUp),
    ("a: b\n  c\n", GiveUp),
    ("a:\n  b\n", GiveUp),
    ("- a\nb: 1\n", GiveUp),
    ("a: 1\n- b\n", GiveUp),
    ("a: - b\n", GiveUp),
    ("? complex\n: value\n", GiveUp),
    ("[a]: b\n", GiveUp),
    ("{a: b}: c\n", GiveUp),
    ("a: 1\n---\nb: 2\n", GiveUp),
    ("a: 1\n...\n", GiveUp),
    ("%YAML 1.1\n---\na: 1\n", GiveUp),
    ("a: &x 1\nb: *x\n", GiveUp),
    ("a: !tag 1\n", GiveUp),
    ("a: !!str 1\n", GiveUp),
    ("a: |\n  x\n", GiveUp),
    ("a: >\n  x\n", GiveUp),
    ("a: \"x\n  y\"\n", GiveUp),
    ("a: 'x\n  y'\n", GiveUp),
    ("a: [x,\n  y]\n", GiveUp),
    ("a:\n\tb: 1\n", GiveUp),
    ("a: b\tc\n", GiveUp),
    ("a: b\r\n", GiveUp),
    ("\u{feff}a: 1\n", GiveUp),
    ("a: \"x\u{1}\"\n", GiveUp),
    ("a: \u{85}\n", GiveUp),
    ("a: x\u{2028}y\n", GiveUp),
    ("a: 1\na: 2\n", GiveUp),
    ("a: {b: 1, b: 2}\n", GiveUp),
    ("a: @x\n", GiveUp),
    ("a: `x\n", GiveUp),
    ("a: %x\n", GiveUp),
    ("a: ?x\n", GiveUp),
    ("a: :x\n", GiveUp),
    ("a: [b, ]\n", GiveUp),
    ("a: [b,, c]\n", GiveUp),
    ("a: {b}\n", GiveUp),
    ("a: {b: }\n", GiveUp),
    ("a: {b:c}\n", GiveUp),
    ("a: {\"b\":c}\n", GiveUp),
    ("a: {b: c d, e: 'f'}\n", Read),
    ("a: [b: c]\n", GiveUp),
    ("a: [b #c]\n", GiveUp),
    ("a: [b]#c\n", GiveUp),
    ("a: [b] x\n", GiveUp),
    ("a: \"b\" x\n", GiveUp),
    ("a: [http://x]\n", Read),
    ("a: [b:c, d]\n", Read),
    ("a: {b:c: d}\n", Read),
    ("a: [b:, c]\n", GiveUp),
    ("a: [b:]\n", GiveUp),
    ("a: [b:[c]]\n", GiveUp),
    ("a: http://x:8080/y?z=1#f\n", Read),
    ("a: x, y]\n", Read),
    ("a: it's\n", Read),
    ("<<: {a: 1}\n", Either),
    ("a: =\n", Either),
    ("", GiveUp),
    ("# only\n", GiveUp),
    ("hello\n", GiveUp),
    ("'hello'\n", GiveUp),
    // Quoted scalars.
    ("key: 'it''s'\n", Read),
    ("key: ''''\n", Read),
    ("key: ''\n", Read),
    ("key: \"\"\n", Read),
    ("key: \"\\u00e9\"\n", Read),
    (
        "key: \"\\x41\\t\\n\\\\\\\"\\/\\0\\a\\b\\e\\f\\v\\r\"\n",
        Read,
    ),
    ("key: \"\\U0001F600\"\n", Read),
    ("key: \"\\ud800\"\n", GiveUp),
    ("key: \"\\q\"\n", GiveUp),
    ("key: \"\\N\\_\\L\\P\"\n", GiveUp),
    ("key: \"\\\n  x\"\n", GiveUp),
    ("key: \"a # b\"\n", Read),
    ("key: 'a: b'\n", Read),
    ("\"quoted key\": 1\n'single key': 2\n", Read),
    ("\"a\" : 1\n", GiveUp),
    ("key: é\n", Read),
    ("key: \"é ü 日本\"\n", Read),
    ("é: ü\n", Read),
    // Scalar resolution: only strings, decimal integers, true, false and null are read.
    ("a: 1\nb: -2\nc: 0\nd: 123456789012\n", Read),
    ("a: 1_000\n", GiveUp),
    ("a: 0x1F\n", GiveUp),
    ("a: 0o17\n", GiveUp),
    ("a: 017\n", GiveUp),
    ("a: 1e3\n", GiveUp),
    ("a: .5\n", GiveUp),
    ("a: 1.5\n", GiveUp),
    ("a: +1\n", GiveUp),
    ("a: -0\n", GiveUp),
    ("a: 99999999999999999999\n", GiveUp),
    ("a: .inf\n", GiveUp),
    ("a: -.inf\n", GiveUp),
    ("a: .NaN\n", GiveUp),
    ("a: 1:30\n", GiveUp),
    ("a: 2001-12-14\n", GiveUp),
    ("a: null\nb: ~\nc:\n", Read),
    ("a: Null\n", GiveUp),
    ("a: NULL\n", GiveUp),
    ("a: true\nb: false\n", Read),
    ("a: True\n", GiveUp),
    ("a: TRUE\n", GiveUp),
    ("a: yes\n", GiveUp),
    ("a: No\n", GiveUp),
    ("a: on\n", GiveUp),
    ("a: off\n", GiveUp),
    ("a: y\n", GiveUp),
    ("a: n\n", GiveUp),
    ("a: [1, -2, true, null, ~, x]\n", Read),
    ("a: {b: 1, c: \"2\", d: '3'}\n", Read),
    ("a: truex\nb: nullable\nc: x1\n", Read),
    ("1: a\n", Read),
    ("null: a\n", Read),
];

#[test]
fn tricky_one_liners_are_read_as_serde_norway_reads_them_or_given_up() {
    let wrong: Vec<_> = TABLE
        .iter()
        .filter(|&&(doc, want)| want != Either && agrees(doc).is_some() != (want == Read))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The typed file model reads through `deserialize_str`, `deserialize_option` and the like, not
/// `deserialize_any`: an empty value into a string, a number into a string, `null` into one.
#[test]
fn typed_reads_agree_with_serde_norway() {
    let base = "callers:\n  - name: c\n    scopes: [a, \"b\"]\n";
    for (extra, want) in [
        ("name: 123\n", Read),
        ("name: ~\n", Read),
        ("name: null\n", Read),
        ("name:\n", Read),
        ("name: ''\n", Read),
        ("name: true\n", Read),
        ("name: [x]\n", GiveUp),
        ("golden: false\n", Read),
        (
            "steps:\n  - send: {caller: c, to: a, text: hi, as: t1}\n  - get: {caller: c, task: t1}\n  - wait: 3\n",
            Read,
        ),
        (
            "steps:\n  - send: {caller: c, to: {discover: [x, y]}, text: \"\", data: {a: 1, b: [true, null]}}\n",
            Read,
        ),
        (
            "steps:\n  - send: {caller: c, to: a, text: x, data: {a: 1.5}}\n",
            GiveUp,
        ),
    ] {
        let doc = format!("{base}{extra}");
        let slow = slow_parse::<ScenarioFile>(&doc).map(|f| format!("{f:?}"));
        let got = scanned::<ScenarioFile>(&doc).map(|f| format!("{f:?}"));
        if let Some(got) = &got {
            assert_eq!(Ok(got), slow.as_ref(), "{doc}");
        }
        assert_eq!(got.is_some(), want == Read, "{doc}");
        // The saphyr path (the scanner's fall-back) must agree too.
        if let Some(streamed) = streamed::<ScenarioFile>(&doc).map(|f| format!("{f:?}")) {
            assert_eq!(Ok(streamed), slow, "{doc}");
        }
    }
}

/// Scalars read as strings whatever they look like, and empty values, into a typed struct.
#[test]
fn strings_and_empty_values_agree_with_serde_norway() {
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct S {
        a: String,
        b: Option<String>,
        c: Option<Vec<String>>,
        d: Option<bool>,
        e: Option<i64>,
    }
    let mut read = 0;
    for a in [
        "", "~", "null", "1", "-1", "true", "x", "''", "\"\"", "yes", "1.5",
    ] {
        for b in ["", "~", "null", "x", "0"] {
            let doc = format!("a: {a}\nb: {b}\nc: [{a}]\nd: true\ne: -7\n");
            let slow = slow_parse::<S>(&doc).map(|s| format!("{s:?}"));
            if let Some(got) = scanned::<S>(&doc).map(|s| format!("{s:?}")) {
                assert_eq!(Ok(got), slow, "{doc}");
                read += 1;
            }
            if let Some(got) = streamed::<S>(&doc).map(|s| format!("{s:?}")) {
                assert_eq!(Ok(got), slow, "saphyr path: {doc}");
            }
        }
    }
    assert!(read >= 30, "{read}");
}

/// The eight-bytes-at-a-time search finds what a byte loop finds.
#[test]
fn find_is_a_byte_search() {
    let text = b"ab\"cd\\ef\n\n\x80\xffgh\"''ijklmnopqrstuvwxyz\"\n0123456789abcdef\\";
    for from in 0..text.len() {
        for end in from..=text.len() {
            for (x, y) in [(b'"', b'\\'), (b'\n', b'\n'), (b'\'', b'\''), (0xff, b'z')] {
                let naive = (from..end)
                    .find(|&i| text[i] == x || text[i] == y)
                    .unwrap_or(end);
                assert_eq!(
                    super::super::find(text, from, end, x, y),
                    naive,
                    "{from} {end} {x}"
                );
            }
        }
    }
}

/// A mapping of many keys is read in linear time, and a repeated key among them is still given
/// up on (serde_norway's to report).
#[test]
fn many_keys_are_checked_for_duplicates_without_quadratic_time() {
    let keys: Vec<String> = (0..50_000).map(|i| format!("k{i}: {i}")).collect();
    let doc = format!("a: {{{}}}\n", keys.join(", "));
    let start = std::time::Instant::now();
    assert!(agrees(&doc).is_some());
    let dup = format!("a: {{{}, k49999: 1}}\n", keys.join(", "));
    assert!(scanned::<V>(&dup).is_none());
    let dup_early = format!("a: {{k3: 0, {}}}\n", keys[..20].join(", "));
    assert!(scanned::<V>(&dup_early).is_none());
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
}

/// libyaml breaks lines at U+2028 and U+2029 (and NEL), YAML 1.2's saphyr-parser does not: the
/// saphyr path used to read `a: x\u{2028}y` as one string where serde_norway reports an error at
/// 3:1, and `a: x\u{2029}` as `"x\u{2029}"` where serde_norway reads `"x"`. Both fast paths give up.
#[test]
fn unicode_line_breaks_are_left_to_serde_norway() {
    for doc in [
        "a: x\u{2028}y\n",
        "a: x\u{2029}\n",
        "a: \"x\u{2028}y\"\n",
        "a: x\u{85}y\n",
    ] {
        assert!(scanned::<V>(doc).is_none(), "{doc:?}");
        assert!(streamed::<V>(doc).is_none(), "{doc:?}");
        assert_eq!(
            super::super::parse::<V>(doc),
            slow_parse::<V>(doc),
            "{doc:?}"
        );
    }
}
