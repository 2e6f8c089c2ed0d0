//! Which values of a scenario file are secret, by what they are: the value under a `token` key
//! (`policy.token` is settings, not a token), a `push`'s whole value, a `set_push_config`'s `url`
//! and `token` (or its whole value written as one string), and every node an alias makes one of
//! them, in either direction: `limit: *t` holds a token's value, and `token: *t` makes the node
//! `&t` names a token. Values are compared as the parser reads them (escapes, folded blocks), and
//! only with the message about the node they are in: a name elsewhere that happens to equal a
//! token is not one.
//!
//! The document is read again (`saphyr-parser`'s events into a small tree) only when a problem's
//! path goes through such a key or the file has anchors: otherwise no value on the path can be
//! secret, and a large file's warnings cost nothing here.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, StrInput};

use crate::yaml::Seg;

/// What a message about one value must not show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Redact {
    /// These values (none, most often), wherever the message quotes them.
    Values(Vec<String>),
    /// Every quoted value: the file could not be read again to tell.
    All,
}

impl Redact {
    pub const NOTHING: Redact = Redact::Values(Vec::new());
}

/// Whether the value at `path` could be secret at all: its path goes through a secret key, or
/// the file has an anchor (whose alias could carry a token's value anywhere).
pub fn may_be_secret(path: &[Seg], anchors: bool) -> bool {
    if matches!(path.last(), Some(Seg::KeyName(_))) {
        // A key itself: keys are never secret.
        return false;
    }
    anchors || secret_key_on(path)
}

/// Whether `path` goes through a `token`, `push` or `set_push_config` key (`policy.token`
/// aside).
fn secret_key_on(path: &[Seg]) -> bool {
    path.iter().enumerate().any(|(i, seg)| {
        let key = match seg {
            Seg::Key(k) => k.as_ref(),
            Seg::Duplicate(k) => k.as_str(),
            _ => return false,
        };
        match key {
            "token" => !(i == 1 && matches!(&path[0], Seg::Key(p) if p == "policy")),
            "push" | "set_push_config" => true,
            _ => false,
        }
    })
}

/// A file's secret values, found by walking its nodes.
#[derive(Debug, Clone)]
pub struct Secrets {
    /// `None` when `saphyr-parser` does not read the file (serde_norway may): then every quoted
    /// value of a message about a path through a secret key is redacted.
    tree: Option<Tree>,
}

#[derive(Debug, Clone)]
struct Tree {
    nodes: Vec<Node>,
    secret: Vec<bool>,
}

#[derive(Debug, Clone)]
enum Node {
    Scalar(String),
    Alias(usize),
    Seq(Vec<usize>),
    /// Key node, value node.
    Map(Vec<(usize, usize)>),
}

/// Where a mapping sits, for what its keys mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Root,
    Policy,
    SetPush,
    Plain,
    Secret,
}

impl Secrets {
    /// The secret nodes of `text`.
    pub fn read(text: &str) -> Secrets {
        let tree = Tree::read(text).map(|mut t| {
            t.mark();
            t
        });
        Secrets { tree }
    }

    /// What a message about the value at `path` must not show.
    pub fn at(&self, path: &[Seg]) -> Redact {
        let Some(tree) = &self.tree else {
            return if secret_key_on(path) {
                Redact::All
            } else {
                Redact::NOTHING
            };
        };
        if matches!(path.last(), Some(Seg::KeyName(_))) {
            return Redact::NOTHING;
        }
        match tree.find(path) {
            Some(n) => Redact::Values(tree.secret_values(n)),
            // A value the file lacks (a default, a missing key) quotes nothing of the file.
            None => Redact::NOTHING,
        }
    }
}

