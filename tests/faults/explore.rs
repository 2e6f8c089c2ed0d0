//! `explore`: the generator's test vector, shrinking to a 1-minimal schedule, partitions whose
//! union is the single run, the same output for any `--jobs`, and the command line.

use a2a_sim::engine::scenario::Faults;
use a2a_sim::testing::check::{Rule, check};
use a2a_sim::testing::explore::{Options, explore, schedule};
use a2a_sim::testing::schedule::{Inputs, SplitMix64, fault_yaml};

use crate::common::binary::{a2a_sim, scratch};
use crate::common::load;

/// A claim that is wrong under faults: the payment always completes.
const WRONG: &str = concat!(
    crate::pay_and_screen!(),
    "expect:\n  - {task: pay, state: completed}\n  - {task: pay, always: true, state: completed}\n"
);

fn opts(runs: u64, jobs: usize) -> Options {
    Options {
        jobs,
        ..Options::new(runs, 1)
    }
}

#[test]
fn splitmix64_is_the_standard_generator() {
    // The reference outputs of SplitMix64 seeded with 1234567.
    let mut r = SplitMix64(1234567);
    let got: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
    assert_eq!(
        got,
        [
            6457827717110365317,
            3203168211198807973,
            9817491932198370423
        ]
    );
}

#[test]
fn the_first_schedules_of_seed_1_are_pinned() {
    // The book's test vector (faults.md §3): change the generator and every published seed breaks.
    let s = load(WRONG);
    let clock = a2a_sim::engine::run(&s).clock();
    let inputs = Inputs::new(&s, clock, [true; 5]);
    assert_eq!(inputs.horizon, 2 * clock);
    let got: Vec<String> = (1..=3)
        .map(|run| {
            let f: Vec<String> = inputs
                .draw(1, run)
                .iter()
                .map(|f| fault_yaml(&s, f))
                .collect();
            f.join(" ")
        })
        .collect();
    assert_eq!(got, VECTOR, "{got:#?}");
}

const VECTOR: [&str; 3] = [
    "{agent: payments, unavailable: {from: 3, to: 13}} {agent: screener, crash: {at: 10}} {agent: screener, slow: {extra: 1, from: 1, to: 13}} {agent: payments, unavailable: {from: 2, to: 7}}",
    "{agent: screener, slow: {extra: 1, from: 2, to: 8}} {agent: screener, crash: {at: 9}}",
    "{agent: payments, crash: {at: 2}} {agent: screener, crash: {at: 2, restart: 12}}",
];

#[test]
fn a_violation_shrinks_to_a_1_minimal_schedule() {
    let s = load(WRONG);
    let explored = explore(&s, &opts(200, 2));
    assert!(!explored.found.is_empty(), "the wrong claim is found");
    for f in &explored.found {
        assert_eq!(f.violation.rule, Rule::Expect(2));
        let faults = schedule(&s.faults, &f.faults);
        let again = check(&s, &faults).expect("the minimal schedule still violates");
        assert_eq!(again.rule, f.violation.rule);
        for i in 0..f.faults.len() {
            let mut fewer = f.faults.clone();
            fewer.remove(i);
            let v = check(&s, &schedule(&s.faults, &fewer));
            assert!(
                v.is_none_or(|v| v.rule != f.violation.rule),
                "run {}: fault {i} could go",
                f.run
            );
        }
    }
}

#[test]
fn partitions_together_find_exactly_the_single_run() {
    let s = load(WRONG);
    let whole = explore(&s, &opts(120, 1));
    let n = 3;
    let mut union = Vec::new();
    let mut runs = 0;
    for m in 1..=n {
        let mut o = opts(120, 2);
        o.slice = Some((m, n));
        let part = explore(&s, &o);
        runs += part.runs;
        assert!(part.found.iter().all(|f| (f.run - 1) % n == m - 1));
        union.extend(part.found);
    }
    union.sort_by_key(|f| f.run);
    assert_eq!(runs, whole.runs);
    assert_eq!(union, whole.found);
}

