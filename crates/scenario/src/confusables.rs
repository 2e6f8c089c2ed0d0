//! `check`'s look-alike identities (`confusable_ids`): two distinct agent or caller ids, tenants
//! or scopes that a reader cannot tell apart — the same UTS #39 skeleton (a Cyrillic `а` in
//! `pаyments`), or equal after NFKC, case folding and removing Default_Ignorable code points.
//! They stay distinct identities; this only warns.

use std::collections::BTreeMap;

use unicode_normalization::UnicodeNormalization;
use unicode_security::confusable_detection::skeleton;

use crate::problem::Problem;
use crate::yaml::Seg;
use engine::scenario::{Scenario, Sym};

/// Default_Ignorable_Code_Point (Unicode 15.1, DerivedCoreProperties.txt): the crates above do
/// not expose it, and it is a short, stable list.
const DEFAULT_IGNORABLE: [(u32, u32); 17] = [
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
];

fn ignorable(c: char) -> bool {
    let c = c as u32;
    DEFAULT_IGNORABLE
        .iter()
        .any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// NFKC, case folded (full lower-casing) and without Default_Ignorable code points.
pub fn folded(s: &str) -> String {
    let lower: String = s.nfkc().flat_map(char::to_lowercase).collect();
    lower.nfkc().filter(|&c| !ignorable(c)).collect()
}

/// The UTS #39 skeleton, of the string without Default_Ignorable code points.
pub fn skeleton_of(s: &str) -> String {
    let kept: String = s.chars().filter(|&c| !ignorable(c)).collect();
    skeleton(&kept).collect()
}

/// Whether two distinct strings are confusable.
pub fn confusable(a: &str, b: &str) -> bool {
    a != b && (skeleton_of(a) == skeleton_of(b) || folded(a) == folded(b))
}

/// One warning per identity that looks like an earlier, different one of its kind, located at
/// the later one.
pub fn warnings(scenario: &Scenario) -> Vec<Problem> {
    let names = &scenario.symbols;
    let seg = |parts: &[Seg]| parts.to_vec();
    let mut ids: Vec<(String, Vec<Seg>)> = Vec::new();
    let mut tenants: Vec<(String, Vec<Seg>)> = Vec::new();
    let mut scopes: Vec<(String, Vec<Seg>)> = Vec::new();
    let add_scopes = |list: &[Sym], at: Vec<Seg>, out: &mut Vec<(String, Vec<Seg>)>| {
        for (j, &s) in list.iter().enumerate() {
            out.push((
                names.name(s).to_string(),
                [&at[..], &[Seg::Index(j)]].concat(),
            ));
        }
    };
    for (i, a) in scenario.agents.iter().enumerate() {
        let at = seg(&[Seg::from("agents"), Seg::Index(i)]);
        let name_at = match a.card.file {
            None => [&at[..], &[Seg::from("name")]].concat(),
            Some(_) => [&at[..], &[Seg::from("card")]].concat(),
        };
        ids.push((a.name().to_string(), name_at));
        tenants.push((
            names.name(a.tenant).to_string(),
            [&at[..], &[Seg::from("tenant")]].concat(),
        ));
        add_scopes(
            &a.required_scopes,
            [&at[..], &[Seg::from("required_scopes")]].concat(),
            &mut scopes,
        );
        add_scopes(
            &a.scopes,
            [&at[..], &[Seg::from("scopes")]].concat(),
            &mut scopes,
        );
    }
    for (i, c) in scenario.callers.iter().enumerate() {
        let at = seg(&[Seg::from("callers"), Seg::Index(i)]);
        let key = |k: &str| [&at[..], &[Seg::from(k)]].concat();
        if c.token.is_some() {
            // A verified caller is written as `name` and `token`: its tenant and scopes are the
            // token's claims, found where the token is.
            ids.push((c.id.clone(), key("name")));
            tenants.push((names.name(c.tenant).to_string(), key("token")));
            for &s in &c.scopes {
                scopes.push((names.name(s).to_string(), key("token")));
            }
            continue;
        }
        ids.push((c.id.clone(), key("id")));
        tenants.push((names.name(c.tenant).to_string(), key("tenant")));
        add_scopes(&c.scopes, key("scopes"), &mut scopes);
    }
    let mut out = Vec::new();
    for (kind, list) in [("id", ids), ("tenant", tenants), ("scope", scopes)] {
        kind_warnings(kind, list, &mut out);
    }
    out
}

fn kind_warnings(kind: &str, list: Vec<(String, Vec<Seg>)>, out: &mut Vec<Problem>) {
    // Each key → the first string that had it; a later, different string with the same key warns
    // once (the first time it appears).
    let mut by_skeleton: BTreeMap<String, String> = BTreeMap::new();
    let mut by_fold: BTreeMap<String, String> = BTreeMap::new();
    let mut warned: BTreeMap<String, ()> = BTreeMap::new();
    for (s, at) in list {
        let sk = skeleton_of(&s);
        let fo = folded(&s);
        let earlier = [by_skeleton.get(&sk), by_fold.get(&fo)]
            .into_iter()
            .flatten()
            .find(|e| **e != s)
            .cloned();
        by_skeleton.entry(sk).or_insert_with(|| s.clone());
        by_fold.entry(fo).or_insert_with(|| s.clone());
        if let Some(e) = earlier
            && warned.insert(s.clone(), ()).is_none()
        {
            out.push(Problem {
                path: at,
                message: format!(
                    "{kind} `{}` looks like {kind} `{}` (confusable): they are different identities",
                    shown(&s),
                    shown(&e)
                ),
            });
        }
    }
}

/// ASCII as it is, everything else as `\u{..}`, so the difference is visible.
fn shown(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_graphic() {
                c.to_string()
            } else {
                c.escape_unicode().to_string()
            }
        })
        .collect()
}
