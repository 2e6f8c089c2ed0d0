//! `run --format mermaid`: the run as one Mermaid `sequenceDiagram`, rendered from the engine's
//! records only. Participants are declared in order of first appearance; every line is in tick
//! order (a fan-out's members each in a branch of a `par` block). Deterministic text.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::report::mermaid_lines::Item;
pub use crate::report::mermaid_lines::{LABEL_CHARS, escape};
use crate::report::mermaid_steps::top_items;
use engine::record::Record;

/// Writes the diagram.
pub fn write(record: &Record, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    out.write_all(render(record).as_bytes())
}

/// The diagram as text.
pub fn render(record: &Record) -> String {
    let mut d = Diagram {
        ids: HashMap::new(),
        order: Vec::new(),
        body: String::new(),
    };
    let items = top_items(record);
    d.emit(&items, 1);
    let mut out = String::from("sequenceDiagram\n");
    let _ = writeln!(out, "    title {}", escape(&record.scenario.name, 120));
    for (id, name) in &d.order {
        let _ = writeln!(out, "    participant {id} as {}", escape(name, 80));
    }
    out.push_str(&d.body);
    out
}

struct Diagram {
    ids: HashMap<String, String>,
    order: Vec<(String, String)>,
    body: String,
}

impl Diagram {
    /// Writes items; participants are named `⟦name⟧` in their text and resolved here.
    fn emit(&mut self, items: &[Item], depth: usize) {
        let pad = "    ".repeat(depth);
        for item in items {
            match item {
                Item::Line(_, text) => {
                    let text = if let Some(rest) = text.strip_prefix("%WAIT%") {
                        match self.order.first().map(|(id, _)| id.clone()) {
                            Some(id) => format!("Note over {id}: {rest}"),
                            None => continue,
                        }
                    } else {
                        self.resolve(text)
                    };
                    let _ = writeln!(self.body, "{pad}{text}");
                }
                Item::Par(_, label, branches) => {
                    for (k, branch) in branches.iter().enumerate() {
                        let kw = if k == 0 { "par" } else { "and" };
                        let _ = writeln!(self.body, "{pad}{kw} {label}, member {}", k + 1);
                        self.emit(branch, depth + 1);
                    }
                    let _ = writeln!(self.body, "{pad}end");
                }
            }
        }
    }

    /// Replaces each `⟦name⟧` by the participant's id, declaring it on first sight.
    fn resolve(&mut self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find('⟦') {
            out.push_str(&rest[..start]);
            let after = &rest[start + '⟦'.len_utf8()..];
            let Some(end) = after.find('⟧') else {
                out.push_str(&rest[start..]);
                return out;
            };
            let name = &after[..end];
            out.push_str(&self.id(name));
            rest = &after[end + '⟧'.len_utf8()..];
        }
        out.push_str(rest);
        out
    }

    fn id(&mut self, name: &str) -> String {
        if let Some(id) = self.ids.get(name) {
            return id.clone();
        }
        let mut base: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        if !base.starts_with(|c: char| c.is_ascii_alphabetic()) {
            base.insert(0, 'p');
        }
        if KEYWORDS.contains(&base.to_ascii_lowercase().as_str()) {
            base.push('_');
        }
        let mut id = base.clone();
        let mut n = 2;
        while self.ids.values().any(|v| v == &id) {
            id = format!("{base}_{n}");
            n += 1;
        }
        self.ids.insert(name.to_string(), id.clone());
        self.order.push((id.clone(), name.to_string()));
        id
    }
}

/// Words Mermaid's sequence lexer reads as keywords (case-insensitive).
#[rustfmt::skip]
const KEYWORDS: &[&str] = &[
    "participant", "actor", "as", "end", "loop", "alt", "else", "opt", "par", "and", "rect",
    "critical", "option", "break", "note", "over", "left", "right", "of", "title", "activate",
    "deactivate", "autonumber", "off", "box", "links", "link", "properties", "details", "create",
    "destroy", "accdescr", "acctitle", "sequencediagram", "x",
];
