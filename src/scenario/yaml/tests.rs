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
