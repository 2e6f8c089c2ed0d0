//! A real agent's process: started from its `command` with `{port}` and its env filled in, its
//! output to a log file, waited for until its card answers, stopped with SIGTERM and then
//! SIGKILL. Every process started here is in [`LIVE`] until it is reaped, so an interrupted run
//! stops them too ([`stop_all`]).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use engine::scenario::External;

/// The pids of the agents started and not yet reaped.
static LIVE: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// How long a stopped agent has between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(5);

pub struct Agent {
    child: Child,
    pub name: String,
    /// The command as started (placeholders filled in), for messages.
    pub shown: String,
    pub log: PathBuf,
}

/// A free loopback port: bound, read and let go (the agent binds it a moment later).
pub fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind(("127.0.0.1", 0))?
        .local_addr()?
        .port())
}

/// `text` with `{port}`, `{token}` and `{agents.NAME.url}` filled in (`{{`/`}}`: braces); the
/// loader checked every placeholder.
pub fn fill(
    text: &str,
    port: u16,
    url_of: &dyn Fn(&str) -> Option<String>,
    token: Option<&str>,
) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        let Some(end) = tail.find('}') else {
            return Err(format!("`{text}`: a `{{` without its `}}`"));
        };
        let name = &tail[1..end];
        match name {
            "port" => out.push_str(&port.to_string()),
            "token" if token.is_some() => out.push_str(token.unwrap_or_default()),
            _ => match name
                .strip_prefix("agents.")
                .and_then(|n| n.strip_suffix(".url"))
                .and_then(url_of)
            {
                Some(url) => out.push_str(&url),
                None => {
                    return Err(format!(
                        "`{{{name}}}` cannot be filled in here (an agent a2a-sim does not serve, or a token where the scenario has no `keys`)"
                    ));
                }
            },
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

impl Agent {
    /// Starts agent `name` in its folder, its stdout and stderr written to `log` (afresh, or
    /// after what is there when it is started again after a crash).
    pub fn start(
        name: &str,
        spec: &External,
        port: u16,
        log: &Path,
        again: bool,
        url_of: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Agent, String> {
        let token = spec.token.as_deref();
        let args = spec
            .command
            .iter()
            .map(|a| fill(a, port, url_of, token))
            .collect::<Result<Vec<_>, _>>()?;
        // As messages show it: the token stays a placeholder.
        let shown = spec
            .command
            .iter()
            .map(|a| fill(a, port, url_of, token.and(Some("{token}"))))
            .collect::<Result<Vec<_>, _>>()?
            .join(" ");
        let log = log.to_path_buf();
        // This run's output only: a log from an earlier run is replaced.
        let opened = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(again)
            .truncate(!again)
            .open(&log)
            .and_then(|f| Ok((f.try_clone()?, f)));
        let (out, err) = match opened {
            Ok(pair) => pair,
            Err(e) => {
                return Err(format!(
                    "agent `{name}`: cannot write its log {}: {e}; give --agent-logs a writable folder",
                    log.display()
                ));
            }
        };
        // A program named by a relative path (`./agent.sh`, `bin/agent`) is the file's, like
        // the folder it runs in; a bare name (`python3`) is looked up on PATH.
        let program = Path::new(&args[0]);
        let program = if program.is_relative() && program.components().count() > 1 {
            spec.dir.join(program)
        } else {
            program.to_path_buf()
        };
        let mut command = Command::new(program);
        command
            .args(&args[1..])
            .current_dir(&spec.dir)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        for (k, v) in &spec.env {
            command.env(k, fill(v, port, url_of, token)?);
        }
        // Its own process group: a Ctrl-C at the terminal reaches a2a-sim, which stops it.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        // And should a2a-sim itself be killed (SIGKILL gives it no time to stop anything), the
        // kernel kills the agent: it never outlives the run that started it.
        #[cfg(target_os = "linux")]
        // SAFETY: prctl is async-signal-safe, the one call made between fork and exec.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut command, || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().map_err(|e| {
            format!(
                "agent `{name}`: cannot start `{shown}` (in {}): {e}",
                spec.dir.display()
            )
        })?;
        if let Ok(mut live) = LIVE.lock() {
            live.push(child.id());
        }
        Ok(Agent {
            child,
            name: name.to_string(),
            shown,
            log,
        })
    }

    /// Its exit status, if it has exited.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Why it is not usable: the command, how it ended (if it did) and its log's last lines.
    pub fn failure(&mut self, what: &str) -> String {
        let status = match self.exited() {
            Some(s) => format!("it exited ({s})"),
            None => "it is still running".to_string(),
        };
        format!(
            "agent `{}`: {what}: `{}`: {status}; the last lines of its log {}:\n{}",
            self.name,
            self.shown,
            self.log.display(),
            tail(&self.log, 10)
        )
    }

    /// SIGTERM to its process group, then SIGKILL after [`GRACE`] to whatever of the group is
    /// left (a launcher that exited may leave its agent running); reaped either way.
    pub fn stop(mut self) {
        let pid = self.child.id();
        signal(pid, Signal::Term);
        let deadline = Instant::now() + GRACE;
        loop {
            let leader_gone = self.exited().is_some();
            if leader_gone && !group_alive(pid) {
                break;
            }
            if Instant::now() >= deadline {
                signal(pid, Signal::Kill);
                let _ = self.child.wait();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if let Ok(mut live) = LIVE.lock() {
            live.retain(|&p| p != pid);
        }
    }
}

impl Agent {
    /// SIGKILL to its whole group at once (a `crash` fault); reaped.
    pub fn kill(mut self) {
        let pid = self.child.id();
        signal(pid, Signal::Kill);
        let _ = self.child.wait();
        if let Ok(mut live) = LIVE.lock() {
            live.retain(|&p| p != pid);
        }
    }
}

/// The last `n` lines of a log, indented; `(empty)` for none.
fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let lines: Vec<&str> = text.lines().collect();
    let shown = &lines[lines.len().saturating_sub(n)..];
    if shown.is_empty() {
        return "    (empty)".to_string();
    }
    shown
        .iter()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

enum Signal {
    Term,
    Kill,
}

fn signal(pid: u32, s: Signal) {
    #[cfg(unix)]
    {
        let sig = match s {
            Signal::Term => libc::SIGTERM,
            Signal::Kill => libc::SIGKILL,
        };
        // The whole group: an agent started through a shell or a launcher goes with it.
        // SAFETY: kill(2) takes any pid and signal number; a gone group is an error, ignored.
        unsafe {
            libc::kill(-(pid as i32), sig);
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (pid, s);
    }
}

/// Whether any process of the group `pid` leads is still there.
fn group_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        // SAFETY: signal 0 only checks that the group exists and may be signalled.
        unsafe { libc::kill(-(pid as i32), 0) == 0 }
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        false
    }
}

/// Kills every agent still running (an interrupted run), at once.
pub fn stop_all() {
    if let Ok(live) = LIVE.lock() {
        for &pid in live.iter() {
            signal(pid, Signal::Kill);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fill;

    #[test]
    fn placeholders_are_filled_and_double_braces_are_braces() {
        let url_of = |n: &str| (n == "kyc").then(|| "http://h/as/a/agents/kyc/".to_string());
        assert_eq!(
            fill("{agents.kyc.url}?p={port}&x={{y}}", 9, &url_of, None).unwrap(),
            "http://h/as/a/agents/kyc/?p=9&x={y}"
        );
        assert!(fill("{agents.other.url}", 9, &url_of, None).is_err());
        assert!(fill("{token}", 9, &url_of, None).is_err());
        assert_eq!(
            fill("Bearer {token}", 9, &url_of, Some("t.k.n")).unwrap(),
            "Bearer t.k.n"
        );
    }
}
