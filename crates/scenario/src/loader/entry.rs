//! The ways in: a file's path or a text, with or without `--set` overrides and `check`'s
//! warnings, all ending in [`load_string_as`]; and reading a file into its text.

use std::path::Path;

use super::{Loaded, Warnings, load_string_as};
use crate::diagnostic::LoadError;
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

/// A scenario file's text, or a located error for a file that cannot be read or is not UTF-8.
pub fn read(path: &Path) -> Result<String, LoadError> {
    let display = path.display().to_string();
    let bytes = crate::regular_file::read(path, crate::regular_file::SCENARIO_LIMIT)
        .map_err(|e| LoadError::single(&display, 1, 1, format!("cannot read the file: {e}")))?;
    // The bytes become the text without a copy (a large file's second 10 MB) when they are UTF-8;
    // otherwise `decode_utf8` says why, as before.
    match String::from_utf8(bytes) {
        Ok(mut text) => {
            if text.starts_with('\u{feff}') {
                text.drain(..'\u{feff}'.len_utf8());
            }
            Ok(text)
        }
        Err(e) => match decode_utf8(&display, e.as_bytes()) {
            Err(error) => Err(error),
            Ok(text) => Ok(text.to_string()),
        },
    }
}

/// The scenario's default name: its file name without extension.
pub fn default_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The text of a file, or a located error at the first byte that is not UTF-8.
pub fn decode_utf8<'a>(display: &str, bytes: &'a [u8]) -> Result<&'a str, LoadError> {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(LoadError::single(
            display,
            1,
            1,
            "the file is UTF-16; save it as UTF-8",
        ));
    }
    // A UTF-8 byte order mark is allowed and means nothing.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = good.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        LoadError::single(
            display,
            line,
            column,
            "the file is not valid UTF-8; save it as UTF-8",
        )
    })
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
