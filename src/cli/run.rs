//! `run`: every file rendered in the format asked for, in parallel, printed in input order.

use super::*;

/// One file's rendered output, or why it has none.
pub(super) enum Rendered {
    Output(Vec<u8>),
    LoadError(LoadError),
    ExportError(String),
}

/// How a rendered file's scenario and run end.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Teardown {
    Drop,
    /// The process ends right after: leave the memory to the OS instead of freeing a run's
    /// every task and string one by one (2 % of a 100,000-step run).
    Leak,
}

pub(super) fn render(
    file: &std::path::Path,
    overrides: &[Override],
    format: Format,
    version: A2aVersion,
    layout: Layout,
    out: &mut dyn Write,
    teardown: Teardown,
) -> Result<std::io::Result<()>, Rendered> {
    let scenario = load_for_run(file, overrides).map_err(Rendered::LoadError)?;
    let streams = match format {
        Format::A2aStream | Format::A2aStreamJsonRpc => world::RecordStreams::All,
        _ => world::RecordStreams::StreamSteps,
    };
    let world = world::run_recording(&scenario, streams);
    let written = write(&world, file, format, version, layout, out);
    if teardown == Teardown::Leak {
        std::mem::forget(world);
        std::mem::forget(scenario);
    }
    written
}

fn write(
    world: &world::World,
    file: &std::path::Path,
    format: Format,
    version: A2aVersion,
    layout: Layout,
    out: &mut dyn Write,
) -> Result<std::io::Result<()>, Rendered> {
    Ok(match format {
        Format::Json => report_json::write(world, out),
        Format::Table => out.write_all(report_table::render(world, layout).as_bytes()),
        Format::A2a => export::write_tasks(world, version, out),
        Format::A2aStream => export::write_stream(world, version, out),
        Format::Mermaid => crate::report::mermaid::write(world, out),
        Format::Html => crate::report::html::write(world, out),
        Format::A2aStreamJsonRpc => export::write_stream_with(world, version, true, out),
        Format::Acp => {
            // Refused, naming the rule, before anything is written.
            export::check_acp(world).map_err(|e| {
                Rendered::ExportError(format!("{}: cannot export as ACP: {e}", file.display()))
            })?;
            export::write_runs(world, out)
        }
    })
}

pub(super) fn run(
    paths: &[PathBuf],
    format: Format,
    version: A2aVersion,
    jobs: usize,
    overrides: &[Override],
) -> i32 {
    let files = match corpus::expand_scenarios(paths, jobs) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("a2a-sim: {}", crate::escape::Escaped(&e));
            return EXIT_LOAD;
        }
    };
    let stdout = std::io::stdout();
    let layout = if stdout.is_terminal() {
        Layout::Terminal
    } else {
        Layout::Fixed
    };
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut status = 0;
    let mut io_error = None;
    // Writes what a file's rendering produced and reports its problems; hands back a rendered
    // buffer for reuse.
    let mut settle =
        |r: Result<std::io::Result<()>, Rendered>, out: &mut dyn Write| -> Option<Vec<u8>> {
            let problem = match r {
                Ok(Ok(())) => return None,
                Ok(Err(e)) => {
                    io_error = io_error.take().or(Some(e));
                    return None;
                }
                Err(Rendered::Output(bytes)) => {
                    if let Err(e) = out.write_all(&bytes) {
                        io_error = io_error.take().or(Some(e));
                    }
                    return Some(bytes);
                }
                Err(Rendered::LoadError(e)) => e.to_string(),
                Err(Rendered::ExportError(e)) => crate::escape::text(&e).into_owned(),
            };
            let _ = out.flush();
            eprintln!("{problem}");
            status = EXIT_LOAD;
            None
        };
    if jobs <= 1 || files.len() <= 1 {
        // Straight to stdout as it is rendered.
        let teardown = if files.len() == 1 {
            Teardown::Leak
        } else {
            Teardown::Drop
        };
        for file in &files {
            let r = render(file, overrides, format, version, layout, &mut out, teardown);
            settle(r, &mut out);
        }
    } else {
        // Each file renders into a buffer (output must stay in input order); written buffers go
        // back to a pool, so the workers do not keep mapping and unmapping fresh memory.
        let pool: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());
        let work = |file: &PathBuf| {
            let mut buf = pool
                .lock()
                .ok()
                .and_then(|mut p| p.pop())
                .unwrap_or_default();
            match render(
                file,
                overrides,
                format,
                version,
                layout,
                &mut buf,
                Teardown::Drop,
            ) {
                Ok(_) => Err(Rendered::Output(buf)),
                Err(e) => Err(e),
            }
        };
        corpus::for_each_ordered(&files, jobs, work, |_, r| {
            if let Some(mut buf) = settle(r, &mut out) {
                buf.clear();
                if let Ok(mut p) = pool.lock() {
                    p.push(buf);
                }
            }
        });
    }
    let flushed = out.flush();
    match io_error.map_or(flushed, Err) {
        Ok(()) => status,
        Err(e) => finish(Err(e), status),
    }
}
