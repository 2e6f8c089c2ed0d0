//! A handler script compiled to a flat program: `when` becomes a branch and a jump, so a task's
//! place in its script is one number and nesting needs no stack.

use crate::scenario::{HandlerStep, When};

#[derive(Debug, Clone, Copy)]
pub enum Op<'s> {
    /// A step that takes a turn. `n` is its 1-based pre-order position in the script.
    Step {
        n: usize,
        step: &'s HandlerStep,
    },
    /// A `when`: on a false condition, go on at `otherwise`.
    Branch {
        n: usize,
        when: &'s When,
        otherwise: usize,
    },
    Jump(usize),
}

/// Compiles a script. Pre-order numbering: a `when` counts, then its `then` steps, then its
/// `else` steps — the numbering error messages and `decisions` use.
pub fn compile(script: &[HandlerStep]) -> Vec<Op<'_>> {
    let mut ops = Vec::with_capacity(script.len());
    let mut n = 0;
    emit(script, &mut ops, &mut n);
    ops
}

fn emit<'s>(script: &'s [HandlerStep], ops: &mut Vec<Op<'s>>, n: &mut usize) {
    for step in script {
        *n += 1;
        let HandlerStep::When(when) = step else {
            ops.push(Op::Step { n: *n, step });
            continue;
        };
        let branch = ops.len();
        ops.push(Op::Branch {
            n: *n,
            when,
            otherwise: 0,
        });
        emit(&when.then, ops, n);
        let jump = ops.len();
        if !when.otherwise.is_empty() {
            ops.push(Op::Jump(0));
        }
        let otherwise_at = ops.len();
        emit(&when.otherwise, ops, n);
        let end = ops.len();
        if let Op::Branch { otherwise, .. } = &mut ops[branch] {
            *otherwise = otherwise_at;
        }
        if let Some(Op::Jump(to)) = ops.get_mut(jump).filter(|_| !when.otherwise.is_empty()) {
            *to = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::TaskState;
    use crate::scenario::{Cond, Subject};

    fn status(s: TaskState) -> HandlerStep {
        HandlerStep::Status(s, None)
    }

    fn when(then: Vec<HandlerStep>, otherwise: Vec<HandlerStep>) -> HandlerStep {
        HandlerStep::When(When {
            cond: Cond::Test(Subject::Input, Vec::new()),
            then,
            otherwise,
        })
    }

    fn shape(ops: &[Op]) -> Vec<String> {
        ops.iter()
            .map(|op| match op {
                Op::Step { n, .. } => format!("s{n}"),
                Op::Branch { n, otherwise, .. } => format!("b{n}->{otherwise}"),
                Op::Jump(to) => format!("j{to}"),
            })
            .collect()
    }

    #[test]
    fn handler_steps_are_numbered_in_pre_order_then_before_else() {
        use TaskState::*;
        let script = vec![
            status(Working),
            when(
                vec![when(vec![status(Completed)], vec![])],
                vec![status(Failed)],
            ),
            status(Completed),
        ];
        let ops = compile(&script);
        // 1 working; 2 when; 3 nested when; 4 its then; 5 the outer else; 6 completed.
        assert_eq!(
            shape(&ops),
            ["s1", "b2->5", "b3->4", "s4", "j6", "s5", "s6"]
        );
    }
}
