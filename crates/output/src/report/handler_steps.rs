//! Handler steps by number: the 1-based pre-order count that decisions and error messages use
//! (a `when` counts, then its `then` steps, then its `else` steps, nested ones included).

use engine::scenario::{HandlerStep, When};

/// The `n`th step of `handler` in pre-order (1-based), if there is one.
pub fn step_at(handler: &[HandlerStep], n: usize) -> Option<&HandlerStep> {
    let mut count = 0;
    // The branches still being walked, innermost last: an explicit stack instead of recursion.
    let mut stack = vec![handler.iter()];
    while let Some(steps) = stack.last_mut() {
        let Some(step) = steps.next() else {
            stack.pop();
            continue;
        };
        count += 1;
        if count == n {
            return Some(step);
        }
        if let HandlerStep::When(w) = step {
            stack.push(w.otherwise.iter());
            stack.push(w.then.iter());
        }
    }
    None
}

/// The `when` that is step `n` of `handler`; `None` when step `n` is absent or not a `when`.
pub fn when_at(handler: &[HandlerStep], n: usize) -> Option<&When> {
    match step_at(handler, n)? {
        HandlerStep::When(w) => Some(w),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::record::TaskState;
    use engine::scenario::{Cond, Subject, Test, TextTest};

    fn status(text: &str) -> HandlerStep {
        HandlerStep::Status(TaskState::Working, Some(text.into()))
    }

    /// A `when` named by the text its condition tests, so the `when`s of a tree can be told apart.
    fn when(name: &str, then: Vec<HandlerStep>, otherwise: Vec<HandlerStep>) -> HandlerStep {
        HandlerStep::When(When {
            cond: Cond::Test(
                Subject::Input,
                vec![Test::Text(TextTest::Equals(name.into()))],
            ),
            then,
            otherwise,
        })
    }

    fn name(w: &When) -> &str {
        match &w.cond {
            Cond::Test(_, tests) => match &tests[..] {
                [Test::Text(TextTest::Equals(name))] => name,
                _ => "?",
            },
            _ => "?",
        }
    }

    fn text(step: &HandlerStep) -> &str {
        match step {
            HandlerStep::Status(_, Some(t)) => t,
            HandlerStep::When(w) => name(w),
            _ => "?",
        }
    }

    /// 1 a; 2 w1 {then: 3 b, 4 w2 {then: 5 c, else: 6 d}, else: 7 e}; 8 w3 {}; 9 f
    fn tree() -> Vec<HandlerStep> {
        vec![
            status("a"),
            when(
                "w1",
                vec![
                    status("b"),
                    when("w2", vec![status("c")], vec![status("d")]),
                ],
                vec![status("e")],
            ),
            when("w3", vec![], vec![]),
            status("f"),
        ]
    }

    #[test]
    fn steps_are_counted_in_pre_order_then_before_else() {
        let handler = tree();
        let rows = [
            (1, "a"),
            (2, "w1"),
            (3, "b"),
            (4, "w2"),
            (5, "c"),
            (6, "d"),
            (7, "e"),
            (8, "w3"),
            (9, "f"),
        ];
        for (n, expected) in rows {
            assert_eq!(step_at(&handler, n).map(text), Some(expected), "step {n}");
        }
        assert!(step_at(&handler, 0).is_none());
        assert!(step_at(&handler, 10).is_none());
    }

    #[test]
    fn when_at_finds_nested_whens_and_nothing_else() {
        let handler = tree();
        let rows = [
            (2, Some("w1")),
            (4, Some("w2")),
            (8, Some("w3")),
            (1, None),
            (5, None),
            (99, None),
        ];
        for (n, expected) in rows {
            assert_eq!(when_at(&handler, n).map(name), expected, "step {n}");
        }
    }
}
