//! `audit` throughput and memory on a large recording: `cargo bench --bench audit [-- MB]`.
//!
//! Writes a recording of MB megabytes (default 1024) to the target directory — the bundled
//! payment-decision stream in A2A 1.0 and 0.3, repeated with fresh task and context ids so every
//! line is a legal event — audits it from disk, and prints the rate and the process's peak
//! resident memory before and after (bounded: it does not grow with the file).

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let mb: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1024);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut templates = Vec::new();
    for v in ["1.0", "0.3"] {
        let p = root.join(format!(
            "tests/protocol-goldens/payment-decision/a2a-stream-{v}.jsonl"
        ));
        templates.push(std::fs::read_to_string(p).expect("the protocol golden exists"));
    }
    let path = root.join("target/audit-bench.jsonl");
    let started = Instant::now();
    {
        let mut out =
            std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).unwrap());
        let (mut written, mut round) = (0u64, 0u64);
        while written < mb << 20 {
            let t = &templates[(round % 2) as usize];
            // Fresh ids each round: `task-1` → `task-r7-1`, `ctx-1` → `ctx-r7-1`.
            let text = t
                .replace("\"task-", &format!("\"task-r{round}-"))
                .replace("\"ctx-", &format!("\"ctx-r{round}-"));
            out.write_all(text.as_bytes()).unwrap();
            written += text.len() as u64;
            round += 1;
        }
        out.flush().unwrap();
    }
    let size = std::fs::metadata(&path).unwrap().len();
    eprintln!(
        "wrote {:.0} MB in {:.1?}",
        size as f64 / 1e6,
        started.elapsed()
    );
    let before = peak_rss_kb();
    let started = Instant::now();
    let mut findings = 0u64;
    let totals = a2a_sim::analysis::audit::audit_file(&path, &mut |f| {
        if findings < 5 {
            eprintln!("finding: line {}: {}: {}", f.line, f.rule, f.message);
        }
        findings += 1;
    })
    .unwrap();
    let secs = started.elapsed().as_secs_f64();
    println!(
        "audit: {:.0} MB, {} lines, {} events, {} findings in {secs:.2} s = {:.0} MB/s; peak RSS {} MB before, {} MB after",
        size as f64 / 1e6,
        totals.lines,
        totals.events,
        totals.findings,
        size as f64 / 1e6 / secs,
        before / 1024,
        peak_rss_kb() / 1024
    );
    let _ = std::fs::remove_file(&path);
}
