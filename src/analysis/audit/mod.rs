//! `a2a-sim audit`: recorded A2A traffic checked offline against the lifecycle table and the
//! stream rules. Streaming: one line in memory at a time (at most [`MAX_LINE`] bytes), per-task
//! state for at most [`rules::MAX_TRACKED`] tasks; findings are written as they are found.
//!
//! Rules (the `rule` of a finding): `bad-line` (not JSON, not an event, a bad field),
//! `line-too-long`, `illegal-transition` (naming the two deliberate omissions),
//! `after-terminal`, `stream-not-closed` (a stream's last event is not the Task),
//! `final-misplaced` (0.3 `final`), `append-unknown-artifact`, `timestamp-backwards`,
//! `bad-timestamp`, `context-changed`.

mod event;
mod rules;

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::error::Status;
use crate::escape::Escaped;

pub use rules::{Finding, MAX_TRACKED};

/// Longer lines are one finding each and are skipped without being held.
pub const MAX_LINE: usize = 16 << 20;

/// What one recording held.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    pub lines: u64,
    pub events: u64,
    /// Events by the version detected on their line.
    pub v0_3: u64,
    pub v1_0: u64,
    pub findings: u64,
}

/// Audits one recording, handing each finding to `sink` as it is found.
pub fn audit_reader(
    input: &mut dyn BufRead,
    sink: &mut dyn FnMut(Finding),
) -> std::io::Result<Totals> {
    let mut totals = Totals::default();
    let mut rules = rules::Rules::default();
    let mut found = Vec::new();
    let mut buf: Vec<u8> = Vec::new();
    loop {
        // One line: straight from the reader's buffer when it holds the whole line.
        buf.clear();
        let mut too_long = false;
        let mut any = false;
        let mut direct = None;
        loop {
            let avail = input.fill_buf()?;
            if avail.is_empty() {
                break;
            }
            any = true;
            match avail.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    if buf.is_empty() && !too_long && i <= MAX_LINE {
                        direct = Some(i);
                    } else {
                        if !too_long && buf.len() + i <= MAX_LINE {
                            buf.extend_from_slice(&avail[..i]);
                        } else {
                            too_long = true;
                        }
                        // The newline stays unread; `consume_newline` takes it.
                        input.consume(i);
                    }
                    break;
                }
                None => {
                    let n = avail.len();
                    if !too_long && buf.len() + n <= MAX_LINE {
                        buf.extend_from_slice(avail);
                    } else {
                        too_long = true;
                        buf = Vec::new();
                    }
                    input.consume(n);
                }
            }
        }
        if !any {
            break;
        }
        totals.lines += 1;
        let line_no = totals.lines;
        if too_long {
            found.push(Finding {
                line: line_no,
                rule: "line-too-long",
                message: format!("a line of more than {MAX_LINE} bytes"),
            });
            consume_newline(input)?;
        } else {
            let consumed = {
                let bytes: &[u8] = match direct {
                    Some(i) => &input.fill_buf()?[..i],
                    None => &buf,
                };
                match event::parse(bytes) {
                    Ok(event::Parsed::Event(ev)) => {
                        totals.events += 1;
                        match ev.version {
                            crate::protocol::A2aVersion::V0_3 => totals.v0_3 += 1,
                            crate::protocol::A2aVersion::V1_0 => totals.v1_0 += 1,
                        }
                        rules.event(&ev, line_no, &mut found);
                    }
                    Ok(event::Parsed::Skip) => {}
                    Err(message) => found.push(Finding {
                        line: line_no,
                        rule: "bad-line",
                        message,
                    }),
                }
                direct
            };
            match consumed {
                Some(i) => input.consume(i + 1),
                None => consume_newline(input)?,
            }
        }
        totals.findings += found.len() as u64;
        for f in found.drain(..) {
            sink(f);
        }
    }
    rules.finish(&mut found);
    totals.findings += found.len() as u64;
    for f in found.drain(..) {
        sink(f);
    }
    Ok(totals)
}

/// After a line gathered across buffers, the newline that ended it (if any) is still unread.
fn consume_newline(input: &mut dyn BufRead) -> std::io::Result<()> {
    let avail = input.fill_buf()?;
    if avail.first() == Some(&b'\n') {
        input.consume(1);
    }
    Ok(())
}

/// Audits one file; a file that cannot be read is an error, not a finding.
pub fn audit_file(path: &Path, sink: &mut dyn FnMut(Finding)) -> std::io::Result<Totals> {
    let file = crate::regular_file::open_stream(path).map_err(|e| match e {
        crate::regular_file::ReadError::Io(e) => e,
        other => std::io::Error::other(other.to_string()),
    })?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    audit_reader(&mut reader, sink)
}

/// The `audit` command: failed on findings; input errors when a file cannot be read.
pub fn command(files: &[PathBuf], as_json: bool) -> Status {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut status = Status::Success;
    let mut all = Totals::default();
    for path in files {
        let name = path.display().to_string();
        let mut write_error = None;
        let mut sink = |f: Finding| {
            let r = if as_json {
                writeln!(
                    out,
                    "{}",
                    json!({"file": name, "line": f.line, "rule": f.rule, "message": f.message})
                )
            } else {
                // The message quotes recorded traffic: shown escaped ([`crate::escape`]).
                writeln!(
                    out,
                    "{}:{}: {}: {}",
                    Escaped(&name),
                    f.line,
                    f.rule,
                    Escaped(&f.message)
                )
            };
            if let Err(e) = r {
                write_error.get_or_insert(e);
            }
        };
        match audit_file(path, &mut sink) {
            Ok(t) => {
                all.lines += t.lines;
                all.events += t.events;
                all.v0_3 += t.v0_3;
                all.v1_0 += t.v1_0;
                all.findings += t.findings;
            }
            Err(e) => {
                let _ = out.flush();
                eprintln!("{}: cannot read the recording: {e}", Escaped(&name));
                status = Status::InputErrors;
            }
        }
        if let Some(e) = write_error
            && e.kind() == std::io::ErrorKind::BrokenPipe
        {
            return if all.findings > 0 {
                Status::Failed
            } else {
                status
            };
        }
    }
    let summary = if as_json {
        json!({"summary": {"files": files.len(), "lines": all.lines, "events": all.events, "a2a_0.3": all.v0_3, "a2a_1.0": all.v1_0, "findings": all.findings}}).to_string()
    } else {
        format!(
            "audited {} files, {} lines, {} events (A2A 0.3: {}, 1.0: {}): {} findings",
            files.len(),
            all.lines,
            all.events,
            all.v0_3,
            all.v1_0,
            all.findings
        )
    };
    let _ = writeln!(out, "{summary}");
    let _ = out.flush();
    if status != Status::Success {
        status
    } else if all.findings > 0 {
        Status::Failed
    } else {
        Status::Success
    }
}
