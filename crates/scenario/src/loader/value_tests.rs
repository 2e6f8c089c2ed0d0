//! The tests `when` conditions share with `expect` entries: task states and outcomes by word,
//! operators with the right kind of value (on counts too), paths into data (dotted or JSON
//! Pointer), texts.

use serde_json::Value;

use crate::diagnostic::with_hint;
use crate::file::*;
use crate::yaml::Seg;
use engine::record::TaskState;
use engine::scenario::*;

use super::{Loader, child};

/// The operators of a `PATH: {OPERATOR: VALUE}` test. A one-key mapping with any other key is a
/// literal.
pub const OPERATORS: [&str; 9] = [
    "eq", "ne", "gt", "gte", "lt", "lte", "in", "exists", "contains",
];
/// The operators that make sense on a count (`completed`, `size`).
const COUNT_OPERATORS: [&str; 7] = ["eq", "ne", "gt", "gte", "lt", "lte", "in"];

pub(super) fn list(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Loader<'_> {
    /// Task states, in either spelling of the pause states.
    pub(super) fn states(&mut self, at: &[Seg], w: &WordsFile) -> Vec<TaskState> {
        let all = TaskState::ALL.map(|t| t.as_str());
        self.words(at, w, "task state", &all, |s| {
            TaskState::from_a2a(&s.replace('_', "-"))
        })
    }

    /// Webhook delivery outcomes: `delivered`, `failed`, `dead_letter`.
    pub(super) fn delivery_outcomes(
        &mut self,
        at: &[Seg],
        w: &WordsFile,
        all: &[&str],
    ) -> Vec<engine::record::DeliveryOutcome> {
        self.words(at, w, "delivery outcome", all, |s| {
            engine::record::DeliveryOutcome::ALL
                .into_iter()
                .find(|o| o.as_str() == s)
        })
    }

    pub(super) fn outcomes(&mut self, at: &[Seg], w: &WordsFile) -> Vec<Outcome> {
        let all = Outcome::ALL.map(|o| o.as_str());
        self.words(at, w, "outcome", &all, Outcome::parse)
    }

    fn words<T>(
        &mut self,
        at: &[Seg],
        w: &WordsFile,
        what: &str,
        all: &[&str],
        parse: impl Fn(&str) -> Option<T>,
    ) -> Vec<T> {
        if w.words.is_empty() {
            self.problem(at.to_vec(), format!("give at least one {what}"));
        }
        let mut out = Vec::new();
        for (k, word) in w.words.iter().enumerate() {
            match parse(word) {
                Some(v) => out.push(v),
                None => {
                    let msg = format!("unknown {what} `{word}`; the {what}s are {}", list(all));
                    self.problem(
                        w.word_path(at, k),
                        with_hint(msg, word, all.iter().copied()),
                    );
                }
            }
        }
        out
    }

    /// `data: {PATH: TEST, ...}`, in the file's order.
    pub(super) fn data_tests(&mut self, at: &[Seg], data: DataMap) -> Vec<DataTest> {
        let mut out = Vec::new();
        for (written, value) in data {
            let here = child(at, &written);
            let path = self.data_path(&here, &written);
            let test = self.value_test(&here, value);
            if let (Some(path), Some(test)) = (path, test) {
                out.push(DataTest {
                    written,
                    path,
                    test,
                });
            }
        }
        out
    }

    fn data_path(&mut self, at: &[Seg], written: &str) -> Option<Vec<String>> {
        match parse_data_path(written) {
            Ok(path) => Some(path),
            Err(e) => {
                self.problem(at.to_vec(), e);
                None
            }
        }
    }

    /// A literal (JSON equality), or a one-key mapping whose key is an operator.
    fn value_test(&mut self, at: &[Seg], value: Value) -> Option<ValueTest> {
        let Some((op, v)) = operator(&value) else {
            return Some(ValueTest::Eq(value));
        };
        let here = child(at, op);
        let number = |v: &Value| v.as_f64().filter(|_| v.is_number());
        let test = match op {
            "eq" => Some(ValueTest::Eq(v.clone())),
            "ne" => Some(ValueTest::Ne(v.clone())),
            "gt" | "gte" | "lt" | "lte" => number(v).map(|n| match op {
                "gt" => ValueTest::Gt(n),
                "gte" => ValueTest::Gte(n),
                "lt" => ValueTest::Lt(n),
                _ => ValueTest::Lte(n),
            }),
            "in" => v.as_array().map(|items| ValueTest::In(items.clone())),
            "exists" => v.as_bool().map(ValueTest::Exists),
            _ => v.as_str().map(|s| ValueTest::Contains(s.to_string())),
        };
        if test.is_none() {
            let needs = match op {
                "in" => "a list of values, e.g. `in: [a, b]`",
                "exists" => "`true` or `false`",
                "contains" => "a string",
                _ => "a number (it compares numbers only)",
            };
            self.problem(here, format!("`{op}` needs {needs}, not `{v}`"));
        }
        test
    }

    /// `completed` / `size`: a number, or an operator mapping on numbers.
    pub(super) fn count_test(&mut self, at: &[Seg], key: &str, value: Value) -> ValueTest {
        if value.is_number() {
            return ValueTest::Eq(value);
        }
        let Some((op, v)) = operator(&value) else {
            self.problem(
                at.to_vec(),
                format!("`{key}` takes a number or an operator mapping such as `{{gte: 2}}`, not `{value}`"),
            );
            return ValueTest::Exists(true);
        };
        if !COUNT_OPERATORS.contains(&op) {
            self.problem(
                key_of(at, op),
                format!(
                    "`{op}` does not apply to a count; use one of {}",
                    list(&COUNT_OPERATORS)
                ),
            );
            return ValueTest::Exists(true);
        }
        let numbers = match v {
            Value::Array(items) => items.iter().all(Value::is_number),
            other => other.is_number(),
        };
        if !numbers {
            let needs = if op == "in" {
                "a list of numbers"
            } else {
                "a number"
            };
            self.problem(
                child(at, op),
                format!("`{op}` on a count needs {needs}, not `{v}`"),
            );
            return ValueTest::Exists(true);
        }
        self.value_test(at, value)
            .unwrap_or(ValueTest::Exists(true))
    }
}

