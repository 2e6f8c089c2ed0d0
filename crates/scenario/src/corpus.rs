//! Many scenario files: expanding paths; running work on every core with output in input order
//! ([`for_each_ordered`], from the `parallel` module, which the YAML reader uses too).

use std::path::{Path, PathBuf};

pub use crate::parallel::{default_jobs, for_each_ordered};

/// Files as given, and directories searched recursively, in sorted order, for `*.yaml` / `*.yml`.
/// A file named twice (directly and through its directory, say) is kept once, where first met.
/// A walk passes over hidden files and folders (`.github`) and `node_modules`, as a search tool
/// does: they hold other tools' YAML, never a scenario (one named directly is read).
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            // Standard input, read by the command.
            files.push(p.clone());
        } else if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found)
                .map_err(|e| format!("{}: cannot read the directory: {e}", p.display()))?;
            found.sort();
            files.extend(found);
        } else if p.exists() {
            files.push(p.clone());
        } else {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    files.retain(|f| seen.insert(std::fs::canonicalize(f).unwrap_or_else(|_| f.clone())));
    Ok(files)
}

/// [`expand`] for running: libraries (files without `steps`) met in a directory are skipped; a
/// library named directly is kept, so `run` can say why it has nothing to run.
pub fn expand_scenarios(paths: &[PathBuf], jobs: usize) -> Result<Vec<PathBuf>, String> {
    let direct: Vec<&PathBuf> = paths.iter().filter(|p| !p.is_dir()).collect();
    let files = expand(paths)?;
    Ok(without_libraries(files, jobs, |f| direct.contains(&f)))
}

/// `files` without the libraries (files without `steps`) among them, but those `keep` names.
/// Telling a library means reading the file: on `jobs` threads, as the runs themselves are (on
/// one thread, it was a third of a 1,000-file run and kept the second core idle).
pub fn without_libraries(
    files: Vec<PathBuf>,
    jobs: usize,
    keep: impl Fn(&PathBuf) -> bool + Sync,
) -> Vec<PathBuf> {
    let mut scenario = vec![true; files.len()];
    for_each_ordered(
        &files,
        jobs,
        |f| keep(f) || !crate::imports::is_library_path(f),
        |i, k| scenario[i] = k,
    );
    let mut scenario = scenario.into_iter();
    files
        .into_iter()
        .filter(|_| scenario.next().unwrap_or(true))
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::expand;

    #[test]
    fn a_walk_passes_over_hidden_folders_and_node_modules() {
        let dir = std::env::temp_dir().join(format!("a2a-sim-walk-{}", std::process::id()));
        for f in [
            "a.yaml",
            ".hidden.yaml",
            ".github/x.yml",
            "node_modules/p/y.yaml",
            "sub/b.yml",
        ] {
            let p = dir.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x: 1\n").unwrap();
        }
        let found: Vec<String> = expand(std::slice::from_ref(&dir))
            .unwrap()
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap().display().to_string())
            .collect();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(found, ["a.yaml", "sub/b.yml"]);
    }
}
