//! `when` conditions: a combinator (`all`, `any`, `not`) or one subject (a delegation, a fan-out,
//! a fan-out's member `GROUP.MEMBER`, the input, the reply) with the tests that fit it, and
//! `each`/`some` over a fan-out's members.

use crate::diagnostic::with_hint;
use crate::file::*;
use crate::yaml::Seg;
use engine::scenario::*;

use super::handlers::Scope;
use super::value_tests::{key_of, list, text_test};
use super::{Loader, child};

const COMBINATORS: [&str; 3] = ["all", "any", "not"];

/// Which tests a subject takes.
const INPUT_TESTS: [&str; 2] = ["text", "data"];
const DELEGATE_TESTS: [&str; 4] = ["outcome", "state", "text", "data"];
const GROUP_TESTS: [&str; 3] = ["outcome", "completed", "size"];

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
            let listed = matches!(r.kind, super::state::ResultKind::FanOut(Some(_)));
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
        // A member by its own name first, else by the agent its `to` list names.
        if let Some(k) = r
            .member_as
            .iter()
            .position(|m| m.as_deref() == Some(member))
        {
            return Some((ix, k as u32, written.to_string()));
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
}
