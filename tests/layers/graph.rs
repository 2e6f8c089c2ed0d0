//! The import graph of a crate's files, read from their text: the tokens, the paths of `use`
//! trees and of `crate::`/`super::`/child paths, what a facade re-exports, and the circles.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every circle of `crate::`/`super::` imports among the files under `src`, each as its modules
/// and the imports between them.
pub(super) fn circles(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    walk(src, &mut files);
    let modules: BTreeMap<String, String> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            (
                module_of(f.strip_prefix(src).unwrap_or(f)),
                without_unit_tests(text),
            )
        })
        .collect();
    circles_of(&modules)
}

/// The file without its `#[cfg(test)] mod tests { .. }` block, which closes it by convention:
/// its `super::` is the file's own module, and the build proper never sees it.
pub(super) fn without_unit_tests(text: String) -> String {
    match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

pub(super) fn circles_of(modules: &BTreeMap<String, String>) -> Vec<String> {
    let names: BTreeMap<&str, Names> = modules
        .iter()
        .map(|(m, text)| (m.as_str(), names_of(m, text, modules)))
        .collect();
    let edges: BTreeMap<&str, BTreeMap<&str, BTreeSet<String>>> = modules
        .iter()
        .map(|(m, text)| (m.as_str(), imports(m, text, modules, &names)))
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

pub(super) fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
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
pub(super) fn module_of(rel: &Path) -> String {
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
pub(super) fn imports<'m>(
    module: &str,
    text: &str,
    modules: &'m BTreeMap<String, String>,
    names: &BTreeMap<&str, Names>,
) -> BTreeMap<&'m str, BTreeSet<String>> {
    let tokens = tokenize(text);
    let here: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
    let mut out: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (i, t) in tokens.iter().enumerate() {
        let after_path = i > 0 && tokens[i - 1] == "::";
        // A path into one of this module's own children (`split::parse(..)`, `pub use split::X`).
        let child = is_ident(t)
            && !matches!(t.as_str(), "crate" | "super" | "self")
            && modules.contains_key(&child_of(&here, t));
        if after_path || !(t == "crate" || t == "super" || child) {
            continue;
        }
        let mut base: Vec<String> = Vec::new();
        let mut j = i;
        if child {
            base = here.iter().map(|s| s.to_string()).collect();
        } else if t == "super" {
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
            // The module that defines what the path names: the longest prefix that is a module,
            // followed through the re-exports of a facade (`pub use child::Item`) to its source.
            let Some((from, item)) = resolve(&path, modules, names, 0) else {
                continue;
            };
            if from != module
                && let Some((name, _)) = modules.get_key_value(from.as_str())
            {
                out.entry(name.as_str())
                    .or_default()
                    .insert(if item.is_empty() { "*".into() } else { item });
            }
        }
    }
    out
}

/// What a module's own names are: the items it defines, the names it imports or re-exports from
/// elsewhere (`use child::Item`, each with its path), and the modules whose every name it brings
/// in (`use child::*`).
#[derive(Default)]
pub(super) struct Names {
    defined: BTreeSet<String>,
    reexported: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
}

pub(super) fn names_of(module: &str, text: &str, modules: &BTreeMap<String, String>) -> Names {
    let tokens = tokenize(text);
    let here: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
    let mut names = Names::default();
    for (i, t) in tokens.iter().enumerate() {
        let next = tokens.get(i + 1).map(String::as_str).unwrap_or("");
        let keyword = [
            "fn", "struct", "enum", "const", "static", "type", "trait", "union", "mod",
        ];
        if keyword.contains(&t.as_str()) && is_ident(next) {
            names.defined.insert(next.to_string());
        }
        // Every `use`, public or not: a child module sees its parent's private imports too.
        if t != "use" {
            continue;
        }
        let mut j = i + 1;
        let mut base: Vec<String> = here.iter().map(|s| s.to_string()).collect();
        match next {
            "crate" => {
                base.clear();
                j += 2;
            }
            "super" => {
                while tokens.get(j).is_some_and(|t| t == "super") {
                    base.pop();
                    j += 2;
                }
            }
            "self" => j += 2,
            first if modules.contains_key(&child_of(&here, first)) => {}
            // Another crate's items (`pub use engine::X`): no file of this crate is behind them.
            _ => {
                let mut paths = Vec::new();
                use_tree(&tokens, &mut j, Vec::new(), &mut paths);
                for path in paths {
                    if let Some(last) = path.last().filter(|l| *l != "*") {
                        names.reexported.insert(last.clone(), Vec::new());
                    }
                }
                continue;
            }
        }
        let mut paths = Vec::new();
        use_tree(&tokens, &mut j, base, &mut paths);
        for path in paths {
            match path.split_last() {
                Some((last, prefix)) if last == "*" => names.globs.push(prefix.to_vec()),
                Some((last, _)) => {
                    names.reexported.insert(last.clone(), path.clone());
                }
                None => {}
            }
        }
    }
    names
}

/// The module that defines what `path` names, and the item it names there: the longest prefix of
/// `path` that is a module, then through that module's re-exports while it only passes the item on.
pub(super) fn resolve(
    path: &[String],
    modules: &BTreeMap<String, String>,
    names: &BTreeMap<&str, Names>,
    depth: usize,
) -> Option<(String, String)> {
    let k = (1..=path.len())
        .rev()
        .find(|&k| modules.contains_key(&path[..k].join("::")))?;
    let module = path[..k].join("::");
    let item = path[k..].join("::");
    let (Some(first), Some(own)) = (path.get(k), names.get(module.as_str())) else {
        return Some((module, item));
    };
    if depth > 8 || first == "*" || own.defined.contains(first) {
        return Some((module, item));
    }
    if let Some(source) = own.reexported.get(first) {
        if source.is_empty() {
            // Another crate's item, passed on: no edge to a file.
            return None;
        }
        let mut onward = source.clone();
        onward.extend_from_slice(&path[k + 1..]);
        return resolve(&onward, modules, names, depth + 1).or(Some((module, item)));
    }
    for glob in &own.globs {
        if provides(&glob.join("::"), first, names, depth + 1) {
            let mut onward = glob.clone();
            onward.extend_from_slice(&path[k..]);
            return resolve(&onward, modules, names, depth + 1);
        }
    }
    Some((module, item))
}

/// Whether `module` has `name` of its own or re-exports it.
pub(super) fn provides(
    module: &str,
    name: &str,
    names: &BTreeMap<&str, Names>,
    depth: usize,
) -> bool {
    let Some(own) = names.get(module) else {
        return false;
    };
    own.defined.contains(name)
        || own.reexported.contains_key(name)
        || depth < 8
            && own
                .globs
                .iter()
                .any(|g| provides(&g.join("::"), name, names, depth + 1))
}

/// `a::b` and `c` → `a::b::c`; the root and `c` → `c`.
pub(super) fn child_of(here: &[&str], name: &str) -> String {
    let mut path: Vec<&str> = here.to_vec();
    path.push(name);
    path.join("::")
}

/// Reads one use tree at `tokens[*j]` (after `crate::`), pushing each full path it names.
pub(super) fn use_tree(
    tokens: &[String],
    j: &mut usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) {
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
                    prefix.push("*".into());
                }
                out.push(prefix);
                return;
            }
        }
    }
}

pub(super) fn is_ident(t: &str) -> bool {
    t.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Identifiers, `::`, and every other character on its own; comments, strings (raw ones too)
/// and character literals are skipped.
pub(super) fn tokenize(code: &str) -> Vec<String> {
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
pub(super) fn strongly_connected<'m>(
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
