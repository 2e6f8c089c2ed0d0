//! `run`: every file rendered in the format asked for, in parallel, printed in input order.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use super::args::Format;
use super::input::load_for_run;
use crate::corpus;
use crate::engine::record::Record;
use crate::error::{Error, Status, written};
use crate::protocol::{A2aVersion, export};
use crate::report::table::Layout;
use crate::report::{json as report_json, table as report_table};
use crate::running::RealAgentArgs;
use crate::scenario::Override;

/// What became of one file: written straight out, rendered into a buffer to be written in input
/// order, or refused.
enum Done {
    Written(std::io::Result<()>),
    Buffered(Vec<u8>),
    Failed(Error),
}

impl std::convert::From<Result<std::io::Result<()>, Error>> for Done {
    fn from(r: Result<std::io::Result<()>, Error>) -> Self {
        r.map_or_else(Done::Failed, Done::Written)
    }
}

/// How every file of one `run` is rendered.
struct Rendering<'a> {
    overrides: &'a [Override],
    format: Format,
    version: A2aVersion,
    layout: Layout,
    real: &'a RealAgentArgs,
}

fn render(
    file: &std::path::Path,
    how: &Rendering,
    out: &mut dyn Write,
    teardown: crate::running::Teardown,
) -> Result<std::io::Result<()>, Error> {
    let Rendering {
        overrides,
        format,
        version,
        layout,
        real,
    } = *how;
    let scenario = load_for_run(file, overrides).map_err(Error::Load)?;
    let streams = match format {
        Format::A2aStream | Format::A2aStreamJsonRpc => crate::engine::RecordStreams::All,
        _ => crate::engine::RecordStreams::StreamSteps,
    };
    let ran = crate::running::run(scenario, streams, teardown, real, |world, logs| {
        let written = write(&world.record, file, format, version, layout, out)?;
        // With real agents, the table — read by a person — says where their logs were kept
        // (the machine formats stay the same bytes on every run).
        if format == Format::Table && !logs.is_empty() && written.is_ok() {
            let mut text = String::from("\nreal agents' logs\n");
            for (agent, path) in logs {
                text.push_str(&format!("  {agent}: {}\n", path.display()));
            }
            return Ok(out.write_all(text.as_bytes()));
        }
        Ok(written)
    });
    // A real agent that cannot be started or reached: exit 2, naming the file.
    ran.map_err(|m| Error::Input(format!("{}: {m}", file.display())))?
}

/// Renders a run's record in `format`: every renderer reads the record (and the scenario it holds).
fn write(
    record: &Record,
    file: &std::path::Path,
    format: Format,
    version: A2aVersion,
    layout: Layout,
    out: &mut dyn Write,
) -> Result<std::io::Result<()>, Error> {
    Ok(match format {
        Format::Json => report_json::write(record, out),
        Format::Table => out.write_all(report_table::render(record, layout).as_bytes()),
        Format::A2a => export::write_tasks(record, version, out),
        Format::A2aStream => export::write_stream(record, version, out),
        Format::Mermaid => crate::report::mermaid::write(record, out),
        Format::Html => crate::report::html::write(record, out),
        Format::A2aStreamJsonRpc => export::write_stream_with(record, version, true, out),
        Format::Acp => {
            // Refused, naming the rule, before anything is written.
            export::check_acp(record).map_err(|e| {
                Error::Input(format!("{}: cannot export as ACP: {e}", file.display()))
            })?;
            export::write_runs(record, out)
        }
    })
}

pub(super) fn run(
    paths: &[PathBuf],
    format: Format,
    version: A2aVersion,
    jobs: usize,
    overrides: &[Override],
    real: &RealAgentArgs,
) -> Result<Status, Error> {
    let files = corpus::expand_scenarios(paths, jobs).map_err(Error::Usage)?;
    let stdout = std::io::stdout();
    let layout = if stdout.is_terminal() {
        Layout::Terminal
    } else {
        Layout::Fixed
    };
    let how = Rendering {
        overrides,
        format,
        version,
        layout,
        real,
    };
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut status = Status::Success;
    let mut io_error = None;
    // Writes what a file's rendering produced and reports its problems; hands back a rendered
    // buffer for reuse.
    let mut settle = |done: Done, out: &mut dyn Write| -> Option<Vec<u8>> {
        let problem = match done {
            Done::Written(Ok(())) => return None,
            Done::Written(Err(e)) => {
                io_error = io_error.take().or(Some(e));
                return None;
            }
            Done::Buffered(bytes) => {
                if let Err(e) = out.write_all(&bytes) {
                    io_error = io_error.take().or(Some(e));
                }
                return Some(bytes);
            }
            Done::Failed(problem) => problem,
        };
        let _ = out.flush();
        eprintln!("{problem}");
        status = Status::InputErrors;
        None
    };
    if jobs <= 1 || files.len() <= 1 {
        // Straight to stdout as it is rendered.
        let teardown = if files.len() == 1 {
            crate::running::Teardown::Leak
        } else {
            crate::running::Teardown::Drop
        };
        for file in &files {
            let r = render(file, &how, &mut out, teardown);
            settle(r.into(), &mut out);
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
            match render(file, &how, &mut buf, crate::running::Teardown::Drop) {
                // Writing into a buffer does not fail.
                Ok(_) => Done::Buffered(buf),
                Err(problem) => Done::Failed(problem),
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
    written(io_error.map_or(flushed, Err))?;
    Ok(status)
}
