//! Following a file's imports on disk: each read relative to the file that names it, a cycle or
//! an unreadable file a problem at its `imports` entry, a file met twice (a diamond) read once,
//! nested imports before the file's own items. A library's `expect` or `golden` is a problem, and
//! card paths (and the card keys) are made relative to the root file's folder.

use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::source::Source;
use crate::yaml::Seg;

use super::Merger;

impl Merger<'_> {
    fn at(&self, src: usize, path: &[Seg], message: String) -> Diagnostic {
        self.sources[src].diagnostic(path, message)
    }

    /// Reads the imports of `file` (source `src`, in folder `base` on disk, `shown` for
    /// diagnostics; `rel` is that folder relative to the root file's, for card paths).
    pub(super) fn walk_imports(
        &mut self,
        src: usize,
        imports: Option<Vec<String>>,
        base: &Path,
        shown: Option<&Path>,
        rel: &Path,
    ) {
        let Some(imports) = imports else {
            return;
        };
        for (k, import) in imports.iter().enumerate() {
            let at = [Seg::from("imports"), Seg::Index(k)];
            let path = base.join(import);
            let display = match shown {
                Some(d) if !d.as_os_str().is_empty() => d.join(import).display().to_string(),
                _ => import.clone(),
            };
            let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if self.stack.contains(&canonical) {
                let msg = format!(
                    "import cycle: `{import}` imports, directly or through others, the file that imports it"
                );
                self.problems.push(self.at(src, &at, msg));
                continue;
            }
            if self.seen.contains(&canonical) {
                continue;
            }
            let text = match crate::file_text::read(&path) {
                Ok(t) => t,
                Err(e) => {
                    let why = e
                        .diagnostics
                        .first()
                        .map_or(String::new(), |d| d.message.clone());
                    let msg = format!("cannot import `{import}`: {why}");
                    self.problems.push(self.at(src, &at, msg));
                    continue;
                }
            };
            let source = Source::new(display, text);
            let ix = self.sources.len();
            let Some(mut imported) = self.parse(&source, ix) else {
                continue;
            };
            self.seen.push(canonical.clone());
            self.sources.push(source);
            self.files.push(None);
            // A library's claims belong to the scenarios that import it; an imported scenario
            // (a file with steps) keeps its own.
            if imported.steps.is_none() {
                for key in ["expect", "golden"] {
                    let present = match key {
                        "expect" => imported.expect.is_some(),
                        _ => imported.golden.is_some(),
                    };
                    if present {
                        let msg = format!(
                            "an imported file without `steps` is a library: `{key}` belongs in the scenario that imports it"
                        );
                        self.problems.push(self.at(ix, &[Seg::from(key)], msg));
                    }
                }
            }
            let dir = Path::new(import).parent().unwrap_or(Path::new(""));
            let sub_rel = rel.join(dir);
            // Card paths are relative to the file that names them.
            for a in imported.agents.iter_mut().flatten() {
                if let Some(card) = &a.card {
                    a.card = Some(sub_rel.join(card).display().to_string());
                }
            }
            // So are the card keys, which a scenario shares with the files that import it.
            let policy = &mut imported.policy;
            for path in [&mut policy.card_signing_key, &mut policy.card_keys]
                .into_iter()
                .flatten()
            {
                *path = sub_rel.join(&*path).display().to_string();
            }
            let sub_base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
            let sub_shown = Path::new(&self.sources[ix].display)
                .parent()
                .map(Path::to_path_buf);
            self.stack.push(canonical);
            // Nested imports come before the file's own items.
            let nested = imported.imports.take();
            self.walk_imports(ix, nested, &sub_base, sub_shown.as_deref(), &sub_rel);
            self.stack.pop();
            self.files[ix] = Some(imported);
            self.order.push(ix);
        }
        let _ = src;
    }
}