#[test]
fn output_is_the_same_for_any_jobs() {
    let s = load(WRONG);
    let one = explore(&s, &opts(150, 1));
    for jobs in [2, 4] {
        assert_eq!(explore(&s, &opts(150, jobs)), one, "jobs {jobs}");
    }
    let file = scratch("explore-jobs").join("wrong.yaml");
    std::fs::write(&file, WRONG).unwrap();
    let f = file.to_str().unwrap();
    let a = a2a_sim(&[
        "explore", f, "--runs", "50", "--jobs", "1", "--format", "json",
    ]);
    let b = a2a_sim(&[
        "explore", f, "--runs", "50", "--jobs", "3", "--format", "json",
    ]);
    assert_eq!(a.status, 1);
    assert_eq!(a.stdout, b.stdout);
    let lines: Vec<serde_json::Value> = a
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = lines.last().unwrap();
    assert_eq!(last["runs"], 50);
    // One line per distinct violation, each with how many runs gave it.
    assert_eq!(last["distinct"].as_u64().unwrap() as usize, lines.len() - 1);
    let counted: u64 = lines[..lines.len() - 1]
        .iter()
        .map(|l| l["count"].as_u64().unwrap())
        .sum();
    assert_eq!(last["violations"].as_u64().unwrap(), counted);
    let first = &lines[0];
    assert_eq!(first["violation"]["kind"], "expect");
    assert_eq!(first["violation"]["index"], 2);
    assert_eq!(first["seed"], 1);
    assert!(first["faults"].as_array().is_some_and(|f| !f.is_empty()));
}

#[test]
fn the_printed_schedule_pastes_back_as_a_regression_test() {
    let file = scratch("explore-paste").join("wrong.yaml");
    std::fs::write(&file, WRONG).unwrap();
    let r = a2a_sim(&["explore", file.to_str().unwrap(), "--runs", "40"]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    let block: String = r
        .stdout
        .lines()
        .skip_while(|l| l.trim() != "faults:")
        .take_while(|l| l.starts_with("  "))
        .map(|l| format!("{}\n", &l[2..]))
        .collect();
    let pasted = load(&format!("{WRONG}{block}"));
    let w = a2a_sim::engine::run(&pasted);
    assert!(a2a_sim::testing::check::always(&w).is_some(), "{block}");
    assert!(r.stdout.ends_with("40 runs, ") || r.stdout.contains("40 runs, "));
}

#[test]
fn explore_exits_0_when_every_claim_holds_and_2_on_bad_input() {
    let ok = a2a_sim(&["explore", "scenarios/screener-outage.yaml", "--runs", "200"]);
    assert_eq!(
        (ok.status, ok.stdout.as_str()),
        (0, "200 runs, 0 violations\n")
    );
    let bad = a2a_sim(&[
        "explore",
        "scenarios/screener-outage.yaml",
        "--faults",
        "slwo",
    ]);
    assert_eq!(bad.status, 2);
    assert!(bad.stderr.contains("did you mean `slow`"), "{}", bad.stderr);
    let hash = a2a_sim(&[
        "explore",
        "scenarios/screener-outage.yaml",
        "--partition",
        "hash:1/2",
    ]);
    assert_eq!(hash.status, 2);
    let missing = a2a_sim(&["explore", "does-not-exist.yaml"]);
    assert_eq!(missing.status, 2);
}

#[test]
fn the_files_own_faults_are_kept_in_every_run_and_never_shrunk() {
    // The file's own crash breaks the claim on its own: every run violates, and nothing drawn is
    // needed, so every minimal schedule is empty.
    let own = format!("{WRONG}faults:\n  - {{agent: payments, crash: {{at: 2}}}}\n");
    let s = load(&own);
    let explored = explore(&s, &opts(30, 2));
    assert_eq!(explored.found.len(), 30);
    assert!(explored.found.iter().all(|f| f.faults.is_empty()));
    assert_eq!(s.faults.entries.len(), 1);
    let _ = Faults::default();
}

#[test]
fn the_readme_claim_holds_for_1000_runs() {
    let s = a2a_sim::scenario::Load::file(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/screener-outage.yaml"
    )))
    .scenario()
    .unwrap();
    let explored = explore(&s, &opts(1000, 2));
    assert_eq!((explored.runs, explored.found.len()), (1000, 0));
}

