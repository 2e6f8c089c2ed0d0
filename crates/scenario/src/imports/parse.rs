//! One file of the tree parsed: an empty file or a YAML error is a located problem, and the
//! `--set` overrides that address the file are applied to it (the file is read once only when
//! there are none).

use crate::diagnostic::Diagnostic;
use crate::file::{ScenarioFile, StepList};
use crate::overrides::Override;
use crate::redact;
use crate::secrets::Redact;
use crate::source::Source;
use crate::yaml;

use super::Merger;

impl Merger<'_> {
    /// Parses source `src` as written, then with the overrides that address it. Its agents
    /// remember whether the file has `templates: true`: the opt-in is the defining file's.
    pub(super) fn parse(&mut self, s: &Source, src: usize) -> Option<ScenarioFile> {
        let mut file = self.parse_file(s, src)?;
        let templates = file.templates == Some(true);
        for a in file.agents.iter_mut().flatten() {
            a.templates = templates;
        }
        Some(file)
    }

    fn parse_file(&mut self, s: &Source, src: usize) -> Option<ScenarioFile> {
        if !yaml::has_content(&s.text) {
            // Not even a library: an empty file is a mistake.
            self.problems.push(Diagnostic {
                file: s.display.clone(),
                line: 1,
                column: 1,
                message: "the file is empty: a scenario needs `agents`, `callers` and `steps`"
                    .to_string(),
                coded: None,
            });
            return None;
        }
        // A large file's second half of steps is read on a second thread.
        let joined = |file: &mut ScenarioFile, rest: StepList| {
            file.steps.get_or_insert_default().append(rest);
        };
        let file = match yaml::parse_split(&s.text, "steps", yaml::SPLIT_FROM, joined) {
            Ok(f) => f,
            Err(e) => {
                let redact = e.path.as_deref().map_or(Redact::NOTHING, |p| s.redact(p));
                self.problems.push(Diagnostic {
                    file: s.display.clone(),
                    line: e.line,
                    column: e.column,
                    message: redact::message(&e.message, &redact),
                    coded: None,
                });
                return None;
            }
        };
        // Overrides work on the document as a value; without any, the file is read once only
        // (a second parse into a value tree would cost as much as the load itself).
        if self.overrides.is_empty() {
            return Some(file);
        }
        let Some(mut doc) = yaml::parse_tree(&s.text) else {
            return Some(file);
        };
        let mine: Vec<&Override> = self
            .overrides
            .iter()
            .filter(|o| o.targets(&doc, src == 0))
            .collect();
        if mine.is_empty() {
            return Some(file);
        }
        for o in mine {
            let checked = o
                .apply(&mut doc)
                .and_then(|path| yaml::from_tree::<ScenarioFile>(doc.clone()).map(|_| path));
            match checked {
                Ok(path) => self.applied.push((o.clone(), src, path)),
                Err(message) => {
                    self.problems.push(o.diagnostic(message));
                    self.failed.push(o.clone());
                    return None;
                }
            }
        }
        yaml::from_tree(doc).ok()
    }
}
