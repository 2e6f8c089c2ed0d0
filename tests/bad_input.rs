//! Bad input through the binary: a wrong type or a control character located where it is, no
//! token in any error message, and randomly mutated bundled scenarios that fail cleanly: exit 0,
//! 1 or 2, every diagnostic at FILE:LINE:COL, never a panic, never a token.

use std::path::Path;

use crate::common::{
    binary::{a2a_sim_in, scratch, write},
    library::with_libs,
};

#[test]
fn wrong_types_point_at_the_value_and_messages_use_report_names() {
    let head = "agents:\n  - name: sanctions-screener\n    tenant: t\n    clearance: public\n    skills: [{id: s, tags: [x]}]\n    handler:\n      - working\n      - artifact: {name: a, data: 5}\ncallers:\n  - {id: c, tenant: t, classification: public}\nsteps:\n";
    let e = crate::common::load_err(&format!(
        "{head}  - send: {{caller: c, to: sanctions-screener, text: hi}}\n"
    ));
    assert_eq!(
        e,
        "test.yaml:8:35: agent sanctions-screener, handler step 2 (artifact): `data` must be a mapping"
    );
    let ok_agent = head.replace("data: 5", "data: {k: 1}");
    let e = crate::common::load_err(&format!(
        "{ok_agent}  - get: {{caller: c, task_id: t}}\n  - get: {{caller: c, task_id: t}}\n  - send: {{caller: c, to: sanctions-screener, text: hi, data: 5}}\n"
    ));
    assert_eq!(
        e,
        "test.yaml:14:63: step 3 (send): `data` must be a mapping"
    );
    let e = crate::common::load_err("agents: []\ncallers:\n  - id: c\n\ttenant: t\nsteps: []\n");
    assert!(
        e.starts_with("test.yaml:4:1: a tab character in indentation"),
        "{e}"
    );
}

#[test]
fn a_control_character_is_located_where_it_is() {
    let e = crate::common::load_err(
        "agents: []\ncallers: []\nsteps:\n  - get: {caller: \"c\u{1}\", task_id: t}\n",
    );
    assert!(
        e.starts_with("test.yaml:4:21: a control character (U+0001)"),
        "{e}"
    );
    let e = crate::common::load_err("agents: []\ncallers: []\nsteps: []\n\u{0}");
    assert!(e.starts_with("test.yaml:4:1: "), "{e}");
}

#[test]
fn no_token_in_any_error_message() {
    let dir = scratch("ed-tokens");
    let head = "agents:\n  - {name: s, tenant: t, clearance: public, capabilities: {push_notifications: true}, skills: [{id: s, tags: [x]}], handler: [working, completed]}\ncallers:\n  - {id: c, tenant: t, classification: public}\nsteps:\n";
    let cases = [
        (
            "anchor",
            "  - send: {caller: c, to: s, text: hi, as: a, push: {url: \"https://h.example/x\", token: &t SECRET-ONE}}\n  - discover: {caller: c, tags: [x], limit: *t}\n",
            "SECRET-ONE",
        ),
        (
            "quote",
            "  - send: {caller: c, to: s, text: \"hi, as: a}\n  - set_push_config: {caller: c, task: a, url: https://h.example/x, token: \"SECRET-TWO\"}\n  - get: {caller: c, task: a}\n",
            "SECRET-TWO",
        ),
        (
            "push-string",
            "  - send: {caller: c, to: s, text: hi, push: \"https://h.example/x?k=QUERYSECRET#f SECRET-THREE\"}\n",
            "SECRET-THREE",
        ),
        (
            "step-string",
            "  - send: {caller: c, to: s, text: hi, as: a}\n  - set_push_config: \"caller: c, task: a, url: https://h.example/x, token: SECRET-FOUR\"\n",
            "SECRET-FOUR",
        ),
    ];
    for (name, steps, secret) in cases {
        let file = format!("{name}.yaml");
        write(&dir, &file, &format!("{head}{steps}"));
        for args in [
            vec!["check", file.as_str()],
            vec!["check", "--error-format", "json", file.as_str()],
            vec!["run", file.as_str()],
            vec!["card", file.as_str(), "s"],
            vec!["test", "--junit", "j.xml", file.as_str()],
        ] {
            let r = a2a_sim_in(&dir, &args, None);
            assert_eq!(r.status, 2, "{name} {args:?}: {}", r.stderr);
            let junit = std::fs::read_to_string(dir.join("j.xml")).unwrap_or_default();
            for out in [&r.stdout, &r.stderr, &junit] {
                assert!(
                    !out.contains(secret),
                    "{name} {args:?} printed the token: {out}"
                );
                assert!(
                    !out.contains("QUERYSECRET"),
                    "{name} {args:?} printed a URL query: {out}"
                );
            }
        }
    }
    // Through --set, too.
    let dir = with_libs("ed-tokens-set");
    let r = a2a_sim_in(
        &dir,
        &[
            "run",
            "--format",
            "json",
            "--set",
            "steps.1.push.token=SET-SECRET",
            "s.yaml",
        ],
        None,
    );
    assert!(
        !r.stdout.contains("SET-SECRET") && !r.stderr.contains("SET-SECRET"),
        "{}{}",
        r.stdout,
        r.stderr
    );
}

