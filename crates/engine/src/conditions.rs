//! `when` conditions, evaluated against what a task knows: its delegations' results, its input
//! and its latest reply. Pure functions over values; the world supplies the facts.

use std::borrow::Cow;

use serde_json::Value;

use crate::codes::Outcome;
use crate::data::DataMap;
use crate::ids::ResultIx;
use crate::lifecycle::TaskState;

/// A `when` condition.
#[derive(Debug, Clone)]
pub enum Cond {
    All(Vec<Cond>),
    Any(Vec<Cond>),
    Not(Box<Cond>),
    /// One subject and the tests that must all hold on it.
    Test(Subject, Vec<Test>),
    /// `{result: GROUP, each: {TESTS}}` (`every`) or `{result: GROUP, some: {TESTS}}`: the tests
    /// hold on every (on at least one) member of a fan-out that completed. `each` over no
    /// completed member holds; `some` does not.
    Members {
        group: ResultIx,
        every: bool,
        tests: Vec<Test>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    Result(ResultIx),
    /// One member of a fan-out: its position among the fan-out's members (0-based).
    Member(ResultIx, u32),
    /// The task's first message.
    Input,
    /// The latest reply the task received.
    Reply,
}

#[derive(Debug, Clone)]
pub enum Test {
    /// Any of these outcomes.
    Outcome(Vec<Outcome>),
    /// The child task's state now: any of these.
    State(Vec<TaskState>),
    Text(TextTest),
    Data(DataTest),
    /// A group's count of completed members.
    Completed(ValueTest),
    /// A group's number of members.
    Size(ValueTest),
}

#[derive(Debug, Clone, PartialEq)]
pub enum TextTest {
    Equals(String),
    Contains(String),
}

/// `PATH: TEST` inside `data:`.
#[derive(Debug, Clone)]
pub struct DataTest {
    /// The path as written, for messages.
    pub written: String,
    /// Object keys or list indexes (ASCII digits), from a dotted path or a JSON Pointer.
    pub path: Vec<String>,
    pub test: ValueTest,
}

#[derive(Debug, Clone)]
pub enum ValueTest {
    /// JSON equality, numbers as numbers (`1 == 1.0`); a bare literal means this.
    Eq(serde_json::Value),
    Ne(serde_json::Value),
    Gt(f64),
    Gte(f64),
    Lt(f64),
    Lte(f64),
    In(Vec<serde_json::Value>),
    Exists(bool),
    Contains(String),
}

/// What a condition can see of one subject. `None` everywhere: the subject is absent.
#[derive(Debug, Default, Clone)]
pub struct Facts<'a> {
    pub outcome: Option<Outcome>,
    pub state: Option<TaskState>,
    pub text: Option<Cow<'a, str>>,
    pub data: Option<Cow<'a, DataMap>>,
    /// For a group: how many members completed, and how many there are.
    pub completed: Option<usize>,
    pub size: Option<usize>,
}

/// Evaluates a condition; `facts` gives each subject's facts.
pub fn holds<'a>(cond: &Cond, facts: &mut impl FnMut(Subject) -> Facts<'a>) -> bool {
    match cond {
        Cond::All(cs) => cs.iter().all(|c| holds(c, facts)),
        Cond::Any(cs) => cs.iter().any(|c| holds(c, facts)),
        Cond::Not(c) => !holds(c, facts),
        Cond::Test(subject, tests) => {
            let f = facts(*subject);
            tests.iter().all(|t| test_holds(t, &f))
        }
        Cond::Members {
            group,
            every,
            tests,
        } => {
            let size = facts(Subject::Result(*group)).size.unwrap_or(0);
            let mut completed = (0..size)
                .map(|m| facts(Subject::Member(*group, m as u32)))
                .filter(|f| f.state == Some(TaskState::Completed));
            let passes = |f: Facts| tests.iter().all(|t| test_holds(t, &f));
            if *every {
                completed.all(passes)
            } else {
                completed.any(passes)
            }
        }
    }
}

fn test_holds(test: &Test, f: &Facts) -> bool {
    // An absent subject makes every test false, except `exists: false`.
    match test {
        Test::Outcome(any) => f.outcome.is_some_and(|o| any.contains(&o)),
        Test::State(any) => f.state.is_some_and(|s| any.contains(&s)),
        Test::Text(t) => text_holds(t, f.text.as_deref()),
        Test::Data(d) => data_holds(d, f.data.as_deref()),
        Test::Completed(v) => value_holds(v, f.completed.map(Value::from).as_ref()),
        Test::Size(v) => value_holds(v, f.size.map(Value::from).as_ref()),
    }
}

pub fn text_holds(test: &TextTest, text: Option<&str>) -> bool {
    match (test, text) {
        (TextTest::Equals(want), Some(got)) => got == want,
        (TextTest::Contains(part), Some(got)) => got.contains(part.as_str()),
        (_, None) => false,
    }
}

