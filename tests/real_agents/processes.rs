//! Logs, flags and processes: `--agent-logs`, `--listen`, and no process outliving the run; `test` with goldens.

use super::*;

#[test]
fn agent_logs_gets_the_output_of_each_agent_as_name_log() {
    let dir = Desk::mode("ok").at("logs");
    report(&dir, &[]);
    let log = log(&dir, "desk");
    assert!(log.contains("stub-agent: serving on port"), "{log}");
    // Its scripted agents under its own prefix, and a traceparent on each request.
    assert!(log.contains("KYC_URL=http://127.0.0.1:"), "{log}");
    assert!(log.contains("/as/desk/agents/kyc/\n"), "{log}");
    for line in log.lines().filter(|l| l.contains("SendMessage")) {
        let trace = line.rsplit(' ').next().unwrap();
        let fields: Vec<&str> = trace.split('-').collect();
        let hex = |s: &str, n| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
        assert!(
            fields.len() == 4
                && fields[0] == "00"
                && hex(fields[1], 32)
                && hex(fields[2], 16)
                && fields[3] == "01",
            "{line}"
        );
    }
    assert_eq!(log.matches("SendMessage").count(), 2, "{log}");
}

#[test]
fn listen_sets_where_the_scripted_agents_are_served() {
    let port = free_port();
    let dir = Desk::mode("ok").at("listen");
    let r = report(&dir, &["--listen", &format!("127.0.0.1:{port}")]);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    let want = format!("KYC_URL=http://127.0.0.1:{port}/as/desk/agents/kyc/");
    assert!(log(&dir, "desk").contains(&want), "{}", log(&dir, "desk"));
}

#[test]
fn no_agent_process_outlives_the_run() {
    let dir = Desk::mode("ok").at("stopped");
    report(&dir, &[]);
    // a2a-sim reaped it before it exited.
    assert!(!running(pid_in(&dir, "stub.pid")));
}

#[test]
fn an_agent_that_ignores_sigterm_is_killed() {
    let dir = Desk::new("--mode, ok, --ignore-sigterm").at("stubborn");
    let start = Instant::now();
    report(&dir, &[]);
    let took = start.elapsed();
    assert!(!running(pid_in(&dir, "stub.pid")));
    assert!(log(&dir, "desk").contains("ignoring SIGTERM"));
    // SIGKILL comes 5 s after SIGTERM.
    assert!(
        took >= Duration::from_secs(4) && took < Duration::from_secs(30),
        "{took:?}"
    );
}

/// `desk` started through `sh -c`, the stub a child of the shell.
fn through_a_shell(stub_args: &str) -> Desk {
    Desk {
        external: format!(
            "      command: [sh, -c, \"python3 stub_agent.py --port $0 {stub_args} & wait\", \"{{port}}\"]\n      \
             env: {{STUB_PID_FILE: stub.pid}}\n"
        ),
        steps: "  - send: {caller: branch, to: desk, text: hi}\n",
        ..Desk::mode("ask")
    }
}

#[test]
fn an_agent_started_through_a_shell_is_stopped_with_it() {
    let dir = through_a_shell("--mode ask").at("shell");
    let r = report(&dir, &[]);
    assert_eq!(task(&r, "task-1")["state"], "input-required", "{r:#}");
    assert!(gone_within(
        pid_in(&dir, "stub.pid"),
        Duration::from_secs(3)
    ));
}

#[test]
fn an_agent_under_a_launcher_that_ignores_sigterm_is_killed_with_its_group() {
    let dir = through_a_shell("--mode ask --ignore-sigterm").at("shell-stubborn");
    report(&dir, &[]);
    let pid = pid_in(&dir, "stub.pid");
    let gone = gone_within(pid, Duration::from_secs(7));
    if !gone {
        kill(pid);
    }
    assert!(gone, "the agent outlived the run");
}

// ---- `test`: goldens -----------------------------------------------------------------------------

#[test]
fn test_blesses_a_real_agents_golden_and_then_passes_it() {
    let dir = Desk::mode("ok").at("golden");
    let missing = a2a_sim_logged(&dir, &["test", "./desk.yaml"]);
    assert_eq!(missing.status, 1, "{}", missing.stdout);
    assert!(
        missing.stdout.contains("no golden file ./desk.golden.json"),
        "{}",
        missing.stdout
    );
    let blessed = a2a_sim_logged(&dir, &["test", "--bless", "./desk.yaml"]);
    assert_eq!(blessed.status, 0, "{}", blessed.stdout);
    let again = a2a_sim_logged(&dir, &["test", "./desk.yaml"]);
    assert_eq!(again.status, 0, "{}", again.stdout);
    let golden = std::fs::read_to_string(dir.join("desk.golden.json")).unwrap();
    let run = a2a_sim_logged(&dir, &["run", "./desk.yaml", "--format", "json"]);
    assert_eq!(golden, run.stdout);
}
