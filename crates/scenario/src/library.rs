//! Which files are libraries: a file of agents, callers and policy for other files' `imports`,
//! with no `steps` of its own and importing no scenario. `test` and the directory walks of `run`
//! skip libraries; `check` validates them.

use std::path::Path;

use crate::yaml;

/// Whether a file is a library (a mapping without `steps`, importing no scenario), for `test`
/// and directory walks. A file that cannot be read or parsed is no library: loading it reports
/// why.
pub fn is_library_path(path: &Path) -> bool {
    library_at(path, 0)
}

/// Imports nested deeper than this are taken for a cycle (loading reports it).
const DEEPEST_IMPORT: usize = 32;

fn library_at(path: &Path, depth: usize) -> bool {
    let Ok(text) = crate::regular_file::read_text(path, crate::regular_file::SCENARIO_LIMIT) else {
        return false;
    };
    let Some(yaml::Value::Mapping(m)) = yaml::parse_tree(&text) else {
        return false;
    };
    if m.contains_key("steps") {
        return false;
    }
    // A file that imports a scenario runs its steps.
    let imports = match m.get("imports") {
        Some(yaml::Value::Sequence(list)) => list.as_slice(),
        _ => &[],
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    imports.iter().all(|i| match i {
        yaml::Value::String(name) if depth < DEEPEST_IMPORT => {
            let imported = dir.join(name);
            !imported.is_file() || library_at(&imported, depth + 1)
        }
        _ => true,
    })
}
