//! A JUnit XML report of a `test` run: one testcase per scenario.

use std::fmt::Write as _;

pub enum CaseResult {
    Passed,
    Failed(String),
    /// The file did not load.
    Error(String),
    Skipped,
}

pub struct Case {
    pub name: String,
    pub result: CaseResult,
    /// The `message` attribute of a failure or error; by default the body's first line.
    pub message: Option<String>,
}

pub fn render(cases: &[Case]) -> String {
    let count = |f: fn(&CaseResult) -> bool| cases.iter().filter(|c| f(&c.result)).count();
    let failures = count(|r| matches!(r, CaseResult::Failed(_)));
    let errors = count(|r| matches!(r, CaseResult::Error(_)));
    let skipped = count(|r| matches!(r, CaseResult::Skipped));
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<testsuites name=\"a2a-sim\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">",
        cases.len()
    );
    let _ = writeln!(
        x,
        "  <testsuite name=\"a2a-sim test\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">",
        cases.len()
    );
    for c in cases {
        let name = escape(&c.name);
        match &c.result {
            CaseResult::Passed => {
                let _ = writeln!(x, "    <testcase classname=\"a2a-sim\" name=\"{name}\"/>");
            }
            CaseResult::Skipped => {
                let _ = writeln!(
                    x,
                    "    <testcase classname=\"a2a-sim\" name=\"{name}\">\n      <skipped/>\n    </testcase>"
                );
            }
            CaseResult::Failed(text) | CaseResult::Error(text) => {
                let tag = if matches!(c.result, CaseResult::Failed(_)) {
                    "failure"
                } else {
                    "error"
                };
                let first = c
                    .message
                    .as_deref()
                    .unwrap_or_else(|| text.lines().next().unwrap_or_default());
                let _ = writeln!(
                    x,
                    "    <testcase classname=\"a2a-sim\" name=\"{name}\">\n      <{tag} message=\"{}\">{}</{tag}>\n    </testcase>",
                    escape(first),
                    escape(text)
                );
            }
        }
    }
    x.push_str("  </testsuite>\n</testsuites>\n");
    x
}

/// XML text and attribute escaping; control characters XML 1.0 cannot carry are dropped.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(c),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}
