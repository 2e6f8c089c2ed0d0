//! Positions and hints of the YAML layer.

use super::errors::parse_path;
use super::*;

const DOC: &str = "a: 1\nlist:\n  - x\n  - {k: v, m: [1, 2]}\nmap:\n  inner: yes\n";

#[test]
fn locates_values_by_path() {
    type Row<'a> = (&'a [Seg], Option<(usize, usize)>);
    let rows: &[Row] = &[
        (&[Seg::Key("a".into())], Some((1, 4))),
        (&[Seg::Key("list".into()), Seg::Index(0)], Some((3, 5))),
        (
            &[Seg::Key("list".into()), Seg::Index(1), Seg::Key("m".into())],
            Some((4, 15)),
        ),
        (
            &[
                Seg::Key("list".into()),
                Seg::Index(1),
                Seg::Key("m".into()),
                Seg::Index(1),
            ],
            Some((4, 19)),
        ),
        (
            &[Seg::Key("map".into()), Seg::Key("inner".into())],
            Some((6, 10)),
        ),
        (&[Seg::Key("missing".into())], None),
        (&[Seg::Key("list".into()), Seg::Index(7)], None),
    ];
    for (path, want) in rows {
        assert_eq!(locate(DOC, path), *want, "{path:?}");
    }
}

#[test]
fn a_duplicate_key_is_located_at_its_second_definition() {
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Inner {
        token: String,
    }
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Outer {
        steps: Vec<Inner>,
    }
    let e = parse::<Outer>("steps:\n  - token: a\n    token: b\n").unwrap_err();
    assert_eq!((e.line, e.column), (3, 12), "{}", e.message);
    let e = parse::<Outer>("steps: []\nsteps: []\n").unwrap_err();
    assert_eq!((e.line, e.column), (2, 8), "{}", e.message);
    assert_eq!(
        parse_path("steps[3].send"),
        [
            Seg::Key("steps".into()),
            Seg::Index(3),
            Seg::Key("send".into())
        ]
    );
}

#[test]
fn unknown_keys_get_a_hint() {
    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct S {
        caller: String,
    }
    let e = parse::<S>("calller: x\n").unwrap_err();
    assert_eq!((e.line, e.column), (1, 1));
    assert!(
        e.message.contains("did you mean `caller`?"),
        "{}",
        e.message
    );
}

/// The streaming reader reads what serde_norway reads, to the same value, and leaves everything
/// it cannot read identically (with the error serde_norway reports) to serde_norway.
#[test]
fn the_fast_path_agrees_with_serde_norway_or_gives_up() {
    type V = serde_json::Value;
    let same = "a: 1\nb: -2\nc: text\nd: \"quoted\"\ne: [x, {k: v}]\nf: ~\ng: null\nh:\ni: true\nj: 'it''s'\nk: |\n  block\n  lines\nl: >\n  folded\n  text\nm: 0\n";
    assert!(reads_fast::<V>(same));
    assert_eq!(parse::<V>(same), slow_parse::<V>(same));
    for scenario in
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios")).unwrap()
    {
        let path = scenario.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let text = std::fs::read_to_string(&path).unwrap();
            if reads_fast::<V>(&text) {
                assert_eq!(
                    parse::<V>(&text),
                    slow_parse::<V>(&text),
                    "{}",
                    path.display()
                );
            }
        }
    }
    for hard in [
        "a: &x 1\nb: *x\n",          // aliases
        "a:\n\tb: 1\n",              // a tab
        "a: 1\na: 2\n",              // a duplicate key
        "\u{feff}a: 1\n",            // a BOM
        "a: \"x\u{1}\"\n",           // a control character
        "%YAML 1.1\n---\na: 1\n",    // a directive
        "a: !tag 1\n",               // a tag
        "a: 1.5\nb: 0x10\nc: 007\n", // numbers other than decimal integers
        "a: yes\nb: True\nc: .inf\n",
        "a: 1\n---\nb: 2\n", // two documents
        "a: {b: 1\n",        // a syntax error
    ] {
        assert!(!reads_fast::<V>(hard), "{hard:?}");
        assert_eq!(parse::<V>(hard), slow_parse::<V>(hard), "{hard:?}");
    }
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    assert!(!reads_fast::<V>(&deep));
    assert!(parse::<V>(&deep).is_err());
}
