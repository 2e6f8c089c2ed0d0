//! Inside each crate, files import one another without a circle: shared words (indices, codes,
//! the data map) sit in modules that import no behaviour, and a file that extends the `World`
//! is imported by none of the files the `World` is made of. An import is followed through a
//! facade's re-exports to the file that defines the item, and a parent's own paths into its
//! children count too. A circle shows here as the modules it joins and the imports between them.

mod graph;

use std::path::Path;

use graph::{circles, circles_of, module_of, tokenize, use_tree, walk, without_unit_tests};

/// The crates checked, by source folder.
const ROOTS: [&str; 7] = [
    "crates/engine/src",
    "crates/token/src",
    "crates/scenario/src",
    "crates/output/src",
    "crates/serve/src",
    "src",
    "tools/gen/src",
];

#[test]
fn no_crate_has_an_import_circle_between_its_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = String::new();
    for dir in ROOTS {
        for circle in circles(&root.join(dir)) {
            found.push_str(&format!("{dir}: {circle}\n"));
        }
    }
    assert!(found.is_empty(), "import circles:\n{found}");
}

#[test]
fn a_circle_is_found_through_grouped_and_super_imports() {
    // a and a::inner import b, by a group and by `super::super`; b imports both back. c and d
    // name `a` only in a string and a comment, which import nothing.
    let files = [
        ("lib", "mod a; mod b; mod c; mod d;"),
        ("a/mod", "use crate::{b::Thing, c};"),
        ("a/inner", "use super::super::b::Other;"),
        ("b", "use crate::a::{Y, inner::X};"),
        ("c", "use crate::d; const S: &str = \"crate::a\";"),
        (
            "d",
            "// use crate::a;\n/* crate::a */ const C: char = '\"';",
        ),
    ];
    let modules = files
        .iter()
        .map(|(path, text)| (module_of(Path::new(path)), text.to_string()))
        .collect();
    let circles = circles_of(&modules);
    assert_eq!(circles.len(), 1, "{circles:?}");
    assert!(circles[0].starts_with("[a, a::inner, b]"), "{}", circles[0]);
}

#[test]
fn a_circle_is_followed_through_a_facades_re_exports_and_its_own_paths() {
    // `b` imports `X` from the facade `a`, which only passes on `a::inner`'s: the edge is
    // b → a::inner, and a::inner imports b back. `c` uses its child by a relative path and the
    // child imports `c`'s own item: a circle too. `d` re-exports another crate's item and its
    // unit tests import `super::*`: neither is an edge.
    let files = [
        ("lib", "mod a; mod b; mod c; mod d;"),
        ("a/mod", "mod inner; pub use inner::X;"),
        ("a/inner", "pub struct X; use crate::b::Y;"),
        ("b", "pub struct Y; use crate::a::X;"),
        ("c/mod", "mod part; pub struct W; fn f() { part::g(); }"),
        ("c/part", "use super::W; pub fn g() {}"),
        (
            "d",
            "pub use engine::X; fn h() {}\n#[cfg(test)]\nmod tests { use super::*; use crate::d::h; }",
        ),
    ];
    let modules = files
        .iter()
        .map(|(path, text)| {
            (
                module_of(Path::new(path)),
                without_unit_tests(text.to_string()),
            )
        })
        .collect();
    let circles = circles_of(&modules);
    assert_eq!(circles.len(), 2, "{circles:?}");
    assert!(circles[0].starts_with("[a::inner, b]"), "{}", circles[0]);
    assert!(circles[1].starts_with("[c, c::part]"), "{}", circles[1]);
}

/// The engine touches nothing outside itself. Its crate depends on no crate that does I/O, async,
/// YAML or crypto (its Cargo.toml); this holds it to the same for the standard library: no files,
/// sockets, processes, threads, environment, clock or standard streams.
#[test]
fn the_engine_uses_no_io_of_the_standard_library() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("crates/engine/src"), &mut files);
    // Read as tokens (comments and strings left out), with `std::{..}` groups expanded.
    let io = ["fs", "net", "process", "thread", "env", "time", "io"];
    let named = [
        "SystemTime",
        "Instant",
        "dbg",
        "println",
        "eprintln",
        "print",
        "eprint",
    ];
    let mut found = Vec::new();
    for file in files {
        let tokens = tokenize(&std::fs::read_to_string(&file).unwrap());
        for (i, t) in tokens.iter().enumerate() {
            if named.contains(&t.as_str()) {
                found.push(format!("{}: {t}", file.display()));
            }
            if t == "std" && tokens.get(i + 1).is_some_and(|t| t == "::") {
                let mut paths = Vec::new();
                use_tree(&tokens, &mut (i + 2), vec!["std".into()], &mut paths);
                for path in paths
                    .iter()
                    .filter(|p| p.len() > 1 && io.contains(&p[1].as_str()))
                {
                    found.push(format!("{}: {}", file.display(), path.join("::")));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the engine reaches outside:\n{}",
        found.join("\n")
    );
    let manifest = std::fs::read_to_string(root.join("crates/engine/Cargo.toml")).unwrap();
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .and_then(|d| d.split("\n[").next())
        .unwrap_or("");
    for name in [
        "tokio",
        "hyper",
        "serde_norway",
        "saphyr",
        "jsonwebtoken",
        "a2a-sim-",
    ] {
        assert!(!deps.contains(name), "the engine depends on {name}");
    }
}

/// Only the binary prints: the library crates hand back what there is to say (an error, a
/// report, `serve`'s log lines through the function the binary gives it), and `main` or a
/// command of the binary writes it.
#[test]
fn only_the_binary_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for dir in &ROOTS[..5] {
        let mut files = Vec::new();
        walk(&root.join(dir), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if [
                    "println!(",
                    "print!(",
                    "eprint!(",
                    "io::stdout(",
                    "io::stderr(",
                ]
                .iter()
                .any(|m| code.contains(m))
                {
                    found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "a library crate prints:\n{}",
        found.join("\n")
    );
}