/// A data test on a mapping that may be absent (no data part at all).
pub fn data_holds(test: &DataTest, data: Option<&DataMap>) -> bool {
    let value = data.and_then(|d| lookup(d, &test.path));
    value_holds(&test.test, value)
}

/// Follows a path of keys and list indexes (ASCII digits) into a mapping.
pub fn lookup<'v>(data: &'v DataMap, path: &[String]) -> Option<&'v Value> {
    let (first, rest) = path.split_first()?;
    let mut at = data.get(first)?;
    for seg in rest {
        at = match at {
            Value::Object(m) => m.get(seg)?,
            Value::Array(items) => items.get(list_index(seg)?)?,
            _ => return None,
        };
    }
    Some(at)
}

fn list_index(seg: &str) -> Option<usize> {
    if seg.is_empty() || !seg.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    seg.parse().ok()
}

/// One value test; `None` is a missing value (a null value exists).
pub fn value_holds(test: &ValueTest, value: Option<&Value>) -> bool {
    let Some(v) = value else {
        return matches!(test, ValueTest::Exists(false));
    };
    match test {
        ValueTest::Eq(want) => json_eq(v, want),
        ValueTest::Ne(want) => !json_eq(v, want),
        ValueTest::Gt(n) => v.as_f64().is_some_and(|x| x > *n),
        ValueTest::Gte(n) => v.as_f64().is_some_and(|x| x >= *n),
        ValueTest::Lt(n) => v.as_f64().is_some_and(|x| x < *n),
        ValueTest::Lte(n) => v.as_f64().is_some_and(|x| x <= *n),
        ValueTest::In(list) => list.iter().any(|w| json_eq(v, w)),
        ValueTest::Exists(want) => *want,
        ValueTest::Contains(part) => v.as_str().is_some_and(|s| s.contains(part.as_str())),
    }
}

/// JSON equality with numbers compared as numbers (IEEE doubles): `1 == 1.0`.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, a)| y.get(k).is_some_and(|b| json_eq(a, b)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> DataMap {
        match v {
            Value::Object(m) => m,
            _ => DataMap::new(),
        }
    }

    fn path(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn numbers_compare_as_numbers() {
        assert!(json_eq(&json!(1), &json!(1.0)));
        assert!(json_eq(&json!({"a": [1]}), &json!({"a": [1.0]})));
        assert!(!json_eq(&json!("1"), &json!(1)));
    }

    #[test]
    fn operators_on_values() {
        use ValueTest::*;
        let rows: &[(ValueTest, Option<Value>, bool)] = &[
            (Eq(json!("x")), Some(json!("x")), true),
            (Ne(json!("x")), Some(json!("y")), true),
            (Ne(json!("x")), None, false),
            (Gt(0.5), Some(json!(0.83)), true),
            (Gt(0.5), Some(json!("0.83")), false),
            (Gte(1.0), Some(json!(1)), true),
            (Lt(1.0), Some(json!(1)), false),
            (Lte(1.0), Some(json!(1)), true),
            (In(vec![json!("a"), json!(2)]), Some(json!(2.0)), true),
            (In(vec![json!("a")]), Some(json!("b")), false),
            (Exists(true), Some(Value::Null), true),
            (Exists(false), None, true),
            (Exists(true), None, false),
            (Contains("SDN".into()), Some(json!("on the SDN list")), true),
            (Contains("SDN".into()), Some(json!(3)), false),
            (Eq(Value::Null), None, false),
        ];
        for (i, (test, value, want)) in rows.iter().enumerate() {
            assert_eq!(
                value_holds(test, value.as_ref()),
                *want,
                "row {i}: {test:?}"
            );
        }
    }

    #[test]
    fn paths_index_lists_with_ascii_digits_only() {
        let d = map(json!({"a": {"b": [10, {"c": true}]}, "0": "zero"}));
        assert_eq!(lookup(&d, &path(&["a", "b", "0"])), Some(&json!(10)));
        assert_eq!(lookup(&d, &path(&["a", "b", "1", "c"])), Some(&json!(true)));
        assert_eq!(lookup(&d, &path(&["a", "b", "+1"])), None);
        assert_eq!(lookup(&d, &path(&["a", "b", "7"])), None);
        assert_eq!(lookup(&d, &path(&["0"])), Some(&json!("zero")));
    }

    #[test]
    fn an_absent_subject_fails_every_test_but_not_and_exists_false() {
        let absent = |_| Facts::default();
        let test = DataTest {
            written: "x".into(),
            path: path(&["x"]),
            test: ValueTest::Exists(false),
        };
        let outcome = Cond::Test(
            Subject::Reply,
            vec![Test::Outcome(vec![Outcome::Completed])],
        );
        assert!(!holds(&outcome, &mut { absent }));
        assert!(holds(&Cond::Not(Box::new(outcome)), &mut { absent }));
        let exists_false = Cond::Test(Subject::Reply, vec![Test::Data(test)]);
        assert!(holds(&exists_false, &mut { absent }));
    }
}