/// The operator and its value, when `value` is a one-key mapping keyed by an operator.
fn operator(value: &Value) -> Option<(&'static str, &Value)> {
    let map = value.as_object().filter(|m| m.len() == 1)?;
    let (key, v) = map.iter().next()?;
    let op = OPERATORS.into_iter().find(|o| o == key)?;
    Some((op, v))
}

pub(super) fn text_test(t: TextTestFile) -> TextTest {
    match t {
        TextTestFile::Equals(s) => TextTest::Equals(s),
        TextTestFile::Contains(s) => TextTest::Contains(s),
    }
}

/// A dotted path (`a.b.0`) or, when it starts with `/`, a JSON Pointer (RFC 6901).
pub fn parse_data_path(written: &str) -> Result<Vec<String>, String> {
    if let Some(pointer) = written.strip_prefix('/') {
        return pointer
            .split('/')
            .map(|token| unescape_pointer(token).ok_or_else(|| format!(
                "`{written}` is not a valid JSON Pointer: `~` must be followed by `0` (for `~`) or `1` (for `/`)"
            )))
            .collect();
    }
    if written.is_empty() {
        return Err(
            "an empty path: write a dotted path such as `a.b` or a JSON Pointer such as `/a/b`"
                .into(),
        );
    }
    let segments: Vec<String> = written.split('.').map(str::to_string).collect();
    if segments.iter().any(String::is_empty) {
        return Err(format!(
            "`{written}` has an empty segment; a dotted path is keys and list indexes joined by single dots (a key with a dot needs a JSON Pointer such as `/a.b`)"
        ));
    }
    Ok(segments)
}

/// One reference token of a JSON Pointer: `~1` is `/`, `~0` is `~`, any other `~` is an error.
fn unescape_pointer(token: &str) -> Option<String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// The position of a key itself, for a key that does not belong where it stands.
pub(super) fn key_of(at: &[Seg], key: &str) -> Vec<Seg> {
    let mut path = at.to_vec();
    path.push(Seg::KeyName(key.to_string()));
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_dotted_or_json_pointers() {
        let v = |s: &[&str]| Ok(s.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        let rows: &[(&str, Result<Vec<String>, ()>)] = &[
            ("a", v(&["a"]).map_err(|_: ()| ())),
            ("a.b.0", v(&["a", "b", "0"])),
            ("/a/b", v(&["a", "b"])),
            ("/a~1b/c~0d", v(&["a/b", "c~d"])),
            ("/", v(&[""])),
            ("/a.b", v(&["a.b"])),
            ("/a~2", Err(())),
            ("/a~", Err(())),
            ("a..b", Err(())),
            ("", Err(())),
        ];
        for (written, want) in rows {
            assert_eq!(&parse_data_path(written).map_err(|_| ()), want, "{written}");
        }
    }

    #[test]
    fn a_one_key_mapping_is_an_operator_only_when_its_key_is_one() {
        let lit: Value = serde_json::json!({"status": "ok"});
        assert!(operator(&lit).is_none());
        let op: Value = serde_json::json!({"gte": 2});
        assert_eq!(operator(&op).map(|o| o.0), Some("gte"));
        let two: Value = serde_json::json!({"gte": 2, "lte": 3});
        assert!(operator(&two).is_none());
    }
}
