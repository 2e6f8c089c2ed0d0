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

/// Every path into a document (keys, items, keys as names), and a few it does not have.
fn paths_of(v: &Value, at: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    out.push(at.clone());
    match v {
        Value::Mapping(m) => {
            for (k, v) in m {
                if let Some(k) = k.as_str() {
                    at.push(Seg::from(k));
                    paths_of(v, at, out);
                    at.pop();
                    out.push([at.as_slice(), &[Seg::KeyName(k.to_string())]].concat());
                }
            }
            out.push([at.as_slice(), &[Seg::Entry(0)]].concat());
            out.push([at.as_slice(), &[Seg::from("no-such-key")]].concat());
        }
        Value::Sequence(items) => {
            for (i, v) in items.iter().enumerate() {
                at.push(Seg::Index(i));
                paths_of(v, at, out);
                at.pop();
            }
            out.push([at.as_slice(), &[Seg::Index(items.len())]].concat());
        }
        _ => {}
    }
}

/// The index locates every value exactly where a probe of the whole text does, in every bundled
/// scenario and malformed file and in texts shaped to trip its line scan.
#[test]
fn the_index_locates_what_the_whole_text_locates() {
    let mut texts: Vec<(String, String)> = [
        "steps:\n- a: 1\n- b: [1,\n    2]\n-   c: 3\n# note\n\nother: {x: 1}\n",
        "steps: [{a: 1}, {b: 2}]\nagents:\n  - x\n  -\n    y\n",
        "a: 1\r\nsteps:\r\n  - x: 1\r\n  - y: 2\r\n",
        "---\nsteps:\n  - x: &a 1\n  - y: *a\n...\n",
        "policy:\n  hosts:\n    - a\n    - b\nsteps:\n  - 1\n",
        "steps:\n  - 1\nsteps:\n  - 2\n",
        "steps:\n  - \"a\n  - b\"\n  - c\n",
        "steps:\n  - x: |\n      - not an item\n    y: 2\n  - z: 3\n",
        "\"steps\":\n  - 1\nsteps:x: 2\nk:v\n",
    ]
    .iter()
    .enumerate()
    .map(|(i, t)| (format!("case {i}"), t.to_string()))
    .collect();
    for dir in ["scenarios", "tests/malformed"] {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(dir);
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if let Ok(t) = std::fs::read_to_string(&path) {
                texts.push((path.display().to_string(), t));
            }
        }
    }
    let mut checked = 0;
    for (name, text) in &texts {
        let index = Index::new(text);
        let mut paths = Vec::new();
        match serde_norway::from_str::<Value>(text) {
            Ok(v) => paths_of(&v, &mut Vec::new(), &mut paths),
            Err(_) => paths.push(vec![Seg::from("steps"), Seg::Index(1)]),
        }
        // A sample of a long file's paths (each costs a parse of the whole text here).
        let stride = paths.len() / 50 + 1;
        for path in paths.iter().step_by(stride) {
            assert_eq!(
                index.locate(text, path),
                locate(text, path),
                "{name}: {path:?}"
            );
            checked += 1;
        }
    }
    assert!(checked > 2_000, "{checked}");
}

/// Locating a problem in every item of a long sequence parses each item, not the whole text
/// each time: the bytes parsed stay a small multiple of the text.
#[test]
fn locating_many_problems_parses_the_text_about_once() {
    let mut text = String::from("agents:\n");
    for i in 0..2_000 {
        text.push_str(&format!(
            "  - name: agent-{i}\n    handler:\n      - working\n      - {{message: \"step {i}\"}}\n"
        ));
    }
    text.push_str("steps:\n");
    for i in 0..2_000 {
        text.push_str(&format!(
            "  - send: {{caller: c, to: agent-{i}, text: hi}}\n"
        ));
    }
    let index = Index::new(&text);
    let before = probed_bytes();
    for i in (0..2_000).step_by(7) {
        let at = [
            Seg::from("agents"),
            Seg::Index(i),
            Seg::from("handler"),
            Seg::Index(1),
        ];
        assert_eq!(index.locate(&text, &at), Some((4 * i + 5, 9)));
        let at = [
            Seg::from("steps"),
            Seg::Index(i),
            Seg::from("send"),
            Seg::from("to"),
        ];
        assert_eq!(index.locate(&text, &at), Some((8003 + i, 27)));
    }
    let parsed = probed_bytes() - before;
    assert!(
        parsed < 2 * text.len(),
        "{parsed} bytes parsed to locate 572 values in a text of {}",
        text.len()
    );
}
