//! Runs N delegations on the common path — admission, task creation, working, one artifact with a
//! text and a data part, completed — and prints delegations per second of the engine alone
//! (loading is not timed): the first run on fresh memory, and the best of the following runs, in
//! which the allocator reuses memory as a long-lived process would. Used by `scripts/bench.py`
//! and under callgrind:
//!
//!     cargo run --release --example delegations -- 200000 [RUNS]

// Only the delegation scenario of the benches' helpers is used here.
#[allow(dead_code)]
#[path = "../benches/support/mod.rs"]
mod support;

use std::path::Path;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1).max(1);
    let text = support::delegation_scenario(n);
    let scenario = a2a_sim::scenario::Load::text(
        "delegations.yaml",
        text.as_str(),
        Path::new("."),
        "delegations",
    )
    .scenario()
    .unwrap_or_else(|e| panic!("{e}"));
    let mut rates = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let world = a2a_sim::engine::run(&scenario);
        let secs = start.elapsed().as_secs_f64();
        assert_eq!(world.tasks.len(), n);
        rates.push(n as f64 / secs);
    }
    let best = rates.iter().skip(1).copied().fold(rates[0], f64::max);
    println!(
        "{n} delegations: first run {:.0} delegations/s, best of {runs} runs {best:.0} delegations/s",
        rates[0]
    );
}
