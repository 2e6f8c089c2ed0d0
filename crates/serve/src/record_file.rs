//! `serve --record FILE`: the session written as a scenario — the served file imported, each
//! request that changed something as a driver step (a send with an alias of its own, a reply,
//! get, cancel or push config by the task's id), the waits real time made as `wait` steps, and
//! what became of each task as `expect` — so `a2a-sim test FILE` replays it and a session found
//! by hand becomes a regression test. Push tokens are never written (a placeholder stands in).

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use engine::World;
use engine::record::StepResult;
use engine::scenario::{Scenario, Step, Target, TaskRef};

/// What the session did besides its requests: the clock moved on its own (scheduled work came
/// due in real time) after this many steps, from one tick to another.
#[derive(Debug, Default)]
pub struct Waits(pub Vec<(usize, u64, u64)>);

/// The token a recorded push config carries instead of the client's.
const TOKEN: &str = "recorded-token";

/// The scenario text of a finished session of `served` (the file's path), written for `out`.
pub fn scenario_text(world: &World, served: &Path, out: &Path, waits: &Waits) -> String {
    let s: &Scenario = world.scenario;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# A session of {} recorded by `a2a-sim serve --record`: its requests as steps, what\n# became of each task as `expect`. `a2a-sim test` on this file replays it.",
        served.display()
    );
    let _ = writeln!(
        text,
        "name: {}",
        quoted(&format!("{} - recorded session", s.name))
    );
    let _ = writeln!(text, "imports: [{}]", quoted(&relative(served, out)));
    text.push_str("golden: false\nsteps:\n");
    let mut waits = waits.0.iter().peekable();
    let mut expects = Vec::new();
    for (i, step) in world.served.iter().enumerate() {
        while let Some(&&(after, from, to)) = waits.peek() {
            if after > i {
                break;
            }
            waits.next();
            if to > from {
                let _ = writeln!(text, "  - wait: {}", to - from);
            }
        }
        let record = world.steps.get(i);
        if let Some(line) = step_line(s, step, i + 1) {
            text.push_str(&line);
        }
        if let (Some(r), Step::Send(_)) = (record, step)
            && let StepResult::Task { task, .. } = r.result
        {
            expects.push(format!(
                "  - {{task: s{}, state: {}}}\n",
                i + 1,
                world.tasks[task].state
            ));
        }
    }
    text.push_str("expect:\n");
    for e in expects {
        text.push_str(&e);
    }
    let _ = writeln!(text, "  - {{errors: {}}}", world.errors.len());
    text
}

/// One driver step as the scenario writes it; `None` for what a session never records.
fn step_line(s: &Scenario, step: &Step, n: usize) -> Option<String> {
    let caller = |c: usize| quoted(&s.callers[c].id);
    let task = |t: &TaskRef| match t {
        TaskRef::Id(id) => format!("task_id: {}", quoted(id)),
        TaskRef::Alias(a) => format!("task: {}", quoted(s.aliases.get(*a).unwrap_or_default())),
    };
    let message = |text: &str, data: Option<&engine::scenario::DataMap>| {
        let mut m = format!("text: {}", quoted(text));
        if let Some(d) = data {
            let _ = write!(m, ", data: {}", Value::Object(d.clone()));
        }
        m
    };
    Some(match step {
        Step::Send(send) => {
            let Target::Agent(to) = &send.to else {
                return None;
            };
            let mut line = format!(
                "  - {}: {{caller: {}, to: {}, {}, as: s{n}",
                if send.stream() { "stream" } else { "send" },
                caller(send.caller()),
                quoted(s.agents[*to].name()),
                message(send.text.as_str(), send.data())
            );
            if send.return_immediately() {
                line.push_str(", return_immediately: true");
            }
            if let Some(p) = send.push() {
                let _ = write!(line, ", push: {{url: {}, token: {TOKEN}}}", quoted(&p.url));
            }
            line.push_str("}\n");
            line
        }
        Step::Reply {
            caller: c,
            task: t,
            message: m,
        } => format!(
            "  - reply: {{caller: {}, {}, {}}}\n",
            caller(*c),
            task(t),
            message(m.text.as_str(), m.data())
        ),
        Step::Get { caller: c, task: t } => {
            format!("  - get: {{caller: {}, {}}}\n", caller(*c), task(t))
        }
        Step::Cancel { caller: c, task: t } => {
            format!("  - cancel: {{caller: {}, {}}}\n", caller(*c), task(t))
        }
        Step::SetPushConfig {
            caller: c,
            task: t,
            push,
            ..
        } => format!(
            "  - set_push_config: {{caller: {}, {}, url: {}, token: {TOKEN}}}\n",
            caller(*c),
            task(t),
            quoted(&push.url)
        ),
        _ => return None,
    })
}

/// A YAML flow scalar: JSON's quoting, which YAML reads the same.
fn quoted(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// `target` as a path from the folder of `from` (both as given; made absolute when one is not).
fn relative(target: &Path, from: &Path) -> String {
    let abs = |p: &Path| -> PathBuf {
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir().unwrap_or_default().join(p)
        };
        p.components().fold(PathBuf::new(), |mut acc, c| {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    acc.pop();
                }
                c => acc.push(c),
            }
            acc
        })
    };
    let (target, base) = (abs(target), abs(from.parent().unwrap_or(Path::new("."))));
    let t: Vec<_> = target.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut rel = PathBuf::new();
    for _ in common..b.len() {
        rel.push("..");
    }
    for c in &t[common..] {
        rel.push(c);
    }
    rel.to_string_lossy().replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::relative;
    use std::path::Path;

    #[test]
    fn an_import_is_written_from_the_recording_folder() {
        assert_eq!(
            relative(Path::new("/a/b/s.yaml"), Path::new("/a/b/r.yaml")),
            "s.yaml"
        );
        assert_eq!(
            relative(Path::new("/a/b/s.yaml"), Path::new("/a/c/r.yaml")),
            "../b/s.yaml"
        );
        assert_eq!(
            relative(Path::new("/a/s.yaml"), Path::new("/a/b/c/r.yaml")),
            "../../s.yaml"
        );
    }
}
