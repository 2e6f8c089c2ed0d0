//! How a failed test shows what it wanted: as the scenario writes it.

use crate::engine::scenario::{TextTest, ValueTest};

/// A text test as the scenario writes it.
pub fn text_test(test: &TextTest) -> String {
    match test {
        TextTest::Equals(s) => format!("{s:?}"),
        TextTest::Contains(s) => format!("{{contains: {s:?}}}"),
    }
}

/// A value test as the scenario writes it: a literal, or `{op: value}`.
pub fn value_test(test: &ValueTest) -> String {
    let (op, value) = match test {
        ValueTest::Eq(v) => return v.to_string(),
        ValueTest::Ne(v) => ("ne", v.to_string()),
        ValueTest::Gt(n) => ("gt", n.to_string()),
        ValueTest::Gte(n) => ("gte", n.to_string()),
        ValueTest::Lt(n) => ("lt", n.to_string()),
        ValueTest::Lte(n) => ("lte", n.to_string()),
        ValueTest::In(items) => ("in", serde_json::Value::from(items.clone()).to_string()),
        ValueTest::Exists(b) => ("exists", b.to_string()),
        ValueTest::Contains(s) => ("contains", format!("{s:?}")),
    };
    format!("{{{op}: {value}}}")
}