impl Tree {
    fn read(text: &str) -> Option<Tree> {
        let mut nodes: Vec<Node> = Vec::new();
        let mut anchors: HashMap<usize, usize> = HashMap::new();
        // Open collections, and for a mapping the key node waiting for its value.
        let mut open: Vec<(usize, Option<usize>)> = Vec::new();
        let mut root = None;
        for event in Parser::new(StrInput::new(text)) {
            let (event, _) = event.ok()?;
            let (node, anchor, opens) = match event {
                Event::Scalar(v, _, anchor, _) => (Node::Scalar(v.into_owned()), anchor, false),
                Event::Alias(id) => (Node::Alias(*anchors.get(&id)?), 0, false),
                Event::SequenceStart(anchor, _) => (Node::Seq(Vec::new()), anchor, true),
                Event::MappingStart(anchor, _) => (Node::Map(Vec::new()), anchor, true),
                Event::SequenceEnd | Event::MappingEnd => {
                    open.pop();
                    continue;
                }
                _ => continue,
            };
            let ix = nodes.len();
            nodes.push(node);
            if anchor != 0 {
                anchors.insert(anchor, ix);
            }
            match open.last_mut() {
                None => {
                    // The first document's root; a second document is an error the loader reports.
                    root.get_or_insert(ix);
                }
                Some((parent, pending)) => match (&mut nodes[*parent], pending.take()) {
                    (Node::Seq(items), _) => items.push(ix),
                    (Node::Map(entries), Some(key)) => entries.push((key, ix)),
                    (Node::Map(_), None) => *pending = Some(ix),
                    _ => return None,
                },
            }
            if opens {
                open.push((ix, None));
            }
        }
        // The root is node 0 when there is one: nodes are numbered in document order.
        root?;
        let secret = vec![false; nodes.len()];
        Some(Tree { nodes, secret })
    }

    /// Follows aliases to the node they stand for.
    fn deref(&self, mut n: usize) -> usize {
        for _ in 0..self.nodes.len() {
            match self.nodes[n] {
                Node::Alias(target) => n = target,
                _ => break,
            }
        }
        n
    }