/// A small fixed-seed generator (xorshift64*), so every CI run tries the same mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The values under a `token` key, by line: what must never be printed.
fn token_values(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split(" #").next().unwrap_or(line);
        if code.trim_start().starts_with('#') {
            continue;
        }
        if let Some(at) = code.find("token: ") {
            let v: String = code[at + 7..]
                .trim_start_matches(['"', '\''])
                .chars()
                .take_while(|c| !matches!(c, ',' | '}' | '"' | '\'' | ' '))
                .collect();
            if v.len() >= 4 && v != "null" {
                out.push((line.to_string(), v));
            }
        }
    }
    out
}

fn mutate(text: &[u8], rng: &mut Rng) -> Vec<u8> {
    let s = String::from_utf8_lossy(text).into_owned();
    let mut lines: Vec<String> = s.lines().map(str::to_string).collect();
    let n = lines.len();
    let i = rng.below(n);
    let j = rng.below(n);
    match rng.below(12) {
        0 => {
            lines.remove(i);
        }
        1 => lines.swap(i, j),
        2 => lines[i] = format!("  {}", lines[i]),
        3 => lines[i] = lines[i].trim_start().to_string(),
        4 => lines[i] = format!("\t{}", lines[i]),
        5 => {
            // An anchor on a value, an alias to it elsewhere.
            if let Some(at) = lines[i].find(": ") {
                lines[i].insert_str(at + 2, "&m ");
                if let Some(at) = lines[j].find(": ") {
                    let key = lines[j][..at + 2].to_string();
                    lines[j] = format!("{key}*m");
                }
            }
        }
        6 => {
            if let Some(at) = lines[i].find(": ") {
                let big = "x".repeat(100_000 + rng.below(1000));
                lines[i] = format!("{}{big}", &lines[i][..at + 2]);
            }
        }
        7 => {
            let odd = [
                "~",
                ".nan",
                "0x1F",
                "!!binary aGk=",
                "\"\\u0000\"",
                "-.inf",
                "1e999",
                "[",
                "{",
                "*nope",
                "'",
                "99999999999999999999999",
            ];
            if let Some(at) = lines[i].find(": ") {
                lines[i] = format!("{}{}", &lines[i][..at + 2], odd[rng.below(odd.len())]);
            }
        }
        8 => return [b"\xEF\xBB\xBF".as_slice(), text].concat(),
        9 => return s.replace('\n', "\r\n").into_bytes(),
        10 => {
            let mut b = text.to_vec();
            let at = rng.below(b.len());
            b.insert(at, if rng.below(2) == 0 { 0 } else { 0x01 });
            return b;
        }
        _ => {
            let mut b = text.to_vec();
            let at = rng.below(b.len());
            b.insert(at, [0xFF, 0xC3, 0x80][rng.below(3)]);
            return b;
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out.into_bytes()
}

#[test]
fn mutated_bundled_scenarios_fail_cleanly_and_never_print_a_token() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = scratch("ed-mutations");
    // The files bundled scenarios name by relative path: card files, keys and tokens.
    for sub in ["cards", "keys"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for e in std::fs::read_dir(root.join("scenarios").join(sub)).unwrap() {
            let e = e.unwrap();
            if e.path().is_file() {
                std::fs::copy(e.path(), dir.join(sub).join(e.file_name())).unwrap();
            }
        }
    }
    let mut files: Vec<_> = std::fs::read_dir(root.join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut rng = Rng(0x5EED_A2A5_1315);
    let started = std::time::Instant::now();
    let budget = std::time::Duration::from_secs(40);
    let mut problems = Vec::new();
    let mut tried = 0;
    'outer: for round in 0..40 {
        for f in &files {
            if started.elapsed() > budget {
                break 'outer;
            }
            let original = std::fs::read(f).unwrap();
            let mutated = mutate(&original, &mut rng);
            // A BOM or CRLF line ends change nothing a reader sees: the file must load as before.
            let harmless =
                mutated.starts_with(b"\xEF\xBB\xBF") || mutated.windows(2).any(|w| w == b"\r\n");
            let kept: Vec<String> = {
                let m = String::from_utf8_lossy(&mutated);
                let m_lines: Vec<&str> = m.lines().collect();
                token_values(&String::from_utf8_lossy(&original))
                    .into_iter()
                    .filter(|(line, _)| {
                        m_lines
                            .iter()
                            .any(|l| l.trim_start().trim_end_matches('\r') == line.trim_start())
                    })
                    .map(|(_, v)| v)
                    .collect()
            };
            std::fs::write(dir.join("m.yaml"), &mutated).unwrap();
            tried += 1;
            for args in [
                vec!["check", "m.yaml"],
                vec!["run", "--format", "json", "m.yaml"],
            ] {
                let r = a2a_sim_in(&dir, &args, None);
                let what = format!("round {round}, {} mutated, {args:?}", f.display());
                if harmless && r.status != 0 {
                    problems.push(format!(
                        "{what}: a BOM or CRLF broke the file: {}",
                        r.stderr
                    ));
                }
                if r.stderr.contains(" at position ") {
                    problems.push(format!(
                        "{what}: a byte offset instead of a position: {}",
                        r.stderr
                    ));
                }
                if ![0, 1, 2].contains(&r.status) || r.stderr.contains("panicked") {
                    problems.push(format!("{what}: status {} {}", r.status, r.stderr));
                }
                // A finding's continuation lines (its path, its hint) are indented under it.
                for line in r.stderr.lines().filter(|l| !l.starts_with(' ')) {
                    let rest = line.strip_prefix("m.yaml:").unwrap_or("");
                    let mut parts = rest.splitn(3, ':');
                    let ok = parts
                        .next()
                        .is_some_and(|l| l.parse::<usize>().is_ok_and(|l| l >= 1))
                        && parts
                            .next()
                            .is_some_and(|c| c.parse::<usize>().is_ok_and(|c| c >= 1));
                    if !ok {
                        problems.push(format!(
                            "{what}: no FILE:LINE:COL: {}",
                            &line[..line.len().min(300)]
                        ));
                    }
                }
                for t in &kept {
                    if r.stdout.contains(t.as_str()) || r.stderr.contains(t.as_str()) {
                        problems.push(format!(
                            "{what}: token {t} printed: {}",
                            &r.stderr[..r.stderr.len().min(300)]
                        ));
                    }
                }
            }
            if problems.len() > 20 {
                break 'outer;
            }
        }
    }
    assert!(tried >= files.len(), "too few mutations tried: {tried}");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
