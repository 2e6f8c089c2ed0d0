//! A `when` condition in one line, for people: `screen.data.recommendation == "manual_review"`.
//! Strings and data values are written as JSON; outcome and state words bare.

use std::fmt::{self, Display, Formatter};

use engine::scenario::{Cond, Subject, Test, TextTest, ValueTest};

/// A condition with the names of its handler's results (`Agent::results`), ready to print.
pub struct CondText<'a> {
    pub cond: &'a Cond,
    pub results: &'a [String],
}

impl Display for CondText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.write(f, self.cond, false)
    }
}

impl CondText<'_> {
    /// `nested`: inside a combinator, where anything of more than one part is parenthesised.
    fn write(&self, f: &mut Formatter<'_>, cond: &Cond, nested: bool) -> fmt::Result {
        let (parts, joiner): (Vec<Part>, &str) = match cond {
            Cond::All(list) => (list.iter().map(Part::Cond).collect(), " and "),
            Cond::Any(list) => (list.iter().map(Part::Cond).collect(), " or "),
            Cond::Not(inner) => {
                f.write_str("not ")?;
                return self.write(f, inner, true);
            }
            Cond::Test(subject, tests) => (
                tests
                    .iter()
                    .map(|t| Part::Test(Shown::Subject(*subject), t))
                    .collect(),
                " and ",
            ),
            Cond::Members {
                group,
                every,
                tests,
            } => (
                tests
                    .iter()
                    .map(|t| Part::Test(Shown::Members(*group, *every), t))
                    .collect(),
                " and ",
            ),
        };
        match &parts[..] {
            // Vacuous combinators, as the loader may let through: all of nothing holds.
            [] => f.write_str(if matches!(cond, Cond::Any(_)) {
                "false"
            } else {
                "true"
            }),
            [only] => self.part(f, only, nested),
            _ => {
                if nested {
                    f.write_str("(")?;
                }
                for (i, part) in parts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(joiner)?;
                    }
                    self.part(f, part, true)?;
                }
                if nested {
                    f.write_str(")")?;
                }
                Ok(())
            }
        }
    }

    fn part(&self, f: &mut Formatter<'_>, part: &Part, nested: bool) -> fmt::Result {
        match part {
            Part::Cond(c) => self.write(f, c, nested),
            Part::Test(subject, test) => self.test(f, *subject, test),
        }
    }

    fn result(&self, f: &mut Formatter<'_>, ix: usize) -> fmt::Result {
        match self.results.get(ix) {
            Some(name) => f.write_str(name),
            None => write!(f, "result {ix}"),
        }
    }

    fn test(&self, f: &mut Formatter<'_>, subject: Shown, test: &Test) -> fmt::Result {
        match subject {
            Shown::Subject(Subject::Result(ix)) => self.result(f, ix)?,
            // A member by its position, 1 first: `checks.2`.
            Shown::Subject(Subject::Member(ix, m)) => {
                self.result(f, ix)?;
                write!(f, ".{}", m + 1)?;
            }
            Shown::Subject(Subject::Input) => f.write_str("input")?,
            Shown::Subject(Subject::Reply) => f.write_str("reply")?,
            Shown::Members(ix, every) => {
                self.result(f, ix)?;
                f.write_str(if every { ".each" } else { ".some" })?;
            }
        }
        match test {
            Test::Outcome(words) => {
                f.write_str(".outcome")?;
                words_test(f, words.iter().map(|o| o.as_str()))
            }
            Test::State(words) => {
                f.write_str(".state")?;
                words_test(f, words.iter().map(|s| s.as_str()))
            }
            Test::Text(TextTest::Equals(s)) => write!(f, ".text == {}", Json(s)),
            Test::Text(TextTest::Contains(s)) => write!(f, ".text contains {}", Json(s)),
            Test::Data(d) => {
                // A JSON Pointer brings its own separator.
                let dot = if d.written.starts_with('/') { "" } else { "." };
                write!(f, ".data{dot}{}", d.written)?;
                value_test(f, &d.test)
            }
            Test::Completed(v) => {
                f.write_str(".completed")?;
                value_test(f, v)
            }
            Test::Size(v) => {
                f.write_str(".size")?;
                value_test(f, v)
            }
        }
    }
}

