//! Inside each crate, files import one another without a circle: shared words (indices, codes,
//! the data map) sit in modules that import no behaviour, and a file that extends the `World`
//! is imported by none of the files the `World` is made of. A circle shows here as the modules it
//! joins and the imports between them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

/// The engine touches nothing outside itself. Its crate depends on no crate that does I/O, async,
/// YAML or crypto (its Cargo.toml); this holds it to the same for the standard library: no files,
/// sockets, processes, threads, environment, clock or standard streams.
#[test]
fn the_engine_uses_no_io_of_the_standard_library() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("crates/engine/src"), &mut files);
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let io = [
                "std::fs",
                "std::net",
                "std::process",
                "std::thread",
                "std::env",
                "std::time",
                "std::io",
                "SystemTime",
                "Instant",
                "println!",
                "print!(",
            ];
            if io.iter().any(|m| code.contains(m)) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
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

/// Every circle of `crate::`/`super::` imports among the files under `src`, each as its modules
/// and the imports between them.
fn circles(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    walk(src, &mut files);
    let modules: BTreeMap<String, String> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            (module_of(f.strip_prefix(src).unwrap_or(f)), text)
        })
        .collect();
    circles_of(&modules)
}

fn circles_of(modules: &BTreeMap<String, String>) -> Vec<String> {
    let edges: BTreeMap<&str, BTreeMap<&str, BTreeSet<String>>> = modules
        .iter()
        .map(|(m, text)| (m.as_str(), imports(m, text, modules)))
        .collect();
    let mut out = Vec::new();
    for set in strongly_connected(&edges) {
        let mut shown = format!("[{}]", set.iter().copied().collect::<Vec<_>>().join(", "));
        for m in &set {
            for (to, items) in &edges[m] {
                if set.contains(to) {
                    let items: Vec<&str> = items.iter().map(String::as_str).collect();
                    shown.push_str(&format!("\n    {m} -> {to}: {}", items.join(", ")));
                }
            }
        }
        out.push(shown);
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `record/mod.rs` → `record`, `scenario/steps.rs` → `scenario::steps`, `lib.rs` → the root.
/// A `main.rs` beside a `lib.rs` is another crate: it keeps its name, and no module imports it.
fn module_of(rel: &Path) -> String {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts.join("::")
}

/// The other modules `module` imports from (each with the items it names), found in its
/// `crate::` and `super::` paths, grouped ones too.
fn imports<'m>(
    module: &str,
    text: &str,
    modules: &'m BTreeMap<String, String>,
) -> BTreeMap<&'m str, BTreeSet<String>> {
    let tokens = tokenize(text);
    let here: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
    let mut out: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (i, t) in tokens.iter().enumerate() {
        let after_path = i > 0 && tokens[i - 1] == "::";
        if after_path || !(t == "crate" || t == "super") {
            continue;
        }
        let mut base: Vec<String> = Vec::new();
        let mut j = i;
        if t == "super" {
            let mut up = here.clone();
            while tokens.get(j).is_some_and(|t| t == "super")
                && tokens.get(j + 1).is_some_and(|t| t == "::")
            {
                up.pop();
                j += 2;
            }
            base = up.iter().map(|s| s.to_string()).collect();
        } else {
            j += 2;
        }
        if i + 1 >= tokens.len() || tokens[i + 1] != "::" {
            continue;
        }
        let mut paths = Vec::new();
        use_tree(&tokens, &mut j, base, &mut paths);
        for path in paths {
            // The longest prefix that is a module is the module imported from.
            for k in (1..=path.len()).rev() {
                let candidate = path[..k].join("::");
                if let Some((name, _)) = modules.get_key_value(&candidate) {
                    if candidate != module {
                        let item = path[k..].join("::");
                        out.entry(name.as_str())
                            .or_default()
                            .insert(if item.is_empty() { "*".into() } else { item });
                    }
                    break;
                }
            }
        }
    }
    out
}

/// Reads one use tree at `tokens[*j]` (after `crate::`), pushing each full path it names.
fn use_tree(tokens: &[String], j: &mut usize, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    loop {
        match tokens.get(*j).map(String::as_str) {
            Some("{") => {
                *j += 1;
                loop {
                    match tokens.get(*j).map(String::as_str) {
                        Some("}") | None => {
                            *j += 1;
                            return;
                        }
                        Some(",") => *j += 1,
                        _ => {
                            let at = *j;
                            use_tree(tokens, j, prefix.clone(), out);
                            *j = (*j).max(at + 1);
                        }
                    }
                }
            }
            Some(t) if is_ident(t) && t != "as" => {
                if t != "self" {
                    prefix.push(t.to_string());
                }
                *j += 1;
                if tokens.get(*j).map(String::as_str) == Some("::") {
                    *j += 1;
                    continue;
                }
                if tokens.get(*j).map(String::as_str) == Some("as") {
                    *j += 2;
                }
                out.push(prefix);
                return;
            }
            other => {
                if other == Some("*") {
                    *j += 1;
                }
                out.push(prefix);
                return;
            }
        }
    }
}

fn is_ident(t: &str) -> bool {
    t.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Identifiers, `::`, and every other character on its own; comments, strings (raw ones too)
/// and character literals are skipped.
fn tokenize(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or(' ');
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if matches!(word.as_str(), "r" | "br") && matches!(at(i), '#' | '"') {
                let hashes = chars[i..].iter().take_while(|&&c| c == '#').count();
                i += hashes + 1;
                while i < chars.len()
                    && !(chars[i] == '"' && (1..=hashes).all(|h| at(i + h) == '#'))
                {
                    i += 1;
                }
                i += hashes + 1;
            } else {
                out.push(word);
            }
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && at(i + 1) == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '\'' && (at(i + 1) == '\\' || at(i + 2) == '\'') {
            // A character literal (a lifetime has no closing quote).
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == ':' && at(i + 1) == ':' {
            out.push("::".into());
            i += 2;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// The strongly connected sets of more than one module (Tarjan), each sorted.
fn strongly_connected<'m>(
    edges: &BTreeMap<&'m str, BTreeMap<&'m str, BTreeSet<String>>>,
) -> Vec<BTreeSet<&'m str>> {
    struct State<'m> {
        index: BTreeMap<&'m str, usize>,
        low: BTreeMap<&'m str, usize>,
        stack: Vec<&'m str>,
        on_stack: BTreeSet<&'m str>,
        found: Vec<BTreeSet<&'m str>>,
    }
    fn visit<'m>(
        v: &'m str,
        edges: &BTreeMap<&'m str, BTreeMap<&'m str, BTreeSet<String>>>,
        s: &mut State<'m>,
    ) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in edges[v].keys() {
            if !s.index.contains_key(w) {
                visit(w, edges, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut set = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                set.insert(w);
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                s.found.push(set);
            }
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for &v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(v, edges, &mut s);
        }
    }
    s.found
}
