//! Driver steps: `send`, `stream`, `reply`, `wait`, ...

use crate::file::*;
use crate::yaml::Seg;
use engine::scenario::*;

use super::{Child, Loader, Names, child, path};

impl Loader<'_> {
    fn task_ref(
        &mut self,
        at: &[Seg],
        task: Option<Name>,
        task_id: Option<Name>,
        names: &Names,
    ) -> TaskRef {
        match (task, task_id) {
            (Some(alias), None) => TaskRef::Alias(self.alias_ref(Child(at, "task"), &alias, names)),
            (None, Some(id)) => TaskRef::Id(Box::from(id.as_str())),
            (Some(_), Some(_)) => {
                self.problem(
                    child(at, "task_id"),
                    "give `task` (an alias) or `task_id` (a literal id), not both",
                );
                TaskRef::Id(Box::default())
            }
            (None, None) => {
                self.problem(
                    path(at),
                    "this step needs `task` (an alias) or `task_id` (a literal id)",
                );
                TaskRef::Id(Box::default())
            }
        }
    }

    pub(super) fn step(
        &mut self,
        i: usize,
        step: StepFile,
        names: &mut Names,
        aliases: &mut engine::scenario::NameList,
    ) -> Step {
        // On the stack: a path is built from it only when a problem is reported.
        let at = [Seg::name("steps"), Seg::Index(i), Seg::name(step.kind())];
        match step {
            StepFile::Discover(d) => {
                let caller = self.caller_ref(Child(&at, "caller"), &d.caller, names);
                let limit = match d.limit {
                    None => None,
                    Some(l) if l >= 0 => Some(usize::try_from(l).unwrap_or(usize::MAX)),
                    Some(l) => {
                        self.problem(
                            child(&at, "limit"),
                            format!("limit must be 0 or more, not {l}"),
                        );
                        None
                    }
                };
                if d.tags.is_empty() {
                    self.problem(child(&at, "tags"), "`discover` needs at least one tag");
                }
                Step::Discover {
                    caller,
                    tags: self.tag_set(&d.tags),
                    limit,
                }
            }
            StepFile::Send(s) => Step::Send(self.send(&at, s, false, names, aliases)),
            StepFile::Stream(s) => Step::Send(self.send(&at, s, true, names, aliases)),
            StepFile::Reply(r) => Step::Reply {
                caller: self.caller_ref(Child(&at, "caller"), &r.caller, names),
                task: self.task_ref(&at, r.task, r.task_id, names),
                message: self.message(&at, r.text, r.data),
            },
            StepFile::SetPushConfig(p) => Step::SetPushConfig {
                caller: self.caller_ref(Child(&at, "caller"), &p.caller, names),
                task: self.task_ref(&at, p.task, p.task_id, names),
                agent: p
                    .agent
                    .map(|a| self.agent_ref(Child(&at, "agent"), &a, names)),
                push: Box::new(PushSpec {
                    url: p.url,
                    token: Secret::new(p.token.unwrap_or_default()),
                    token_required: true,
                }),
            },
            StepFile::Cancel(t) => Step::Cancel {
                caller: self.caller_ref(Child(&at, "caller"), &t.caller, names),
                task: self.task_ref(&at, t.task, t.task_id, names),
            },
            StepFile::Get(t) => Step::Get {
                caller: self.caller_ref(Child(&at, "caller"), &t.caller, names),
                task: self.task_ref(&at, t.task, t.task_id, names),
            },
            StepFile::Wait(WaitStepFile::Ticks(n)) => Step::Wait(WaitSpec::Ticks(
                self.at_least(path(&at), "`wait`", n, 0).unwrap_or(0),
            )),
            StepFile::Matrix(m) => {
                let callers = self.selection(
                    child(&at, "callers"),
                    m.callers,
                    names.callers.len(),
                    |l, at, n| l.caller_ref(at, n, names),
                );
                let agents = self.selection(
                    child(&at, "agents"),
                    m.agents,
                    names.agents.len(),
                    |l, at, n| l.agent_ref(at, n, names),
                );
                Step::Matrix { callers, agents }
            }
            StepFile::Wait(WaitStepFile::Task(t)) => Step::Wait(WaitSpec::Task(self.alias_ref(
                Child(&at, "task"),
                &t.task,
                names,
            ))),
        }
    }

    /// A matrix axis: the names given, resolved in order, or `all` of the `count` declared.
    fn selection(
        &mut self,
        at: Vec<Seg>,
        sel: SelectionFile,
        count: usize,
        mut resolve: impl FnMut(&mut Self, Vec<Seg>, &str) -> usize,
    ) -> Vec<usize> {
        match sel {
            SelectionFile::Word(w) if w == "all" => (0..count).collect(),
            SelectionFile::Word(w) => {
                self.problem(at, format!("expected a list of names or `all`, not `{w}`"));
                Vec::new()
            }
            SelectionFile::List(names) => {
                if names.is_empty() {
                    self.problem(
                        at.clone(),
                        "a matrix axis needs at least one name (or `all`)",
                    );
                }
                let mut seen = Vec::new();
                for (j, n) in names.iter().enumerate() {
                    let mut here = at.clone();
                    here.push(Seg::Index(j));
                    if names[..j].contains(n) {
                        self.problem(here, format!("`{n}` is listed twice"));
                        continue;
                    }
                    seen.push(resolve(self, here, n));
                }
                seen
            }
        }
    }

    fn send(
        &mut self,
        at: &[Seg],
        s: SendStepFile,
        stream: bool,
        names: &mut Names,
        aliases: &mut engine::scenario::NameList,
    ) -> Send {
        let caller = self.caller_ref(Child(at, "caller"), &s.caller, names);
        let to = self.target(at, s.to, names);
        let context = match (s.context, s.context_of) {
            (None, None) => ContextSpec::Fresh,
            (Some(c), None) => {
                if c.is_empty() {
                    self.problem(child(at, "context"), "`context` must not be empty");
                }
                ContextSpec::Literal(Box::from(c.as_str()))
            }
            (None, Some(alias)) => {
                ContextSpec::Of(self.alias_ref(Child(at, "context_of"), &alias, names))
            }
            (Some(_), Some(_)) => {
                self.problem(
                    child(at, "context_of"),
                    "give `context` or `context_of`, not both",
                );
                ContextSpec::Fresh
            }
        };
        let message = self.message(at, s.text, s.data);
        let return_immediately = s.return_immediately.unwrap_or(false);
        if stream && s.return_immediately.is_some() {
            self.problem(
                child(at, "return_immediately"),
                "a stream is read to its end, so `return_immediately` goes with `send` only",
            );
        }
        let push = s.push.map(|p| PushSpec {
            url: p.url,
            token: Secret::new(p.token.unwrap_or_default()),
            token_required: true,
        });
        // The alias is defined after the step's own references are resolved: a step cannot name itself.
        let alias = s.alias.map(|name| {
            if name.is_empty() {
                self.problem(child(at, "as"), "an alias (`as`) must not be empty");
            } else if names.aliases.contains_key(name.as_str()) {
                self.problem(
                    child(at, "as"),
                    format!("duplicate alias `{name}`: aliases are unique"),
                );
            }
            let ix = aliases.len();
            aliases.push(&name);
            names.aliases.entry(name).or_insert(ix);
            ix
        });
        Send::from(SendParts {
            stream,
            caller,
            to,
            message,
            alias,
            push,
            context,
            return_immediately,
        })
    }
}