enum Part<'a> {
    Cond(&'a Cond),
    Test(Shown, &'a Test),
}

/// Whom a test is on, as shown: a subject, or the completed members of a group (`each`/`some`).
#[derive(Clone, Copy)]
enum Shown {
    Subject(Subject),
    Members(usize, bool),
}

/// ` == word` for one word, ` in [a, b]` for several.
fn words_test<'w>(f: &mut Formatter<'_>, words: impl Iterator<Item = &'w str>) -> fmt::Result {
    let words: Vec<&str> = words.collect();
    match &words[..] {
        [one] => write!(f, " == {one}"),
        _ => write!(f, " in [{}]", words.join(", ")),
    }
}

fn value_test(f: &mut Formatter<'_>, test: &ValueTest) -> fmt::Result {
    match test {
        ValueTest::Eq(v) => write!(f, " == {v}"),
        ValueTest::Ne(v) => write!(f, " != {v}"),
        ValueTest::Gt(n) => write!(f, " > {n}"),
        ValueTest::Gte(n) => write!(f, " >= {n}"),
        ValueTest::Lt(n) => write!(f, " < {n}"),
        ValueTest::Lte(n) => write!(f, " <= {n}"),
        ValueTest::In(list) => {
            f.write_str(" in [")?;
            for (i, v) in list.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{v}")?;
            }
            f.write_str("]")
        }
        ValueTest::Exists(true) => f.write_str(" exists"),
        ValueTest::Exists(false) => f.write_str(" is absent"),
        ValueTest::Contains(s) => write!(f, " contains {}", Json(s)),
    }
}

/// A string as a JSON string literal.
struct Json<'a>(&'a str);

impl Display for Json<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        Display::fmt(&serde_json::Value::from(self.0), f)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use engine::record::TaskState;
    use engine::scenario::{DataTest, Outcome};

    fn data(written: &str, test: ValueTest) -> Test {
        Test::Data(DataTest {
            written: written.into(),
            path: Vec::new(),
            test,
        })
    }

    fn screen(tests: Vec<Test>) -> Cond {
        Cond::Test(Subject::Result(0), tests)
    }

    #[test]
    fn conditions_read_in_one_line() {
        let results = ["screen".to_string(), "researchers".to_string()];
        let rows: Vec<(Cond, &str)> = vec![
            (
                screen(vec![data(
                    "recommendation",
                    ValueTest::Eq(json!("manual_review")),
                )]),
                r#"screen.data.recommendation == "manual_review""#,
            ),
            (
                screen(vec![Test::Outcome(vec![Outcome::Completed])]),
                "screen.outcome == completed",
            ),
            (
                screen(vec![Test::Outcome(vec![Outcome::Failed, Outcome::Timeout])]),
                "screen.outcome in [failed, timeout]",
            ),
            (
                screen(vec![
                    Test::State(vec![TaskState::InputRequired]),
                    data("/matches/0", ValueTest::Gte(0.8)),
                ]),
                "screen.state == input-required and screen.data/matches/0 >= 0.8",
            ),
            (
                Cond::Test(
                    Subject::Result(1),
                    vec![Test::Completed(ValueTest::Gte(2.0))],
                ),
                "researchers.completed >= 2",
            ),
            (
                Cond::Test(
                    Subject::Input,
                    vec![Test::Text(TextTest::Contains("urgent \"now\"".into()))],
                ),
                r#"input.text contains "urgent \"now\"""#,
            ),
            (
                Cond::Any(vec![
                    Cond::Test(
                        Subject::Reply,
                        vec![data("ok", ValueTest::In(vec![json!(true), json!("yes")]))],
                    ),
                    Cond::Not(Box::new(Cond::All(vec![
                        screen(vec![data("score", ValueTest::Exists(false))]),
                        screen(vec![data("list", ValueTest::Ne(json!("SDN")))]),
                    ]))),
                ]),
                r#"reply.data.ok in [true, "yes"] or not (screen.data.score is absent and screen.data.list != "SDN")"#,
            ),
            (
                Cond::All(vec![
                    screen(vec![
                        Test::Outcome(vec![Outcome::Completed]),
                        Test::Text(TextTest::Equals("clear".into())),
                    ]),
                    Cond::Not(Box::new(Cond::Test(
                        Subject::Result(7),
                        vec![Test::Size(ValueTest::Lt(1.0))],
                    ))),
                ]),
                r#"(screen.outcome == completed and screen.text == "clear") and not result 7.size < 1"#,
            ),
            (Cond::All(vec![]), "true"),
            (Cond::Any(vec![]), "false"),
        ];
        for (cond, expected) in rows {
            let text = CondText {
                cond: &cond,
                results: &results,
            };
            assert_eq!(text.to_string(), expected);
        }
    }
}
