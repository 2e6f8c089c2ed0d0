//! How a failed test shows what it wanted: as the scenario writes it.

use crate::engine::scenario::{DataMap, DataTest, TextTest, ValueTest, data_holds, lookup};

/// One line per data test that `data` fails (`expect` on a task, `received` on a message): the
/// path as written, the test, and what is there.
pub fn data_misses(label: &str, tests: &[DataTest], data: Option<&DataMap>, out: &mut Vec<String>) {
    for test in tests {
        if !data_holds(test, data) {
            let got = data
                .and_then(|d| lookup(d, &test.path))
                .map_or("nothing".to_string(), |v| v.to_string());
            out.push(format!(
                "{label}: data `{}` expected {}, got {got}",
                test.written,
                value_test(&test.test)
            ));
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn failed_tests_are_shown_as_the_scenario_writes_them() {
        let rows = [
            (ValueTest::Eq(json!("clear")), "\"clear\""),
            (ValueTest::Gt(0.9), "{gt: 0.9}"),
            (ValueTest::In(vec![json!(1), json!("a")]), "{in: [1,\"a\"]}"),
            (ValueTest::Exists(false), "{exists: false}"),
            (ValueTest::Contains("SDN".into()), "{contains: \"SDN\"}"),
        ];
        for (test, want) in rows {
            assert_eq!(value_test(&test), want);
        }
        assert_eq!(
            text_test(&TextTest::Contains("x".into())),
            "{contains: \"x\"}"
        );
    }
}
