//! `a2a-sim serve`, run from its checked config: the served file loaded, its session served
//! until it stops, and — for a served library — its `expect` entries checked against the
//! session, printed as `test` prints them.

use std::io::Write;

use super::config::ServeConfig;
use super::input;
use crate::error::{Error, Status};

pub(super) fn serve(c: ServeConfig) -> Result<Status, Error> {
    let ServeConfig { file, set, options } = c;
    let scenario = input::load_for_serve(&file, &set)?;
    if options.record.is_some() && !scenario.steps.is_empty() {
        return Err(Error::Usage(format!(
            "--record writes a scenario that imports {}, which has steps of its own: serve a library (a file without `steps`) to record a session of it",
            file.display()
        )));
    }
    // A served library's `expect` entries are checked against the session at its end. (A file
    // with steps of its own states claims about its own run, which is not what a session
    // replays: those are left to `test`.)
    let entries = if scenario.steps.is_empty() {
        scenario.expectations.len()
    } else {
        0
    };
    let unmet = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let finish: Option<crate::serve::Finish> = (entries > 0).then(|| {
        let unmet = unmet.clone();
        let file = file.clone();
        let text = crate::scenario::read(&file).unwrap_or_default();
        Box::new(move |w: &crate::engine::World<'static>| {
            let found = crate::testing::golden::unmet_located(w, &text, &file);
            if let Ok(mut u) = unmet.lock() {
                *u = found;
            }
        }) as crate::serve::Finish
    });
    // Its start-up and run problems (an address it cannot listen on, a report it cannot write)
    // are the binary's to print, with exit 2.
    crate::serve::run_then(scenario, options, finish).map_err(|e| Error::Runtime(e.0))?;
    if entries == 0 {
        return Ok(Status::Success);
    }
    let unmet = unmet.lock().map(|u| u.clone()).unwrap_or_default();
    let name = crate::escape::text(&file.display().to_string()).into_owned();
    let mut out = std::io::stdout().lock();
    if unmet.is_empty() {
        let _ = writeln!(
            out,
            "ok     {name} (the session meets its {entries} expect entries)"
        );
        return Ok(Status::Success);
    }
    let _ = writeln!(out, "FAILED {name} (the session's expect)");
    for u in &unmet {
        let _ = writeln!(out, "  {}", crate::escape::text(u));
    }
    Ok(Status::Failed)
}
