//! Reading scenarios: a file, or `-` for standard input.

use crate::error::LoadError;
use crate::scenario::Override;

/// The standard input, read once: `-` names it as a scenario file.
pub(super) fn stdin_text() -> Result<&'static str, LoadError> {
    static TEXT: std::sync::OnceLock<Result<String, String>> = std::sync::OnceLock::new();
    let r = TEXT.get_or_init(|| {
        let bytes = crate::regular_file::read_stdin(crate::regular_file::SCENARIO_LIMIT)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        crate::scenario::decode_utf8(STDIN, &bytes)
            .map(str::to_string)
            .map_err(|e| e.to_string())
    });
    match r {
        Ok(t) => Ok(t.as_str()),
        Err(e) => Err(LoadError::single(
            STDIN,
            1,
            1,
            e.trim_start_matches("<stdin>:1:1: "),
        )),
    }
}

/// How diagnostics name standard input.
pub(super) const STDIN: &str = "<stdin>";

/// Loads a scenario file or, for `-`, standard input (named `stdin`, relative paths from the
/// current directory).
pub(super) fn load(
    file: &std::path::Path,
    overrides: &[Override],
) -> Result<crate::scenario::Loaded, LoadError> {
    load_as(file, overrides, crate::scenario::Warnings::Find)
}

/// [`load`], finding `check`'s warnings or not.
fn load_as(
    file: &std::path::Path,
    overrides: &[Override],
    warnings: crate::scenario::Warnings,
) -> Result<crate::scenario::Loaded, LoadError> {
    let load = if file.as_os_str() == "-" {
        let text = stdin_text()?;
        crate::scenario::Load::text(STDIN, text.to_string(), std::path::Path::new("."), "stdin")
    } else {
        crate::scenario::Load::file(file)
    };
    load.overrides(overrides).warnings(warnings).load()
}

#[cfg(feature = "serve")]
/// [`load`] for `serve`: a library (no `steps`) is served as well as a scenario, since a session's
/// requests are its steps. `check`'s warnings are not looked for.
pub(super) fn load_for_serve(
    file: &std::path::Path,
    overrides: &[Override],
) -> Result<crate::engine::scenario::Scenario, LoadError> {
    Ok(load_as(file, overrides, crate::scenario::Warnings::Skip)?.scenario)
}

/// [`load`] for `run`: a library (no `steps`) has nothing to run. `run` prints no `check`
/// warnings, so they are not looked for.
pub(super) fn load_for_run(
    file: &std::path::Path,
    overrides: &[Override],
) -> Result<crate::engine::scenario::Scenario, LoadError> {
    let loaded = load_as(file, overrides, crate::scenario::Warnings::Skip)?;
    if loaded.library {
        let name = if file.as_os_str() == "-" {
            STDIN.to_string()
        } else {
            file.display().to_string()
        };
        return Err(LoadError::single(
            &name,
            1,
            1,
            "this file is a library (it has no `steps`): `check` validates it, and scenarios use it through `imports`; there is nothing to run",
        ));
    }
    Ok(loaded.scenario)
}
