//! Criterion benchmarks of the engine alone (no I/O, scenarios loaded before timing):
//! admission, discovery over a large directory, the send path, history growth, and the
//! scheduler's cost per turn.
//!
//!     cargo bench --bench engine

mod support;

use std::hint::black_box;
use std::path::Path;

use a2a_sim::engine;
use a2a_sim::engine::discover;
use a2a_sim::engine::record::Chains;
use a2a_sim::engine::scenario::Scenario;
use a2a_sim::engine::{CallerContext, check_delegation};
use a2a_sim::scenario::Load;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use support::{delegation_scenario, directory_scenario, fan_out_scenario, history_scenario};

fn load(text: &str) -> Scenario {
    Load::text("bench.yaml", text, Path::new("."), "bench")
        .scenario()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn caller(s: &Scenario, chains: &Chains) -> CallerContext<'static> {
    let c = &s.callers[0];
    let _ = chains;
    CallerContext {
        agent_id: c.sym,
        tenant: c.tenant,
        classification: c.classification,
        scopes: std::borrow::Cow::Owned(c.scopes.clone()),
        delegation_chain: None,
    }
}

fn admission(c: &mut Criterion) {
    let s = load(&delegation_scenario(1));
    let mut chains = Chains::default();
    let mut ctx = caller(&s, &chains);
    ctx.delegation_chain = chains.from_slice(&s.callers[0].delegation_chain);
    let card = &s.agents[0];
    c.bench_function("admission/admitted", |b| {
        b.iter(|| black_box(check_delegation(black_box(&ctx), card, &s, &chains)))
    });
    let outsider = CallerContext {
        tenant: ctx.tenant + 1_000,
        ..ctx
    };
    c.bench_function("admission/denied", |b| {
        b.iter(|| black_box(check_delegation(black_box(&outsider), card, &s, &chains)))
    });
}

fn discovery(c: &mut Criterion) {
    let mut g = c.benchmark_group("discovery");
    for cards in [1_000, 10_000] {
        let s = load(&directory_scenario(cards, 3, 1));
        let chains = Chains::default();
        let ctx = caller(&s, &chains);
        let tags = match &s.steps[0] {
            a2a_sim::engine::scenario::Step::Discover { tags, .. } => tags.clone(),
            _ => unreachable!("the directory scenario's first step is a discover"),
        };
        g.throughput(Throughput::Elements(cards as u64));
        g.bench_with_input(BenchmarkId::new("rank_top10", cards), &cards, |b, _| {
            b.iter(|| {
                black_box(discover(
                    &ctx,
                    black_box(&tags),
                    Some(10),
                    &s.directory,
                    &s.agents,
                ))
            })
        });
    }
    g.finish();
}

fn send_path(c: &mut Criterion) {
    let n = 10_000;
    let s = load(&delegation_scenario(n));
    let mut g = c.benchmark_group("send_path");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("delegations", |b| {
        b.iter(|| black_box(engine::run(black_box(&s)).tasks.len()))
    });
    g.finish();
}

fn history_growth(c: &mut Criterion) {
    let mut g = c.benchmark_group("history_growth");
    for turns in [100, 1_000, 10_000] {
        let s = load(&history_scenario(turns));
        g.throughput(Throughput::Elements(turns as u64));
        g.bench_with_input(BenchmarkId::new("status_changes", turns), &turns, |b, _| {
            b.iter(|| black_box(engine::run(black_box(&s)).tasks[0].history.len()))
        });
    }
    g.finish();
}

/// The scheduler's cost per turn: a fan-out whose children all run at once, so every handler
/// step is a heap push and pop. Time per turn should stay flat as the width grows (O(log n)).
fn scheduler(c: &mut Criterion) {
    let mut g = c.benchmark_group("scheduler");
    let steps = 100;
    for width in [10, 100, 1_000] {
        let s = load(&fan_out_scenario(width, steps));
        let turns = (width * steps) as u64;
        g.throughput(Throughput::Elements(turns));
        g.bench_with_input(BenchmarkId::new("fan_out_turns", width), &width, |b, _| {
            b.iter(|| black_box(engine::run(black_box(&s)).tasks.len()))
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = admission, discovery, send_path, history_growth, scheduler
}
criterion_main!(benches);
