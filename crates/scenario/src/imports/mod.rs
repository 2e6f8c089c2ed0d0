//! `imports: [FILE...]`: agents, callers, policy, classification levels and the clock shared
//! across scenario files, merged into one file model before loading. Imported items come first,
//! in import order; a name defined twice, or a policy key set differently in two files, is an
//! error naming both files. Each item remembers the file and place it came from, so problems are
//! located in the file that holds them.
//!
//! An imported file with `steps` is a scenario, not a library: the importing file runs its steps
//! and adds `faults` and `expect` entries after the imported ones (a shrunk reproducer pinned in
//! five lines beside the original). Steps come from one file only; the imported scenario's
//! `golden` setting stays its own, and its `name` is used when the importer has none. `faults`
//! add up across every imported file.

use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::file::ScenarioFile;
pub use crate::library::is_library_path;
use crate::overrides::Override;
pub use crate::source::Source;
use crate::yaml::Seg;

mod combine;
mod merged;
mod parse;
mod walk;

pub use merged::Merged;

/// Merges `root`'s imports (read relative to `base`, named relative to `display`'s folder) into
/// it, applying `overrides` to the file that holds each overridden key. Problems come back
/// located; nothing is merged from a file that did not parse. The text is kept as the root
/// source without a copy.
pub fn merge_owned(
    display: &str,
    text: String,
    base: &Path,
    overrides: &[Override],
) -> Result<Merged, Vec<Diagnostic>> {
    let mut m = Merger {
        sources: Vec::new(),
        files: Vec::new(),
        order: Vec::new(),
        stack: Vec::new(),
        seen: Vec::new(),
        problems: Vec::new(),
        overrides,
        applied: Vec::new(),
        failed: Vec::new(),
    };
    let root = Source::new(display.to_string(), text);
    let Some(mut root_file) = m.parse(&root, 0) else {
        return Err(m.problems);
    };
    m.sources.push(root);
    m.files.push(None);
    m.stack
        .push(std::fs::canonicalize(display).unwrap_or_else(|_| PathBuf::from(display)));
    let imports = root_file.imports.take();
    m.walk_imports(0, imports, base, Path::new(display).parent(), Path::new(""));
    for o in overrides {
        if !m.applied.iter().any(|(a, _, _)| a == o) && !m.failed.contains(o) {
            let what = if o.key[0] == "agents" {
                "agent"
            } else {
                "caller"
            };
            let name = o.key.get(1).map_or("", String::as_str);
            m.problems
                .push(o.diagnostic(format!("no {what} `{name}` in the scenario or its imports")));
        }
    }
    if !m.problems.is_empty() {
        return Err(m.problems);
    }
    m.files[0] = Some(root_file);
    combine::combine(m.files, m.order, m.sources, m.applied)
}

/// One merge under way: the files read so far, the overrides applied, and the problems found.
struct Merger<'o> {
    sources: Vec<Source>,
    /// Parsed files, by source.
    files: Vec<Option<ScenarioFile>>,
    /// Imported sources in the order their items come: a file's imports before it.
    order: Vec<usize>,
    overrides: &'o [Override],
    applied: Vec<(Override, usize, Vec<Seg>)>,
    failed: Vec<Override>,
    /// Files being imported, for cycles.
    stack: Vec<PathBuf>,
    /// Files already imported (a diamond imports a file once).
    seen: Vec<PathBuf>,
    problems: Vec<Diagnostic>,
}
