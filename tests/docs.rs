//! The documentation, held to the binary: every ```console block of the README and the book runs
//! (trycmd), every flag a ```sh block shows exists, every file a block shows is the file on disk,
//! and every `behaviour.md §N`-style citation in the code lands on a section of the book.
//!
//! `TRYCMD=overwrite cargo test --test docs` rewrites the console blocks from what the binary
//! prints; read the diff before committing it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_a2a-sim");

/// The README and every page of the book, in sorted order.
fn pages() -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("README.md"), PathBuf::from("CHANGELOG.md")];
    let mut stack = vec![PathBuf::from("docs/src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("docs/src is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// A fenced block: its info string, its first line's number (1-based) and its text.
struct Block {
    info: String,
    line: usize,
    text: String,
    /// The `<!-- file: PATH -->` marker on the line before the fence, if any.
    file: Option<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    let mut previous = "";
    while let Some((n, line)) = lines.next() {
        let Some(info) = line.trim_start().strip_prefix("```") else {
            previous = line;
            continue;
        };
        let indent = line.len() - line.trim_start().len();
        let file = previous
            .trim()
            .strip_prefix("<!-- file: ")
            .and_then(|r| r.strip_suffix(" -->"))
            .map(str::to_owned);
        let mut body = String::new();
        for (_, l) in lines.by_ref() {
            if l.trim_start().starts_with("```") {
                break;
            }
            body.push_str(l.get(indent..).unwrap_or(l.trim_start()));
            body.push('\n');
        }
        out.push(Block {
            info: info.trim().to_owned(),
            line: n + 2,
            text: body,
            file,
        });
        previous = "";
    }
    out
}

#[test]
fn console_blocks_print_what_the_docs_show() {
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("a2a-sim", Path::new(BIN))
        .env("NO_COLOR", "1");
    for page in pages() {
        cases.case(page);
    }
    cases.run();
}

/// trycmd reads a fence without an info string as commands, so every block names its language:
/// `console` (run), `yaml`, `json`, `sh` (not run: flags checked below), `text`, ….
#[test]
fn every_block_names_its_language() {
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("a page");
        for b in blocks(&text) {
            assert!(
                !b.info.is_empty(),
                "{}:{}: a ``` block without a language (trycmd would run it)",
                page.display(),
                b.line - 1
            );
        }
    }
}

/// A block marked `<!-- file: PATH -->` shows that file, byte for byte.
#[test]
fn blocks_that_show_a_file_show_it_as_it_is() {
    let mut shown = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("a page");
        for b in blocks(&text) {
            let Some(file) = &b.file else { continue };
            let on_disk = std::fs::read_to_string(file)
                .unwrap_or_else(|e| panic!("{}:{}: {file}: {e}", page.display(), b.line));
            assert_eq!(
                b.text,
                on_disk,
                "{}:{}: the block differs from {file}",
                page.display(),
                b.line
            );
            shown += 1;
        }
    }
    assert!(
        shown >= 2,
        "the README's and the guide's example files are shown"
    );
}

/// The words of a command line, quotes respected (enough for the docs' `sh` blocks).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            (_, c) => word.push(c),
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn help(subcommand: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(subcommand)
        .arg("--help")
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "`a2a-sim {} --help` fails: the docs name a command that does not exist",
        subcommand.join(" ")
    );
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

