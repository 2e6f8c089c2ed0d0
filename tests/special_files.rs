//! A name in a scenario (`card`, `keys`, a token file, `platform_key`, an import) or on the
//! command line may point at `/dev/zero`, a FIFO or a directory. Each is refused with an error at
//! the key that names it (exit 2), without growing memory or waiting for a writer; a file over
//! the size cap is refused the same way.
#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::binary::scratch;

/// Runs `a2a-sim ARGS` in `dir`, killed after a while: a hang fails the test instead of hanging
/// it. Returns the status and stderr.
fn run_bounded(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_a2a-sim"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            return (status.code().unwrap_or(-1), err);
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("a2a-sim {args:?} hung (or read without end)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

const AGENT: &str = "  - {name: a, tenant: acme, clearance: public, skills: [{id: s, tags: [t]}], handler: [working, completed]}\n";
const CALLER: &str = "  - {id: u, tenant: acme, classification: public}\n";
const STEPS: &str = "steps:\n  - send: {caller: u, to: a, text: hi}\n";

#[test]
fn special_files_named_by_a_scenario_are_refused_at_their_key() {
    let dir = scratch("special-files");
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.json")).unwrap();
    mkfifo(&dir.join("fifo.json"));
    mkfifo(&dir.join("lib.yaml"));
    std::fs::create_dir(dir.join("folder.json")).unwrap();
    std::fs::write(dir.join("big.json"), vec![b' '; (1 << 20) + 1]).unwrap();
    let keys = "policy:\n  token: {issuer: i, audience: a}\n";
    let cases = [
        (
            "card-zero",
            format!(
                "agents:\n  - {{card: zero.json, tenant: acme, clearance: public, handler: [completed]}}\ncallers:\n{CALLER}{STEPS}"
            ),
            "2:12: card file `zero.json`: cannot read it: it is a character device, not a regular file",
        ),
        (
            "card-fifo",
            format!(
                "agents:\n  - {{card: fifo.json, tenant: acme, clearance: public, handler: [completed]}}\ncallers:\n{CALLER}{STEPS}"
            ),
            "2:12: card file `fifo.json`: cannot read it: it is a FIFO (named pipe), not a regular file",
        ),
        (
            "card-folder",
            format!(
                "agents:\n  - {{card: folder.json, tenant: acme, clearance: public, handler: [completed]}}\ncallers:\n{CALLER}{STEPS}"
            ),
            "2:12: card file `folder.json`: cannot read it: it is a directory, not a regular file",
        ),
        (
            "card-big",
            format!(
                "agents:\n  - {{card: big.json, tenant: acme, clearance: public, handler: [completed]}}\ncallers:\n{CALLER}{STEPS}"
            ),
            "2:12: card file `big.json`: cannot read it: it is larger than 1 MiB, the most a2a-sim reads of such a file",
        ),
        (
            "keys-fifo",
            format!("keys: fifo.json\n{keys}agents:\n{AGENT}callers:\n{CALLER}{STEPS}"),
            "1:7: cannot read the key file `fifo.json`: it is a FIFO (named pipe), not a regular file",
        ),
        (
            "keys-zero",
            format!("keys: zero.json\n{keys}agents:\n{AGENT}callers:\n{CALLER}{STEPS}"),
            "1:7: cannot read the key file `zero.json`: it is a character device",
        ),
        (
            "platform-key-zero",
            format!(
                "keys: ../../../scenarios/keys/jwks.json\npolicy:\n  token: {{issuer: i, audience: a, platform_key: zero.json}}\nagents:\n{AGENT}callers:\n{CALLER}{STEPS}"
            ),
            "3:49: cannot read the key file `zero.json`: it is a character device",
        ),
        (
            "token-fifo",
            format!(
                "keys: {}\n{keys}agents:\n{AGENT}callers:\n  - {{name: c, token: fifo.json}}\n{STEPS}",
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("scenarios/keys/jwks.json")
                    .display()
            ),
            "7:22: cannot read the token file `[redacted]`: it is a FIFO (named pipe), not a regular file",
        ),
        (
            "import-fifo",
            format!("imports: [lib.yaml]\nagents:\n{AGENT}callers:\n{CALLER}{STEPS}"),
            "1:11: cannot import `lib.yaml`: cannot read the file: it is a FIFO (named pipe), not a regular file",
        ),
    ];
    for (name, yaml, want) in cases {
        let file = format!("{name}.yaml");
        std::fs::write(dir.join(&file), yaml).unwrap();
        for cmd in ["check", "run"] {
            let (status, err) = run_bounded(&dir, &[cmd, &file]);
            assert_eq!(status, 2, "{name} {cmd}: {err}");
            assert!(
                err.contains(&format!("{file}:{want}")),
                "{name} {cmd}: want {file}:{want}\n{err}"
            );
        }
    }
}

#[test]
fn a_directory_run_refuses_a_yaml_name_for_a_special_file() {
    let dir = scratch("special-dir-run");
    let ok = format!("agents:\n{AGENT}callers:\n{CALLER}{STEPS}");
    std::fs::write(dir.join("ok.yaml"), ok).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.yaml")).unwrap();
    mkfifo(&dir.join("fifo.yaml"));
    for cmd in ["check", "run", "test"] {
        let (status, err) = run_bounded(&dir, &[cmd, "."]);
        assert_eq!(status, 2, "{cmd}: {err}");
        for want in [
            "zero.yaml:1:1: cannot read the file: it is a character device, not a regular file",
            "fifo.yaml:1:1: cannot read the file: it is a FIFO (named pipe), not a regular file",
        ] {
            assert!(err.contains(want) || cmd == "test", "{cmd}: {want}\n{err}");
        }
    }
    // Other commands that read a named file: a recording, `convert`'s input, a JWKS.
    let jwt = "eyJhbGciOiJub25lIn0.e30.";
    for args in [
        vec!["audit", "zero.yaml"],
        vec!["audit", "fifo.yaml"],
        vec!["convert", "--from", "a2a", "--to", "acp", "fifo.yaml"],
        vec!["token", "inspect", jwt, "--keys", "zero.yaml"],
        vec!["token", "inspect", jwt, "--keys", "fifo.yaml"],
    ] {
        let (status, err) = run_bounded(&dir, &args);
        assert_eq!(status, 2, "{args:?}: {err}");
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
    }
    // The scenario named directly, too.
    let (status, err) = run_bounded(&dir, &["check", "zero.yaml"]);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("zero.yaml:1:1: cannot read the file"), "{err}");
}
