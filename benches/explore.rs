//! Criterion benchmarks of `explore`: runs per second on one core (the target is ≥ 10,000 on the
//! payment-decision scenario) and shrinking a violation of a 20-fault schedule (target < 1 s).
//!
//!     cargo bench --bench explore

use std::path::Path;
use std::time::Duration;

use a2a_sim::engine::scenario::Faults;
use a2a_sim::scenario::Load;
use a2a_sim::testing::check::check;
use a2a_sim::testing::explore::{Options, explore};
use a2a_sim::testing::shrink::shrink;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn load(file: &str) -> a2a_sim::engine::scenario::Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    Load::file(&path)
        .scenario()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The bundled scenario when it exists, else the stand-in beside this bench.
fn payment_decision() -> a2a_sim::engine::scenario::Scenario {
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/payment-decision.yaml");
    if bundled.exists() {
        load("scenarios/payment-decision.yaml")
    } else {
        load("benches/data/payment-decision.yaml")
    }
}

fn runs_per_core(c: &mut Criterion) {
    let s = payment_decision();
    let runs = 1000;
    let opts = Options::new(runs, 1);
    let mut g = c.benchmark_group("explore");
    g.throughput(Throughput::Elements(runs));
    g.bench_function("payment-decision, 1000 runs, 1 core", |b| {
        b.iter(|| explore(&s, &opts))
    });
    g.finish();
}

fn shrink_20(c: &mut Criterion) {
    let s = load("benches/data/shrink-20-faults.yaml");
    let drawn = s.faults.entries.clone();
    assert_eq!(drawn.len(), 20);
    let base = Faults {
        entries: Vec::new(),
        push_delivery: s.faults.push_delivery,
        tampered_cards: Vec::new(),
    };
    let all = Faults {
        entries: drawn.clone(),
        push_delivery: s.faults.push_delivery,
        tampered_cards: Vec::new(),
    };
    let found = check(&s, &all).expect("the 20-fault schedule violates the claim");
    let mut g = c.benchmark_group("shrink");
    g.measurement_time(Duration::from_secs(5));
    g.bench_function("20-fault schedule", |b| {
        b.iter(|| {
            let (minimal, _) = shrink(&s, &base, drawn.clone(), found.clone(), None);
            assert_eq!(minimal.len(), 1);
            minimal
        })
    });
    g.finish();
}

criterion_group!(benches, runs_per_core, shrink_20);
criterion_main!(benches);