/// Commands shown but not run (a server, a pipe, a file written) still use real commands and flags.
#[test]
fn shown_commands_use_flags_that_exist() {
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("a page");
        for b in blocks(&text).into_iter().filter(|b| b.info == "sh") {
            for (i, line) in b.text.lines().enumerate() {
                // `a2a-sim …` anywhere on the line: after `$ `, `&&`, `|` or at its start.
                for segment in line.split(['|', '&', ';', '(']) {
                    let w = words(segment.split(" #").next().unwrap_or(""));
                    let Some(start) = w.iter().position(|w| w == "a2a-sim") else {
                        continue;
                    };
                    let w = &w[start + 1..];
                    let Some(sub) = w.first() else { continue };
                    let mut path = vec![sub.as_str()];
                    if sub == "token" {
                        path.push(w.get(1).map_or("", String::as_str));
                    }
                    let help = help(&path);
                    for flag in w.iter().filter(|w| w.starts_with("--")) {
                        let flag = flag.split('=').next().unwrap_or(flag);
                        assert!(
                            help.contains(&format!("{flag} "))
                                || help.contains(&format!("{flag}\n")),
                            "{}:{}: `a2a-sim {}` has no flag {flag}",
                            page.display(),
                            b.line + i,
                            path.join(" ")
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(
        checked >= 10,
        "the docs' sh blocks show commands ({checked} found)"
    );
}

/// Source directories that may cite the specification.
fn citing_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = ["src", "crates", "tests", "tools", "benches"]
        .iter()
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .collect();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Each `NAME.md` the code cites, with the section numbers it names (`§2`, `§2–§6`, `§1 and §6`).
fn citations(text: &str) -> Vec<(String, BTreeSet<u32>)> {
    const DOCS: [&str; 5] = [
        "semantics.md",
        "behaviour.md",
        "faults.md",
        "authority.md",
        "scenario-format.md",
    ];
    let mut out = Vec::new();
    for doc in DOCS {
        for (at, _) in text.match_indices(doc) {
            let rest = &text[at + doc.len()..];
            // The run of section marks right after the name: ` §1`, `§2–§6`, ` §1 and §6`, `, §3`.
            let tail: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || " §–-,and".contains(*c))
                .collect();
            let mut sections = BTreeSet::new();
            let mut previous: Option<u32> = None;
            let mut range = false;
            for piece in tail.split('§').skip(1) {
                let n: String = piece.chars().take_while(char::is_ascii_digit).collect();
                let Ok(n) = n.parse::<u32>() else { break };
                match previous {
                    Some(p) if range => sections.extend(p..=n),
                    _ => {
                        sections.insert(n);
                    }
                }
                range = piece.contains('–');
                previous = Some(n);
            }
            out.push((doc.to_owned(), sections));
        }
    }
    out
}

/// The book's page of that name, and the numbers of its `## N.` sections.
fn sections_of(doc: &str) -> Option<(PathBuf, BTreeSet<u32>)> {
    let page = pages()
        .into_iter()
        .find(|p| p.starts_with("docs/src") && p.file_name().is_some_and(|f| f == doc))?;
    let text = std::fs::read_to_string(&page).ok()?;
    let numbers = text
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .filter_map(|l| l.split_once(". "))
        .filter_map(|(n, _)| n.parse().ok())
        .collect();
    Some((page, numbers))
}

#[test]
fn every_citation_in_the_code_lands_on_a_section_of_the_book() {
    let mut cited = 0;
    for file in citing_files() {
        let text = std::fs::read_to_string(&file).expect("a source file");
        for (doc, sections) in citations(&text) {
            let (page, have) = sections_of(&doc)
                .unwrap_or_else(|| panic!("{} cites {doc}, which docs/src lacks", file.display()));
            for n in &sections {
                assert!(
                    have.contains(n),
                    "{} cites {doc} §{n}; {} has no `## {n}.` section",
                    file.display(),
                    page.display()
                );
            }
            cited += 1;
        }
    }
    assert!(
        cited >= 30,
        "the code cites the specification ({cited} found)"
    );
}

#[test]
fn the_citation_reader_reads_ranges_and_lists() {
    let got = citations("(behaviour.md §2–§6) and semantics.md §1 and §6; faults.md.");
    let as_vec = |s: &BTreeSet<u32>| s.iter().copied().collect::<Vec<_>>();
    let got: Vec<(String, Vec<u32>)> = got.iter().map(|(d, s)| (d.clone(), as_vec(s))).collect();
    assert_eq!(
        got,
        [
            ("semantics.md".to_owned(), vec![1, 6]),
            ("behaviour.md".to_owned(), vec![2, 3, 4, 5, 6]),
            ("faults.md".to_owned(), vec![]),
        ]
    );
}

/// The README and the changelog are read on GitHub, outside the book: their relative links point
/// at files that exist (the book's own links are checked by `docs/build.sh` on the built pages).
#[test]
fn the_readme_links_to_files_that_exist() {
    let mut checked = 0;
    for page in ["README.md", "CHANGELOG.md"] {
        let text = std::fs::read_to_string(page).expect("a page");
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let target = &rest[..rest.find(')').expect("a closed link")];
            if target.contains("://") || target.starts_with('#') {
                continue;
            }
            let file = target.split('#').next().unwrap_or(target);
            assert!(
                Path::new(file).exists(),
                "{page} links to {target}, which does not exist"
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 10,
        "the README links into the book ({checked} links)"
    );
}

/// `console` blocks are what the tests run, so they hold `a2a-sim` commands only; a command of
/// another tool (`pip`, `curl`, `cargo`) goes in a `sh` block, shown and not run.
#[test]
fn console_blocks_run_only_a2a_sim() {
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("a page");
        for b in blocks(&text).into_iter().filter(|b| b.info == "console") {
            for (i, line) in b.text.lines().enumerate() {
                if let Some(command) = line.strip_prefix("$ ") {
                    assert!(
                        command.starts_with("a2a-sim "),
                        "{}:{}: a console block runs `{command}`: only a2a-sim commands run in \
                         tests; show other tools in a ```sh block",
                        page.display(),
                        b.line + i
                    );
                }
            }
        }
    }
}

/// The report contract's table of top-level keys (the scenario format reference) is what the
/// reports hold: every golden report's keys come in the table's order, and the keys the table
/// says are always there are there.
#[test]
fn the_report_contract_lists_the_top_level_keys_in_their_order() {
    let page = std::fs::read_to_string("docs/src/reference/scenario-format.md").expect("the page");
    let start = page
        .find("| key | what | when |")
        .expect("the table of top-level keys");
    let mut keys: Vec<(String, bool)> = Vec::new();
    for line in page[start..].lines().skip(2) {
        let Some(cell) = line.strip_prefix("| ") else {
            break;
        };
        let key = cell.split(" |").next().unwrap_or("");
        let always = !key.starts_with('*');
        keys.push((key.trim_matches(['*', '`']).to_string(), always));
    }
    assert!(keys.len() >= 10, "{keys:?}");
    let mut goldens = Vec::new();
    for dir in [
        "scenarios",
        "examples/loan-orchestrator",
        "examples/real-agent",
    ] {
        for e in std::fs::read_dir(dir)
            .expect("a folder of goldens")
            .flatten()
        {
            if e.path().to_string_lossy().ends_with(".golden.json") {
                goldens.push(e.path());
            }
        }
    }
    goldens.sort();
    assert!(goldens.len() >= 20, "{goldens:?}");
    // And a run with an override, whose report carries `overrides`.
    let with_set = Command::new(BIN)
        .args(["run", "--format", "json", "--set", "policy.max_depth=3"])
        .arg("scenarios/payment-decision.yaml")
        .output()
        .expect("a2a-sim runs");
    let mut reports: Vec<(String, String)> = goldens
        .iter()
        .map(|g| (g.display().to_string(), std::fs::read_to_string(g).unwrap()))
        .collect();
    reports.push((
        "run --set".into(),
        String::from_utf8(with_set.stdout).unwrap(),
    ));
    let mut seen = BTreeSet::new();
    for (golden, text) in reports {
        let report: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{golden}: {e}"));
        let mut at = 0;
        for key in report.keys() {
            let Some(i) = keys.iter().position(|(k, _)| k == key) else {
                panic!("{golden}: `{key}` is not in the contract's table");
            };
            assert!(i >= at, "{golden}: `{key}` comes out of the table's order");
            at = i;
            seen.insert(key.clone());
        }
        for (key, always) in &keys {
            assert!(
                !always || report.contains_key(key),
                "{golden}: `{key}` is always there, says the table"
            );
        }
    }
    // Each optional key shows in some report too, so the table's order is checked for it
    // (`warnings` only comes from a real agent's unattributed call: tests/real_agents).
    for (key, _) in &keys {
        assert!(
            seen.contains(key) || key == "warnings",
            "no report has `{key}`"
        );
    }
}
