//! `when` conditions and the tests they share with `expect`: one subject, tests that fit it,
//! operators with the right kind of value, paths into data (dotted or JSON Pointer).

use serde_json::Value;

use crate::diagnostic::with_hint;
use crate::file::*;
use crate::yaml::Seg;
use engine::lifecycle::TaskState;
use engine::scenario::*;

use super::handlers::Scope;
use super::{Loader, child};

/// The operators of a `PATH: {OPERATOR: VALUE}` test. A one-key mapping with any other key is a
/// literal.
pub const OPERATORS: [&str; 9] = [
    "eq", "ne", "gt", "gte", "lt", "lte", "in", "exists", "contains",
];
/// The operators that make sense on a count (`completed`, `size`).
const COUNT_OPERATORS: [&str; 7] = ["eq", "ne", "gt", "gte", "lt", "lte", "in"];

const COMBINATORS: [&str; 3] = ["all", "any", "not"];

/// Which tests a subject takes.
const INPUT_TESTS: [&str; 2] = ["text", "data"];
const DELEGATE_TESTS: [&str; 4] = ["outcome", "state", "text", "data"];
const GROUP_TESTS: [&str; 3] = ["outcome", "completed", "size"];

fn list(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Loader<'_> {
    pub(super) fn cond(&mut self, at: &[Seg], c: CondFile, scope: &Scope) -> Cond {
        let present = [
            ("all", c.all.is_some()),
            ("any", c.any.is_some()),
            ("not", c.not.is_some()),
            ("result", c.result.is_some()),
            ("input", c.input.is_some()),
            ("reply", c.reply.is_some()),
            ("outcome", c.outcome.is_some()),
            ("state", c.state.is_some()),
            ("text", c.text.is_some()),
            ("data", c.data.is_some()),
            ("completed", c.completed.is_some()),
            ("size", c.size.is_some()),
            ("each", c.each.is_some()),
            ("some", c.some.is_some()),
        ];
        let keys: Vec<&str> = present.iter().filter(|p| p.1).map(|p| p.0).collect();
        let combinator = keys.iter().find(|k| COMBINATORS.contains(k));
        if let Some(&first) = combinator {
            if let Some(&other) = keys.iter().find(|&&k| k != first) {
                self.problem(
                    key_of(at, other),
                    format!("a condition is one combinator (`all`, `any`, `not`) or one subject with its tests: `{other}` cannot go beside `{first}`; nest it, e.g. `{first}: [{{...}}]`"),
                );
                return Cond::All(Vec::new());
            }
            return self.combinator(at, first, c, scope);
        }
        let subjects: Vec<&str> = keys
            .iter()
            .copied()
            .filter(|k| ["result", "input", "reply"].contains(k))
            .collect();
        let Some(&subject_key) = subjects.first() else {
            self.problem(
                at.to_vec(),
                "a condition needs a subject (`result: NAME`, `input: {}` or `reply: {}`) with its tests, or a combinator (`all`, `any`, `not`)",
            );
            return Cond::All(Vec::new());
        };
        if let Some(second) = subjects.get(1) {
            self.problem(
                key_of(at, second),
                format!("a condition has one subject: `{second}` cannot go beside `{subject_key}`; combine two conditions with `all: [...]`"),
            );
            return Cond::All(Vec::new());
        }
        let tests: Vec<&str> = keys.iter().copied().filter(|k| *k != subject_key).collect();
        if let Some(q) = ["each", "some"].into_iter().find(|q| tests.contains(q)) {
            return self.members_cond(at, q, c, &tests, scope);
        }
        let (subject, allowed, what) = match (subject_key, c.result.as_deref()) {
            ("result", Some(name)) if scope.get(name).is_none() && name.contains('.') => {
                let Some((ix, m, shown)) = self.member_ref(&child(at, "result"), name, scope)
                else {
                    return Cond::All(Vec::new());
                };
                (
                    Subject::Member(ix, m),
                    &DELEGATE_TESTS[..],
                    format!("`{shown}` is a member of a fan-out"),
                )
            }
            ("result", Some(name)) => {
                let here = child(at, "result");
                match scope.get(name) {
                    Some((ix, r)) if r.kind.is_group() => (
                        Subject::Result(ix),
                        &GROUP_TESTS[..],
                        format!("`{name}` is a fan-out"),
                    ),
                    Some((ix, _)) => (
                        Subject::Result(ix),
                        &DELEGATE_TESTS[..],
                        format!("`{name}` is a delegation"),
                    ),
                    None => {
                        self.result_ref(here, name, scope);
                        return Cond::All(Vec::new());
                    }
                }
            }
            ("input", _) => (
                Subject::Input,
                &INPUT_TESTS[..],
                "`input` is a message".into(),
            ),
            _ => (
                Subject::Reply,
                &INPUT_TESTS[..],
                "`reply` is a message".into(),
            ),
        };
        if tests.is_empty() {
            self.problem(
                child(at, subject_key),
                format!(
                    "a condition needs at least one test beside its subject: {what}, so one of {}",
                    list(allowed)
                ),
            );
        }
        for t in &tests {
            if !allowed.contains(t) {
                let does = match *t {
                    "completed" | "size" => "counts the members of a fan-out",
                    "state" => "is the state of a delegation's child task",
                    "outcome" => "is how a delegation ended",
                    _ => "does not apply here",
                };
                self.problem(
                    key_of(at, t),
                    format!("`{t}` {does}, and {what}: its tests are {}", list(allowed)),
                );
            }
        }
        Cond::Test(subject, self.tests(at, c))
    }

    /// `GROUP.MEMBER`: a fan-out of this handler and one of its members, by the agent its `to`
    /// list names (once) or by position (1 first). The group, the member's index and how to say it.
    fn member_ref(
        &mut self,
        at: &[Seg],
        written: &str,
        scope: &Scope,
    ) -> Option<(ResultIx, u32, String)> {
        let (group, member) = written.split_once('.')?;
        let Some((ix, r)) = scope.get(group) else {
            self.result_ref(at.to_vec(), group, scope);
            return None;
        };
        if !r.kind.is_group() {
            self.problem(
                at.to_vec(),
                format!("`{group}` is a delegation, not a fan-out: `{group}.{member}` names a fan-out's member; test `result: {group}` itself"),
            );
            return None;
        }
        if let Ok(n) = member.parse::<u32>() {
            let size = r.members.len();
            let listed = matches!(r.kind, super::handlers::ResultKind::FanOut(Some(_)));
            if n == 0 || (listed && n as usize > size) {
                let range = if listed {
                    format!("1 to {size}")
                } else {
                    "1 or more".to_string()
                };
                self.problem(
                    at.to_vec(),
                    format!("`{written}`: a member's position is {range}, not {n}"),
                );
                return None;
            }
            return Some((ix, n - 1, written.to_string()));
        }
        let found: Vec<usize> = r
            .members
            .iter()
            .enumerate()
            .filter(|(_, m)| m.as_deref() == Some(member))
            .map(|(i, _)| i)
            .collect();
        match found[..] {
            [one] => Some((ix, one as u32, written.to_string())),
            [] => {
                let names: Vec<&str> = r.members.iter().flatten().map(String::as_str).collect();
                let msg = format!(
                    "`{written}`: the fan-out `{group}` has no member `{member}`; its members are {} (or name one by position, `{group}.1`)",
                    list(&names)
                );
                self.problem(at.to_vec(), with_hint(msg, member, names.iter().copied()));
                None
            }
            _ => {
                self.problem(
                    at.to_vec(),
                    format!("`{written}`: `{member}` is more than one member of `{group}`; name it by position (`{group}.{}`)", found[0] + 1),
                );
                None
            }
        }
    }

    /// `{result: GROUP, each: {TESTS}}` or `{result: GROUP, some: {TESTS}}`: the tests a single
    /// delegation takes, on the fan-out's members that completed.
    fn members_cond(
        &mut self,
        at: &[Seg],
        quantifier: &str,
        mut c: CondFile,
        keys: &[&str],
        scope: &Scope,
    ) -> Cond {
        let here = child(at, quantifier);
        if let Some(other) = keys.iter().find(|k| **k != quantifier) {
            self.problem(
                key_of(at, other),
                format!("`{other}` cannot go beside `{quantifier}`: the tests of `{quantifier}` go inside it, and the fan-out's own in a condition of their own (`all: [...]`)"),
            );
            return Cond::All(Vec::new());
        }
        let group = match c.result.as_deref().map(|n| (n, scope.get(n))) {
            Some((_, Some((ix, r)))) if r.kind.is_group() => ix,
            Some((name, Some(_))) => {
                self.problem(
                    child(at, "result"),
                    format!("`{quantifier}` is over a fan-out's members, and `{name}` is a delegation: test it with `result: {name}` and its tests"),
                );
                return Cond::All(Vec::new());
            }
            Some((name, None)) => {
                self.result_ref(child(at, "result"), name, scope);
                return Cond::All(Vec::new());
            }
            None => {
                self.problem(
                    here,
                    format!("`{quantifier}` goes with `result: GROUP`, a fan-out of this handler"),
                );
                return Cond::All(Vec::new());
            }
        };
        let inner = if quantifier == "each" {
            c.each.take()
        } else {
            c.some.take()
        };
        let Some(inner) = inner else {
            return Cond::All(Vec::new());
        };
        let inner = *inner;
        let present = [
            ("outcome", inner.outcome.is_some()),
            ("state", inner.state.is_some()),
            ("text", inner.text.is_some()),
            ("data", inner.data.is_some()),
            ("all", inner.all.is_some()),
            ("any", inner.any.is_some()),
            ("not", inner.not.is_some()),
            ("result", inner.result.is_some()),
            ("input", inner.input.is_some()),
            ("reply", inner.reply.is_some()),
            ("completed", inner.completed.is_some()),
            ("size", inner.size.is_some()),
            ("each", inner.each.is_some()),
            ("some", inner.some.is_some()),
        ];
        if let Some((key, _)) = present
            .iter()
            .find(|(k, set)| *set && !DELEGATE_TESTS.contains(k))
        {
            self.problem(
                key_of(&here, key),
                format!("`{quantifier}` holds the tests of one member: {}; `{key}` does not go inside it", list(&DELEGATE_TESTS)),
            );
            return Cond::All(Vec::new());
        }
        if !present.iter().any(|p| p.1) {
            self.problem(
                here.clone(),
                format!(
                    "`{quantifier}` needs at least one test: {}",
                    list(&DELEGATE_TESTS)
                ),
            );
        }
        Cond::Members {
            group,
            every: quantifier == "each",
            tests: self.tests(&here, inner),
        }
    }

    /// The tests of a condition, in a fixed order.
    fn tests(&mut self, at: &[Seg], c: CondFile) -> Vec<Test> {
        let mut out = Vec::new();
        if let Some(w) = c.outcome {
            out.push(Test::Outcome(self.outcomes(&child(at, "outcome"), &w)));
        }
        if let Some(w) = c.state {
            out.push(Test::State(self.states(&child(at, "state"), &w)));
        }
        if let Some(t) = c.text {
            out.push(Test::Text(text_test(t)));
        }
        if let Some(d) = c.data {
            out.extend(
                self.data_tests(&child(at, "data"), d)
                    .into_iter()
                    .map(Test::Data),
            );
        }
        if let Some(v) = c.completed {
            out.push(Test::Completed(self.count_test(
                &child(at, "completed"),
                "completed",
                v,
            )));
        }
        if let Some(v) = c.size {
            out.push(Test::Size(self.count_test(&child(at, "size"), "size", v)));
        }
        out
    }

    fn combinator(&mut self, at: &[Seg], key: &str, c: CondFile, scope: &Scope) -> Cond {
        let here = child(at, key);
        if let Some(inner) = c.not {
            return Cond::Not(Box::new(self.cond(&here, *inner, scope)));
        }
        let conds = c.all.or(c.any).unwrap_or_default();
        if conds.is_empty() {
            self.problem(
                here.clone(),
                format!("`{key}` needs at least one condition"),
            );
        }
        let conds = conds
            .into_iter()
            .enumerate()
            .map(|(k, c)| {
                let mut p = here.clone();
                p.push(Seg::Index(k));
                self.cond(&p, c, scope)
            })
            .collect();
        if key == "all" {
            Cond::All(conds)
        } else {
            Cond::Any(conds)
        }
    }

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
    ) -> Vec<engine::delivery::DeliveryOutcome> {
        self.words(at, w, "delivery outcome", all, |s| {
            engine::delivery::DeliveryOutcome::ALL
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
fn key_of(at: &[Seg], key: &str) -> Vec<Seg> {
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
