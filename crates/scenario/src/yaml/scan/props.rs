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
        super::tests::agrees(&doc);
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
        super::tests::agrees(&doc);
        let _ = crate::yaml::scanned::<crate::file::ScenarioFile>(&doc);
    }
}

/// The pieces of [`any_text_is_read_as_serde_norway_reads_it_or_given_up`]'s texts.
const SOUP: &[&str] = &[
    "a", "b", "1", "-", ":", ": ", "#", " ", "  ", "\n", "\n  ", "\n- ", "[", "]", "{", "}", ",",
    "'", "\"", "\\", "é", "\t", "~", "null", "true", "x: ", "- a: ", "\r", "&", "*",
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
        read += usize::from(super::tests::agrees(&tree.current()).is_some());
    }
    assert!(
        read * 10 > total && read * 10 < total * 9,
        "{read} of {total}"
    );
}
