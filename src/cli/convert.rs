//! `card` and `convert`: one agent's card, one task between protocols.

use std::io::Write;
use std::path::PathBuf;

use super::args::{From, To};
use crate::error::{Error, Status, written};
use crate::protocol::{A2aVersion, adapter, card};
use crate::report::json as report_json;

pub(super) fn card_cmd(
    file: &std::path::Path,
    agent: Option<&str>,
    version: A2aVersion,
    list: bool,
) -> Result<Status, Error> {
    let scenario = crate::scenario::Load::file(file).scenario()?;
    let mut out = std::io::stdout().lock();
    if list {
        // One agent a line; a card taken from a file adds a tab and the file.
        let names: String = scenario
            .agents
            .iter()
            .map(|a| match &a.card.file {
                Some(f) => format!("{}\t{f}\n", a.name()),
                None => format!("{}\n", a.name()),
            })
            .collect();
        written(out.write_all(names.as_bytes()))?;
        return Ok(Status::Success);
    }
    let name = match (agent, &scenario.agents[..]) {
        (Some(name), _) => name,
        (None, [only]) => only.name(),
        (None, agents) => {
            let names: Vec<&str> = agents.iter().map(|a| a.name()).collect();
            return Err(Error::Usage(format!(
                "{} has {} agents ({}): name the one whose card to print, as in `a2a-sim card {} {}`",
                file.display(),
                names.len(),
                names.join(", "),
                file.display(),
                names.first().copied().unwrap_or("AGENT")
            )));
        }
    };
    let Some(ix) = scenario.agents.iter().position(|a| a.name() == name) else {
        let names: Vec<&str> = scenario.agents.iter().map(|a| a.name()).collect();
        let msg = crate::error::with_hint(
            format!("{}: no agent `{name}`", file.display()),
            name,
            names.iter().copied(),
        );
        return Err(Error::Input(format!(
            "{msg}; the agents are: {}",
            names.join(", ")
        )));
    };
    let of_agent = |e: String| Error::Input(format!("{}: agent `{name}`: {e}", file.display()));
    let (mut doc, notes) =
        card::card_json_noting(&scenario.agents[ix].card, version).map_err(of_agent)?;
    crate::protocol::sign_card(&scenario, ix, &mut doc, false).map_err(of_agent)?;
    for note in notes {
        let warning = format!("{}: agent `{name}`: {note}", file.display());
        eprintln!("warning: {}", crate::escape::Escaped(&warning));
    }
    written(report_json::write_pretty(&doc, &mut out))?;
    Ok(Status::Success)
}

/// The input of `convert`: a file, or stdin for `-` or none; with the name to report it by.
pub(super) fn read_input(file: Option<&std::path::Path>) -> anyhow::Result<(String, String)> {
    use anyhow::Context;
    match file.filter(|p| p.as_os_str() != "-") {
        Some(path) => {
            let text = crate::regular_file::read_text(path, crate::regular_file::SCENARIO_LIMIT)
                .with_context(|| format!("{}: cannot read the file", path.display()))?;
            Ok((path.display().to_string(), text))
        }
        None => {
            let bytes = crate::regular_file::read_stdin(crate::regular_file::SCENARIO_LIMIT)
                .context("<stdin>: cannot read")?;
            let text = String::from_utf8(bytes).context("<stdin>: not UTF-8 text")?;
            Ok(("<stdin>".to_string(), text))
        }
    }
}

pub(super) fn convert(
    from: From,
    to: To,
    version: A2aVersion,
    agent: Option<&str>,
    file: Option<PathBuf>,
) -> Result<Status, Error> {
    let (name, text) = read_input(file.as_deref()).map_err(|e| Error::Input(format!("{e:#}")))?;
    let doc: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::Input(format!("{name}:{}:{}: not JSON: {e}", e.line(), e.column())))?;
    let one = |doc: &serde_json::Value| {
        let internal = match from {
            From::A2a => adapter::a2a_to_internal(doc),
            From::Acp => adapter::acp_to_internal(doc),
        };
        internal.and_then(|mut t| {
            if t.agent.is_none() {
                t.agent = agent.map(str::to_string);
            }
            match to {
                To::Internal => Ok(adapter::internal_to_json(&t)),
                To::A2a => Ok(adapter::internal_to_a2a(&t, version)),
                To::Acp => adapter::internal_to_acp(
                    &t,
                    &adapter::source_times(doc, from == From::Acp, t.state),
                ),
            }
        })
    };
    // An array, as `run --format a2a` / `acp` prints: each element, the error naming its index.
    let output = match &doc {
        serde_json::Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, d)| one(d).map_err(|e| adapter::ConvertError(format!("[{i}]: {}", e.0))))
            .collect::<Result<Vec<_>, _>>()
            .map(serde_json::Value::Array),
        _ => one(&doc),
    };
    let doc = output.map_err(|e| Error::Input(format!("{name}: {e}")))?;
    written(report_json::write_pretty(
        &doc,
        &mut std::io::stdout().lock(),
    ))?;
    Ok(Status::Success)
}
