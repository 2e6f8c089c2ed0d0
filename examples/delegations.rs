//! Runs N delegations on the common path — admission, task creation, working, one artifact with a
//! text and a data part, completed — and prints delegations per second of the engine alone
//! (loading is not timed). Used by `scripts/bench.sh` and under callgrind:
//!
//!     cargo run --release --example delegations -- 200000

use std::path::Path;
use std::time::Instant;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let text = a2a_sim::bench_support::delegation_scenario(n);
    let scenario = a2a_sim::loader::load_str(
        "delegations.yaml",
        &text,
        Path::new("."),
        "delegations".into(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let start = Instant::now();
    let world = a2a_sim::world::run(&scenario);
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(world.tasks.len(), n);
    println!(
        "{n} delegations in {secs:.3} s: {:.0} delegations/s",
        n as f64 / secs
    );
}
