//! The scanner reads what serde_norway reads, to the same value, or gives up.

use super::super::{scanned, slow_parse, streamed};
use crate::scenario::file::ScenarioFile;

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
fn agrees(doc: &str) -> Option<V> {
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

mod grammar {
    //! Random YAML-ish documents from a small grammar: mostly what the scanner reads, with the
    //! constructs it must give up on (or read exactly) mixed in.

    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed};

    /// Scalars the scanner reads (or whose resolution it refuses), then odd ones.
    const SCALARS: &[&str] = &[
        "a",
        "b c",
        "x-y",
        "sanctions:screen",
        "http://h:1/p#f",
        "it's",
        "a#b",
        "1",
        "-2",
        "0",
        "true",
        "false",
        "null",
        "~",
        "-x",
        "é",
        "'q'",
        "'it''s'",
        "''",
        "\"d\"",
        "\"\\n\\u00e9\\x41\"",
        "\"a\\\"b\"",
        "x # c",
        "[]",
        "{}",
        "a, b]",
    ];
    const ODD: &[&str] = &[
        "007",
        "1.5",
        "1_0",
        "True",
        "yes",
        "n",
        "y",
        "Null",
        "-",
        "@x",
        "&a",
        "*a",
        "!t",
        "|",
        ">",
        "?",
        ":",
        "a: b",
        ",",
        "%",
        "\"\\q\"",
        "'un",
        "\"un",
        "a\tb",
        "c\r",
        ".inf",
        "0x1F",
        "1e3",
        "2001-01-01",
        "a:",
        "[a,",
        "{a: b",
        "a]",
    ];
    const KEYS: &[&str] = &[
        "a", "b", "k", "key", "\"q\"", "'s'", "a b", "1", "null", "a:b",
    ];
    const ODD_KEYS: &[&str] = &["-k", "? c", "&x k", "", "[k]", "k ", "\"k\" "];

    fn scalar() -> impl Strategy<Value = &'static str> + Clone {
        prop_oneof![30 => pick(SCALARS), 1 => pick(ODD)]
    }

    fn key() -> impl Strategy<Value = &'static str> + Clone {
        prop_oneof![30 => pick(KEYS), 1 => pick(ODD_KEYS)]
    }

    fn pick<'a>(from: &'a [&'a str]) -> impl Strategy<Value = &'a str> + Clone {
        (0..from.len()).prop_map(move |i| from[i])
    }

    /// A flow node.
    fn flow() -> impl Strategy<Value = String> {
        let leaf = scalar().prop_map(str::to_string);
        leaf.prop_recursive(3, 12, 4, |inner| {
            prop_oneof![
                (
                    proptest::collection::vec(inner.clone(), 0..4),
                    prop_oneof![9 => Just(", "), 1 => pick(&[",", " , ", ",,"])]
                )
                    .prop_map(|(v, sep)| format!("[{}]", v.join(sep))),
                (
                    proptest::collection::vec((key(), inner), 0..4),
                    prop_oneof![9 => Just(": "), 1 => pick(&[":", " : ", ": ,"])]
                )
                    .prop_map(|(v, colon)| {
                        let entries: Vec<String> = v
                            .into_iter()
                            .map(|(k, v)| format!("{k}{colon}{v}"))
                            .collect();
                        format!("{{{}}}", entries.join(", "))
                    }),
            ]
        })
    }

    /// A block node's lines at `indent` (its first line's indentation is the caller's).
    fn block(depth: u32) -> BoxedStrategy<Vec<(usize, String)>> {
        let value = prop_oneof![4 => scalar().prop_map(str::to_string), 1 => flow()];
        let tail = prop_oneof![9 => Just(""), 1 => pick(&[" # c", "  ", "#c", "\t"])];
        let line = (0..8usize, key(), value, tail);
        let leaf = proptest::collection::vec(line, 1..5)
            .prop_map(|lines| {
                lines
                    .into_iter()
                    .map(|(kind, key, value, tail)| {
                        let text = match kind {
                            0..=3 => format!("{key}: {value}{tail}"),
                            4 => format!("- {value}{tail}"),
                            5 => format!("- {key}: {value}{tail}"),
                            6 => format!("# {value}"),
                            _ => String::new(),
                        };
                        (0, text)
                    })
                    .collect::<Vec<_>>()
            })
            .boxed();
        if depth == 0 {
            return leaf;
        }
        let nested = (
            block(depth - 1),
            key(),
            pick(&["", "- ", "-"]),
            prop_oneof![4 => Just(2usize), 1 => 0..5usize],
            block(depth - 1),
        )
            .prop_map(|(before, key, dash, shift, child)| {
                let mut lines = before;
                lines.push((0, format!("{dash}{key}:")));
                lines.extend(child.into_iter().map(|(i, l)| (i + shift, l)));
                lines
            });
        prop_oneof![2 => leaf, 3 => nested].boxed()
    }

    pub(super) fn document() -> impl Strategy<Value = String> {
        (block(3), pick(&["", "---\n", "# head\n", " "])).prop_map(|(lines, head)| {
            let body: Vec<String> = lines
                .into_iter()
                .map(|(i, l)| format!("{}{l}", " ".repeat(i)))
                .collect();
            format!("{head}{}\n", body.join("\n"))
        })
    }

    proptest! {
        #![proptest_config(Config {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(3000),
            rng_seed: RngSeed::Fixed(0x5ca9_0011),
            failure_persistence: None,
            ..Config::default()
        })]
        #[test]
        fn random_documents_are_read_as_serde_norway_reads_them_or_given_up(doc in document()) {
            super::agrees(&doc);
        }
    }

    proptest! {
        #![proptest_config(Config {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(5000),
            rng_seed: RngSeed::Fixed(0x5ca9_0012),
            failure_persistence: None,
            ..Config::default()
        })]
        /// Byte soup of YAML's punctuation: no panic, and agreement whenever the scanner reads it.
        #[test]
        fn any_text_is_read_as_serde_norway_reads_it_or_given_up(
            tokens in proptest::collection::vec(pick(SOUP), 0..60)
        ) {
            let doc = tokens.concat();
            super::agrees(&doc);
            let _ = crate::scenario::yaml::scanned::<crate::scenario::file::ScenarioFile>(&doc);
        }
    }

    /// The pieces of [`any_text_is_read_as_serde_norway_reads_it_or_given_up`]'s texts.
    const SOUP: &[&str] = &[
        "a", "b", "1", "-", ":", ": ", "#", " ", "  ", "\n", "\n  ", "\n- ", "[", "]", "{", "}",
        ",", "'", "\"", "\\", "é", "\t", "~", "null", "true", "x: ", "- a: ", "\r", "&", "*",
    ];

    /// The grammar is not vacuous: many of its documents are the scanner's, many are not.
    #[test]
    fn the_grammar_makes_both_kinds_of_documents() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::new_with_rng(
            Config::default(),
            proptest::test_runner::TestRng::deterministic_rng(
                proptest::test_runner::RngAlgorithm::ChaCha,
            ),
        );
        let (mut read, mut total) = (0, 0);
        for _ in 0..500 {
            let Ok(tree) = document().new_tree(&mut runner) else {
                continue;
            };
            total += 1;
            read += usize::from(super::agrees(&tree.current()).is_some());
        }
        assert!(
            read * 10 > total && read * 10 < total * 9,
            "{read} of {total}"
        );
    }
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
