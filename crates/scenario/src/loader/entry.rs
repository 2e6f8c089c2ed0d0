//! The ways in: a file's path or a text, with or without `--set` overrides and `check`'s
//! warnings, all ending in [`load_string_as`]. Reading a file into its text is
//! [`file_text`](crate::file_text)'s, re-exported here.

use std::path::Path;

use super::{Loaded, Warnings, load_string_as};
use crate::diagnostic::LoadError;
pub use crate::file_text::{decode_utf8, read};
use crate::overrides::Override;
use engine::scenario::Scenario;

/// Reads and loads one scenario file. `display` is how diagnostics name it.
pub fn load_path(path: &Path) -> Result<Scenario, LoadError> {
    load_path_with_warnings(path).map(|l| l.scenario)
}

/// [`load_path`], keeping the warnings of `check`'s handler analysis.
pub fn load_path_with_warnings(path: &Path) -> Result<Loaded, LoadError> {
    load_path_with(path, &[])
}

/// [`load_path_with_warnings`] with `--set` overrides.
pub fn load_path_with(path: &Path, overrides: &[Override]) -> Result<Loaded, LoadError> {
    load_path_as(path, overrides, Warnings::Find)
}

/// [`load_path_with`], finding `check`'s warnings or not.
pub fn load_path_as(
    path: &Path,
    overrides: &[Override],
    warnings: Warnings,
) -> Result<Loaded, LoadError> {
    let text = read(path)?;
    let base = path.parent().unwrap_or(Path::new("."));
    load_string_as(
        &path.display().to_string(),
        text,
        base,
        default_name(path),
        overrides,
        warnings,
    )
}

/// The scenario's default name: its file name without extension.
pub fn default_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Loads scenario text. Card files named by agents are read relative to `base`.
pub fn load_str(
    display: &str,
    text: &str,
    base: &Path,
    default_name: String,
) -> Result<Scenario, LoadError> {
    load_str_with_warnings(display, text, base, default_name).map(|l| l.scenario)
}

/// [`load_str`], keeping the warnings of the handler analysis (which runs only on a file that
/// loaded).
pub fn load_str_with_warnings(
    display: &str,
    text: &str,
    base: &Path,
    default_name: String,
) -> Result<Loaded, LoadError> {
    load_str_with(display, text, base, default_name, &[])
}

/// [`load_str_with_warnings`] with `--set` overrides.
pub fn load_str_with(
    display: &str,
    text: &str,
    base: &Path,
    default_name: String,
    overrides: &[Override],
) -> Result<Loaded, LoadError> {
    load_string_with(display, text.to_string(), base, default_name, overrides)
}

/// [`load_str_with`] of a text the caller owns (no copy of it).
pub fn load_string_with(
    display: &str,
    text: String,
    base: &Path,
    default_name: String,
    overrides: &[Override],
) -> Result<Loaded, LoadError> {
    load_string_as(display, text, base, default_name, overrides, Warnings::Find)
}