    fn key(&self, n: usize) -> Option<&str> {
        match &self.nodes[self.deref(n)] {
            Node::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// Marks every node that is (or an alias makes) a secret: each node is visited at most once
    /// per place, so an alias bomb costs no more than its text.
    fn mark(&mut self) {
        const PLACES: [Place; 5] = [
            Place::Root,
            Place::Policy,
            Place::SetPush,
            Place::Plain,
            Place::Secret,
        ];
        let bit = |p: Place| 1u8 << PLACES.iter().position(|q| *q == p).unwrap_or(0);
        let mut seen = vec![0u8; self.nodes.len()];
        let mut stack = vec![(0, Place::Root)];
        while let Some((n, place)) = stack.pop() {
            if seen[n] & bit(place) != 0 {
                continue;
            }
            seen[n] |= bit(place);
            if place == Place::Secret {
                self.secret[n] = true;
            }
            match &self.nodes[n] {
                Node::Scalar(_) => {}
                Node::Alias(target) => stack.push((*target, place)),
                Node::Seq(items) => {
                    let inner = if place == Place::Secret {
                        Place::Secret
                    } else {
                        Place::Plain
                    };
                    stack.extend(items.iter().map(|&i| (i, inner)));
                }
                Node::Map(entries) => {
                    for &(k, v) in entries {
                        stack.push((v, self.inner(place, self.key(k), v)));
                    }
                }
            }
        }
    }

    /// Where the value `v` of key `key` sits, in a mapping at `place`.
    fn inner(&self, place: Place, key: Option<&str>, v: usize) -> Place {
        match (place, key) {
            (Place::Secret, _) => Place::Secret,
            (Place::Root, Some("policy")) => Place::Policy,
            (Place::Policy, Some("token")) => Place::Plain,
            (Place::SetPush, Some("url" | "token")) => Place::Secret,
            (_, Some("token" | "push")) => Place::Secret,
            (_, Some("set_push_config")) => match self.nodes[self.deref(v)] {
                Node::Scalar(_) => Place::Secret,
                _ => Place::SetPush,
            },
            _ => Place::Plain,
        }
    }

    /// The node at `path` (aliases followed), if the file has one there.
    fn find(&self, path: &[Seg]) -> Option<usize> {
        let mut n = self.deref(0);
        for seg in path {
            n = match (seg, &self.nodes[n]) {
                (Seg::Key(k), Node::Map(e)) => {
                    e.iter()
                        .find(|(key, _)| self.key(*key) == Some(k.as_ref()))?
                        .1
                }
                (Seg::Duplicate(k), Node::Map(e)) => {
                    e.iter()
                        .filter(|(key, _)| self.key(*key) == Some(k.as_str()))
                        .nth(1)?
                        .1
                }
                (Seg::Entry(i), Node::Map(e)) => e.get(*i)?.1,
                (Seg::Index(i), Node::Seq(items)) => *items.get(*i)?,
                _ => return None,
            };
            n = self.deref(n);
        }
        Some(n)
    }

    /// The secret scalars of node `n`: itself, or those of a secret collection (a `push`).
    fn secret_values(&self, n: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![n];
        let mut seen = Vec::new();
        while let Some(n) = stack.pop() {
            let n = self.deref(n);
            if !self.secret[n] || seen.contains(&n) || seen.len() > 64 {
                continue;
            }
            seen.push(n);
            match &self.nodes[n] {
                Node::Scalar(s) if !s.is_empty() => out.push(s.clone()),
                Node::Seq(items) => stack.extend(items),
                Node::Map(entries) => stack.extend(entries.iter().map(|&(_, v)| v)),
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, path: &[Seg]) -> Redact {
        Secrets::read(text).at(path)
    }

    fn values(v: &[&str]) -> Redact {
        Redact::Values(v.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn secrets_are_known_by_the_key_they_are_under_in_every_spelling() {
        let text = "policy:\n  token: {issuer: iss}\nsteps:\n  - send: {caller: c, to: a, push: {url: \"https://h/x\", token: \"t\\x20k\"}}\n  - set_push_config:\n      caller: agent-61\n      task: t\n      url: u\n      token: >-\n        folded\n        tok\n  - set_push_config: \"caller: c, token: T\"\n";
        let step = |i: usize, rest: &[&str]| {
            let mut p = vec![Seg::from("steps"), Seg::Index(i)];
            p.extend(rest.iter().map(|k| Seg::from(*k)));
            p
        };
        for (path, want) in [
            (step(0, &["send", "push", "token"]), values(&["t k"])),
            (step(0, &["send", "push"]), values(&["t k", "https://h/x"])),
            (step(0, &["send", "caller"]), values(&[])),
            (
                step(1, &["set_push_config", "token"]),
                values(&["folded tok"]),
            ),
            (step(1, &["set_push_config", "url"]), values(&["u"])),
            (step(1, &["set_push_config", "caller"]), values(&[])),
            (step(1, &["set_push_config"]), values(&[])),
            (
                step(2, &["set_push_config"]),
                values(&["caller: c, token: T"]),
            ),
            (
                vec![Seg::from("policy"), Seg::from("token"), Seg::from("issuer")],
                values(&[]),
            ),
            (step(9, &["send"]), values(&[])),
        ] {
            let mut got = at(text, &path);
            if let Redact::Values(v) = &mut got {
                v.sort();
            }
            let mut want = want;
            if let Redact::Values(v) = &mut want {
                v.sort();
            }
            assert_eq!(got, want, "{path:?}");
        }
    }

    #[test]
    fn an_alias_carries_secrecy_both_ways() {
        let text = "a: {token: &t tok}\nlimit: *t\nc: &n name\nd: {token: *n}\ne: other\n";
        for (key, want) in [
            ("limit", values(&["tok"])),
            ("c", values(&["name"])),
            ("e", values(&[])),
        ] {
            assert_eq!(at(text, &[Seg::from(key)]), want, "{key}");
        }
        // An alias bomb is walked once per node.
        let mut bomb = String::from("a: &a [x, token]\n");
        for i in 1..40 {
            let before = if i == 1 {
                "a".to_string()
            } else {
                format!("a{}", i - 1)
            };
            bomb.push_str(&format!("b{i}: &a{i} [*{before}, *{before}, *{before}]\n"));
        }
        bomb.push_str("token: *a39\n");
        assert_eq!(at(&bomb, &[Seg::from("a"), Seg::Index(0)]), values(&["x"]));
    }

    #[test]
    fn a_file_the_events_do_not_read_redacts_every_value_on_a_secret_path() {
        let text = "a: [\n";
        assert_eq!(at(text, &[Seg::from("push")]), Redact::All);
        assert_eq!(at(text, &[Seg::from("name")]), Redact::NOTHING);
        assert!(!may_be_secret(&[Seg::from("agents"), Seg::Index(3)], false));
        assert!(may_be_secret(&[Seg::from("agents"), Seg::Index(3)], true));
        assert!(!may_be_secret(
            &[Seg::from("policy"), Seg::from("token"), Seg::from("issuer")],
            false
        ));
        assert!(!may_be_secret(
            &[Seg::from("push"), Seg::KeyName("tokn".into())],
            false
        ));
    }
}
