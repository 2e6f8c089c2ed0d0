//! Handler scripts: status steps, messages, artifacts, delegations, fan-outs, waits and `when`s,
//! with the `as` names they define (unique within the handler, visible to later steps).

use crate::diagnostic::with_hint;
use crate::file::*;
use crate::yaml::Seg;
use engine::record::TaskState;
use engine::scenario::*;

use super::child;
use super::state::{Loader, NamedResult, Names, ResultKind};

/// The most attempts a `retry` may ask for: enough for any real policy, and a run stays short.
pub const MAX_ATTEMPTS: i64 = 1000;

/// The `as` names of one handler so far, in document order (pre-order through `when` branches).
#[derive(Debug, Default)]
pub(super) struct Scope {
    pub results: Vec<NamedResult>,
}

impl Scope {
    pub fn get(&self, name: &str) -> Option<(ResultIx, &NamedResult)> {
        self.results
            .iter()
            .enumerate()
            .find(|(_, r)| r.name == name)
    }
}

fn agent_of(t: &Target) -> Option<AgentIx> {
    match t {
        Target::Agent(a) => Some(*a),
        Target::Discover(_) => None,
    }
}

impl Loader<'_> {
    pub(super) fn handler(
        &mut self,
        at: &[Seg],
        steps: Vec<HandlerStepFile>,
        names: &Names,
        scope: &mut Scope,
    ) -> Vec<HandlerStep> {
        steps
            .into_iter()
            .enumerate()
            .map(|(j, step)| {
                let mut here = at.to_vec();
                here.push(Seg::Index(j));
                self.handler_step(here, step, names, scope)
            })
            .collect()
    }

    fn handler_step(
        &mut self,
        at: Vec<Seg>,
        step: HandlerStepFile,
        names: &Names,
        scope: &mut Scope,
    ) -> HandlerStep {
        match step {
            HandlerStepFile::Status { state, message } => {
                let s = TaskState::from_a2a(&state.replace('_', "-")).unwrap_or(TaskState::Failed);
                if message.as_deref() == Some("") {
                    self.problem(
                        child(&at, &state),
                        format!("an empty status message; write `- {state}` for a status change without one"),
                    );
                }
                let message = message.map(|m| self.text(child(&at, &state), m, scope));
                HandlerStep::Status(s, message)
            }
            HandlerStepFile::Message(text) => {
                if text.is_empty() {
                    self.problem(child(&at, "message"), "`message` must not be empty");
                }
                HandlerStep::Message(self.text(child(&at, "message"), text, scope))
            }
            HandlerStepFile::Artifact(a) => {
                HandlerStep::Artifact(self.artifact(child(&at, "artifact"), a, scope))
            }
            HandlerStepFile::Delegate(d) => {
                HandlerStep::Delegate(self.delegate(child(&at, "delegate"), *d, names, scope))
            }
            HandlerStepFile::FanOut(f) => {
                HandlerStep::FanOut(self.fan_out(child(&at, "fan_out"), f, names, scope))
            }
            HandlerStepFile::Wait(n) => HandlerStep::Wait(
                self.at_least(child(&at, "wait"), "`wait`", n, 0)
                    .unwrap_or(0),
            ),
            HandlerStepFile::When(w) => HandlerStep::When(self.when(&at, *w, names, scope)),
        }
    }

    fn when(&mut self, at: &[Seg], w: WhenFile, names: &Names, scope: &mut Scope) -> When {
        let cond = match w.cond {
            Some(c) => self.cond(&child(at, "when"), c, scope),
            None => {
                self.problem(
                    at.to_vec(),
                    "`then` and `else` go with `when: CONDITION` in the same step",
                );
                Cond::All(Vec::new())
            }
        };
        let then = match w.then {
            Some(steps) => self.handler(&child(at, "then"), steps, names, scope),
            None => {
                self.problem(
                    child(at, "when"),
                    "a `when` step needs `then: [steps]` beside it (and may have `else: [steps]`)",
                );
                Vec::new()
            }
        };
        let otherwise = match w.otherwise {
            Some(steps) => self.handler(&child(at, "else"), steps, names, scope),
            None => Vec::new(),
        };
        When {
            cond,
            then,
            otherwise,
        }
    }

    fn artifact(&mut self, at: Vec<Seg>, a: ArtifactFile, scope: &Scope) -> ArtifactSpec {
        let has_text = a.text.as_ref().is_some_and(|t| !t.is_empty());
        let has_data = a.data.as_ref().is_some_and(|d| !d.is_empty());
        let mut from = Vec::new();
        if let Some(words) = a.from {
            if a.text.is_some() || a.data.is_some() {
                self.problem(
                    child(&at, "from"),
                    "an artifact made `from` results takes its text and data from them: drop `text` and `data`",
                );
            }
            if words.words.is_empty() {
                self.problem(child(&at, "from"), "`from` needs at least one result name");
            }
            for (k, name) in words.words.iter().enumerate() {
                let here = words.word_path(&child(&at, "from"), k);
                if let Some(ix) = self.result_ref(here, name, scope) {
                    from.push(ix);
                }
            }
        } else if !has_text && !has_data {
            self.problem(
                at.clone(),
                "an artifact needs a non-empty `text` or a non-empty `data` mapping (or both), or `from: [results]`",
            );
        }
        let text = a
            .text
            .filter(|t| !t.is_empty())
            .map(|t| self.text(child(&at, "text"), t, scope));
        let data = a.data.filter(|d| !d.is_empty());
        let data_template = data
            .as_ref()
            .and_then(|d| self.data_template(&child(&at, "data"), d, scope));
        ArtifactSpec {
            name: a.name,
            text,
            data,
            data_template,
            from,
        }
    }

    /// Resolves a result name defined earlier in this handler.
    pub(super) fn result_ref(
        &mut self,
        at: Vec<Seg>,
        name: &str,
        scope: &Scope,
    ) -> Option<ResultIx> {
        if let Some((ix, _)) = scope.get(name) {
            return Some(ix);
        }
        let msg = with_hint(
            format!(
                "unknown result `{name}`: no earlier `delegate` or `fan_out` of this handler has `as: {name}`"
            ),
            name,
            scope.results.iter().map(|r| r.name.as_str()),
        );
        self.problem(at, msg);
        None
    }

    /// Defines an `as` name; a duplicate is reported at its second definition.
    fn define_result(
        &mut self,
        at: Vec<Seg>,
        name: Option<String>,
        kind: ResultKind,
        scope: &mut Scope,
    ) -> Option<ResultIx> {
        let name = name?;
        if name.is_empty() {
            self.problem(at, "a result name (`as`) must not be empty");
        } else if name.contains('/') {
            self.problem(
                at,
                format!("a result name (`as`) cannot contain `/`: `expect` paths such as `alias/{name}` split on it"),
            );
        } else if name.bytes().all(|b| b.is_ascii_digit()) {
            self.problem(
                at,
                format!("a result name (`as`) cannot be a number: in `expect` paths `{name}` names a fan-out member"),
            );
        } else if let Some((ix, _)) = scope.get(&name) {
            self.problem(
                at,
                format!("duplicate result name `{name}`: `as` names are unique within a handler"),
            );
            return Some(ix);
        }
        scope.results.push(NamedResult {
            name,
            kind,
            members: Vec::new(),
            member_as: Vec::new(),
        });
        Some(scope.results.len() - 1)
    }

    fn delegate(
        &mut self,
        at: Vec<Seg>,
        d: DelegateFile,
        names: &Names,
        scope: &mut Scope,
    ) -> Delegate {
        let to = self.target(&at, d.to, names);
        let message = self.handler_message(&at, d.text, d.data, scope);
        let timeout = d
            .timeout
            .and_then(|t| self.at_least(child(&at, "timeout"), "`timeout`", t, 1));
        let retry = match d.retry {
            None => Retry::default(),
            Some(r) => {
                let here = child(&at, "retry");
                let attempts = match r.attempts {
                    None => 1,
                    Some(k) if k > MAX_ATTEMPTS => {
                        self.problem(
                            child(&here, "attempts"),
                            format!("`attempts` may be at most {MAX_ATTEMPTS}, not {k}"),
                        );
                        1
                    }
                    Some(k) => self
                        .at_least(child(&here, "attempts"), "`attempts`", k, 1)
                        .map_or(1, |k| k as u32),
                };
                let backoff = r
                    .backoff
                    .map_or(Some(1), |b| {
                        self.at_least(child(&here, "backoff"), "`backoff`", b, 0)
                    })
                    .unwrap_or(1);
                Retry { attempts, backoff }
            }
        };
        let replies = d
            .replies
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(k, r)| {
                let mut here = child(&at, "replies");
                here.push(Seg::Index(k));
                self.handler_message(&here, r.text, r.data, scope)
            })
            .collect();
        let kind = ResultKind::Delegate(agent_of(&to));
        // Defined after the step's own references: a delegation cannot test itself.
        let result = self.define_result(child(&at, "as"), d.result, kind, scope);
        Delegate {
            to,
            message,
            result,
            on_error: on_error(d.on_error),
            timeout,
            retry,
            on_pause: match d.on_pause {
                OnPauseFile::Cancel => OnPause::Cancel,
                OnPauseFile::Escalate => OnPause::Escalate,
            },
            replies,
        }
    }

    fn fan_out(&mut self, at: Vec<Seg>, f: FanOutFile, names: &Names, scope: &mut Scope) -> FanOut {
        for (key, present) in [
            ("on_pause", f.on_pause.is_some()),
            ("escalate", f.escalate.is_some()),
            ("replies", f.replies.is_some()),
        ] {
            if present {
                self.problem(
                    child(&at, key),
                    format!("a fan-out cancels a child that pauses, so it takes no `{key}`; delegate to that agent with `delegate: {{..., on_pause: escalate}}` or `replies` instead"),
                );
            }
        }
        let here = child(&at, "to");
        let mut written = Vec::new();
        let mut member_as: Vec<Option<String>> = Vec::new();
        let (to, members) = match f.to {
            FanTargetsFile::List(list) => {
                let written_agent = |t: &TargetFile| match t {
                    TargetFile::Agent(name) => Some(name.clone()),
                    _ => None,
                };
                written = list
                    .iter()
                    .map(|t| match t {
                        TargetFile::Named(inner, _) => written_agent(inner),
                        t => written_agent(t),
                    })
                    .collect();
                member_as = list
                    .iter()
                    .map(|t| match t {
                        TargetFile::Named(_, m) => Some(m.clone()),
                        _ => None,
                    })
                    .collect();
                if list.is_empty() {
                    self.problem(here.clone(), "a fan-out needs at least one target in `to`");
                }
                let targets: Vec<Target> = list
                    .into_iter()
                    .enumerate()
                    .map(|(k, t)| {
                        let mut entry = here.clone();
                        entry.push(Seg::Index(k));
                        self.list_target(&entry, t, names)
                    })
                    .collect();
                let members = targets.iter().map(agent_of).collect();
                (FanTargets::List(targets), Some(members))
            }
            FanTargetsFile::Ranking(r) => {
                if r.discover.is_empty() {
                    self.problem(
                        child(&here, "discover"),
                        "`discover` needs at least one tag",
                    );
                }
                let limit = r.limit.and_then(|l| {
                    self.at_least(child(&here, "limit"), "`limit`", l, 0)
                        .map(|l| usize::try_from(l).unwrap_or(usize::MAX))
                });
                let tags = self.tag_set(&r.discover);
                (FanTargets::Ranking { tags, limit }, None)
            }
        };
        let message = self.handler_message(&at, f.text, f.data, scope);
        let timeout = f
            .timeout
            .and_then(|t| self.at_least(child(&at, "timeout"), "`timeout`", t, 1));
        let result = self.define_result(
            child(&at, "as"),
            f.result,
            ResultKind::FanOut(members),
            scope,
        );
        self.member_names(&here, &member_as);
        if let Some(r) = result {
            scope.results[r].members = written;
            scope.results[r].member_as = member_as;
        }
        FanOut {
            to,
            message,
            result,
            join: match f.join.unwrap_or_default() {
                JoinFile::All => Join::All,
                JoinFile::Any => Join::Any,
            },
            timeout,
            on_error: on_error(f.on_error),
        }
    }

    /// The members' `as` names: not empty, not a number, each once.
    fn member_names(&mut self, to: &[Seg], names: &[Option<String>]) {
        for (k, name) in names.iter().enumerate() {
            let Some(name) = name else { continue };
            let here = [to, &[Seg::Index(k), Seg::from("as")]].concat();
            if name.is_empty() || name.bytes().all(|b| b.is_ascii_digit()) || name.contains('.') {
                self.problem(
                    here,
                    format!(
                        "a member's `as` is a name (not empty, not a number, no `.`), not `{name}`"
                    ),
                );
            } else if names[..k].iter().flatten().any(|n| n == name) {
                self.problem(
                    here,
                    format!("duplicate member name `{name}`: each member of a fan-out has its own"),
                );
            }
        }
    }

    /// One entry of a fan-out's `to` list: located at the entry itself, not at a `to` key.
    fn list_target(&mut self, at: &[Seg], t: TargetFile, names: &Names) -> Target {
        match t {
            TargetFile::Named(inner, _) => self.list_target(at, *inner, names),
            TargetFile::Agent(name) => Target::Agent(self.agent_ref(at.to_vec(), &name, names)),
            TargetFile::Discover(tags) => {
                if tags.is_empty() {
                    self.problem(child(at, "discover"), "`discover` needs at least one tag");
                }
                Target::Discover(self.tag_set(&tags).into())
            }
        }
    }
}

fn on_error(e: OnErrorFile) -> OnError {
    match e {
        OnErrorFile::Fail => OnError::Fail,
        OnErrorFile::Continue => OnError::Continue,
    }
}