#[test]
fn a_violation_that_needs_no_drawn_fault_says_so_instead_of_an_empty_block() {
    let dir = scratch("explore-no-fault-needed");
    let own = dir.join("own.yaml");
    std::fs::write(
        &own,
        format!("{WRONG}faults:\n  - {{agent: payments, crash: {{at: 2}}}}\n"),
    )
    .unwrap();
    let out = a2a_sim(&["explore", own.to_str().unwrap(), "--runs", "3"]);
    assert_eq!(out.status, 1, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("no fault needed beyond the scenario's own faults"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("  faults:\n"), "{}", out.stdout);
}

#[test]
fn identical_violations_are_one_finding_with_their_count_and_first_run() {
    let s = load(WRONG);
    let explored = explore(&s, &opts(200, 2));
    let distinct = explored.distinct();
    assert!(
        distinct.len() < explored.found.len(),
        "some schedules repeat"
    );
    let total: u64 = distinct.iter().map(|(_, n)| n).sum();
    assert_eq!(total, explored.found.len() as u64);
    // Each finding is its first run, and no two findings share claim and schedule.
    for (i, (f, _)) in distinct.iter().enumerate() {
        let first = explored
            .found
            .iter()
            .find(|g| g.violation == f.violation && g.faults == f.faults)
            .unwrap();
        assert_eq!(first.run, f.run);
        for (g, _) in &distinct[i + 1..] {
            assert!(g.violation != f.violation || g.faults != f.faults);
        }
    }
    let file = crate::common::binary::scratch("explore-distinct").join("wrong.yaml");
    std::fs::write(&file, WRONG).unwrap();
    let r = a2a_sim(&["explore", file.to_str().unwrap(), "--runs", "200"]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    let summary = format!(
        "200 runs, {} violations, {} distinct\n",
        explored.found.len(),
        distinct.len()
    );
    assert!(r.stdout.ends_with(&summary), "{}", r.stdout);
    let (most, n) = distinct.iter().max_by_key(|(_, n)| *n).unwrap();
    assert!(*n > 1);
    let header = format!("run {} (seed 1, first of {n} runs):", most.run);
    assert!(r.stdout.contains(&header), "{header}\n{}", r.stdout);
    assert_eq!(r.stdout.matches("violated:").count(), distinct.len());
}

#[test]
fn faults_can_be_aimed_at_some_agents_or_kept_off_others() {
    use a2a_sim::engine::scenario::FaultTarget;
    let s = load(WRONG);
    let screener = s
        .agents
        .iter()
        .position(|a| a.name() == "screener")
        .unwrap();
    let only = |o: Options| {
        let agents = o.eligible_agents(&s).unwrap();
        a2a_sim::testing::explore::explore_agents(&s, &o, agents)
    };
    for o in [
        Options {
            agents: Some(vec!["screener".into()]),
            ..opts(200, 1)
        },
        Options {
            skip_agents: vec!["payments".into()],
            ..opts(200, 1)
        },
    ] {
        let explored = only(o);
        assert!(!explored.found.is_empty());
        for f in &explored.found {
            for fault in &f.faults {
                if let FaultTarget::Agent(a) = fault.target {
                    assert_eq!(a, screener, "{:?}", f.faults);
                }
            }
        }
    }
    // Nothing left to fault: no agent fault is drawn, so the claim holds.
    let none = Options {
        agents: Some(vec!["screener".into()]),
        skip_agents: vec!["screener".into()],
        kinds: [true, true, true, false, false],
        ..opts(50, 1)
    };
    assert_eq!(only(none).found, vec![]);
    // Every agent named is the same as no option: the draws of the whole file.
    let all = Options {
        agents: Some(vec!["screener".into(), "payments".into()]),
        ..opts(100, 1)
    };
    assert_eq!(only(all), explore(&s, &opts(100, 1)));
    let file = crate::common::binary::scratch("explore-aim").join("wrong.yaml");
    std::fs::write(&file, WRONG).unwrap();
    let r = a2a_sim(&["explore", file.to_str().unwrap(), "--agents", "screenr"]);
    assert_eq!(r.status, 2, "{}", r.stdout);
    assert!(
        r.stderr
            .contains("--agents: no agent `screenr` in this scenario (did you mean `screener`?)"),
        "{}",
        r.stderr
    );
}

#[test]
fn max_distinct_stops_at_the_run_that_gives_the_last_one_for_any_jobs() {
    let s = load(WRONG);
    let all = explore(&s, &opts(300, 1));
    let distinct = all.distinct();
    assert!(distinct.len() >= 3);
    let third = distinct[2].0.run;
    for jobs in [1, 3] {
        let o = Options {
            max_distinct: Some(3),
            ..opts(300, jobs)
        };
        let cut = explore(&s, &o);
        assert_eq!(cut.runs, third, "jobs {jobs}");
        assert_eq!(cut.distinct().len(), 3);
        let before: Vec<_> = all.found.iter().filter(|f| f.run <= third).collect();
        assert_eq!(cut.found.iter().collect::<Vec<_>>(), before, "jobs {jobs}");
    }
}
