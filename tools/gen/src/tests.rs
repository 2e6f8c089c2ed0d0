//! Unit tests of the generator.

use std::collections::BTreeSet;

use clap::Parser;

use crate::rng::Rng;
use crate::scenario::{generate, generate_long_history};
use crate::vocab::MAX_CALLER_CHAIN;
use crate::world::{Script, World};
use crate::yaml::Q;
use crate::{Args, Config, Mode};

fn config(seed: u64, agents: usize, steps: usize) -> Config {
    Config {
        seed,
        agents,
        steps,
        tenants: agents.min(3),
        skills_per_agent: 2,
        callers: 2 * agents.min(3),
        nesting_depth: 3,
    }
}

fn render(config: &Config) -> String {
    generate(config).expect("formatting into a String")
}

/// The lines of the `steps:` list, one per driver step.
fn step_lines(yaml: &str) -> Vec<&str> {
    yaml.lines()
        .skip_while(|l| !l.starts_with("steps:"))
        .skip(1)
        .filter(|l| l.starts_with("  - "))
        .collect()
}

/// The JSON string value that follows `key` in a flow mapping line.
fn value_after(line: &str, key: &str) -> Option<String> {
    let at = line.find(key)?;
    let rest = &line[at + key.len()..];
    serde_json::Deserializer::from_str(rest)
        .into_iter::<String>()
        .next()?
        .ok()
}

const CASES: [(u64, usize, usize); 6] = [
    (1, 4, 10),
    (2, 20, 50),
    (3, 1, 7),
    (4, 7, 0),
    (5, 200, 3000),
    (6, 2, 1),
];

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    for (seed, agents, steps) in CASES {
        let c = config(seed, agents, steps);
        assert_eq!(render(&c), render(&c), "{c:?}");
        let other = Config {
            seed: seed + 100,
            ..c.clone()
        };
        assert_ne!(render(&c), render(&other), "{c:?}");
    }
}

#[test]
fn the_world_does_not_depend_on_the_step_count() {
    let short = render(&config(9, 30, 5));
    let long = render(&config(9, 30, 500));
    let world = |s: &str| {
        let start = s.find("\npolicy:").unwrap_or(0);
        let end = s.find("\nsteps:").unwrap_or(s.len());
        s[start..end].to_string()
    };
    assert_eq!(world(&short), world(&long));
}

#[test]
fn produces_exactly_the_requested_steps() {
    for (seed, agents, steps) in CASES {
        let yaml = render(&config(seed, agents, steps));
        assert_eq!(step_lines(&yaml).len(), steps, "seed {seed}");
        if steps == 0 {
            assert!(yaml.contains("\nsteps: []\n"));
        }
    }
    for history in [1, 5, 300] {
        let yaml = generate_long_history(history).expect("formatting into a String");
        let steps = step_lines(&yaml);
        assert_eq!(steps.len(), history + 1);
        assert!(steps[0].contains("as: \"long\""));
        assert!(steps[1..].iter().all(|l| l.contains("task: \"long\"")));
        let pauses = yaml.matches("input_required: \"more?\"").count();
        assert_eq!(pauses, history);
    }
}

#[test]
fn every_alias_is_defined_once_before_it_is_used() {
    for seed in 0..40 {
        let yaml = render(&config(seed, 12, 400));
        let mut defined = BTreeSet::new();
        let mut uses = 0;
        for line in step_lines(&yaml) {
            for key in [", task: ", ", context_of: "] {
                if let Some(alias) = value_after(line, key) {
                    assert!(defined.contains(&alias), "seed {seed}: {line}");
                    uses += 1;
                }
            }
            if let Some(alias) = value_after(line, ", as: ") {
                assert!(!alias.is_empty());
                assert!(
                    defined.insert(alias),
                    "seed {seed}: duplicate alias in {line}"
                );
            }
        }
        assert!(uses > 0, "seed {seed}: no alias was ever used");
    }
}

#[test]
fn every_reply_goes_to_a_task_of_the_same_caller() {
    let yaml = render(&config(11, 20, 2000));
    let mut owner = std::collections::BTreeMap::new();
    let mut replies = 0;
    for line in step_lines(&yaml) {
        let caller = value_after(line, "{caller: ").expect("every step names its caller");
        if let Some(alias) = value_after(line, ", as: ") {
            owner.insert(alias, caller.clone());
        }
        if line.starts_with("  - reply:") {
            let alias = value_after(line, ", task: ").expect("replies name an alias");
            assert_eq!(owner.get(&alias), Some(&caller), "{line}");
            replies += 1;
        }
    }
    assert!(replies > 0);
}

#[test]
fn names_in_steps_exist() {
    let c = config(12, 25, 1500);
    let yaml = render(&c);
    let agents: BTreeSet<String> = (0..c.agents).map(|i| format!("agent-{i:03}")).collect();
    let callers: BTreeSet<String> = (0..c.callers).map(|j| format!("caller-{j}")).collect();
    for line in step_lines(&yaml) {
        let caller = value_after(line, "{caller: ").expect("every step names its caller");
        assert!(callers.contains(&caller), "{line}");
        for key in [", to: ", ", agent: "] {
            if let Some(agent) = value_after(line, key) {
                assert!(agents.contains(&agent), "{line}");
            }
        }
    }
}

#[test]
fn delegations_go_up_within_a_tenant_and_respect_the_depth() {
    for seed in 0..20 {
        let c = Config {
            nesting_depth: 2,
            ..config(seed, 60, 0)
        };
        let world = World::build(&c, &mut Rng::new(seed));
        let mut longest = 0;
        for (i, agent) in world.agents.iter().enumerate() {
            let mut hops = 0;
            let mut at = i;
            while let Script::Nested { to } = world.agents[at].script {
                assert!(to > at);
                assert_eq!(world.agents[to].tenant, agent.tenant);
                assert!(!world.agents[to].script.pauses());
                for scope in &world.agents[to].required_scopes {
                    assert!(world.agents[at].scopes.contains(scope));
                }
                hops += 1;
                at = to;
            }
            assert_eq!(hops, agent.chain_len);
            longest = longest.max(hops);
        }
        assert!(longest <= c.nesting_depth);
        // Deepest chain: a caller chain of MAX_CALLER_CHAIN, the driver task, and each hop.
        assert!(MAX_CALLER_CHAIN + 1 + longest < world.max_depth);
    }
    let world = World::build(&config(1, 200, 0), &mut Rng::new(1));
    assert!(world.agents.iter().any(|a| a.chain_len == 3));
}

#[test]
fn no_nesting_when_depth_is_zero() {
    let c = Config {
        nesting_depth: 0,
        ..config(3, 50, 100)
    };
    assert!(!render(&c).contains("delegate:"));
}

#[test]
fn strings_are_quoted_as_json() {
    for s in [
        "plain",
        "",
        "with \"quotes\" and \\ backslash",
        "line\nbreak\ttab\r\u{0}\u{1f}\u{7f}",
        "*.hooks.example.net",
        "é ünïcode ✓",
        "- [x]: {y} # z",
    ] {
        let expected = serde_json::to_string(s).expect("a string serialises");
        assert_eq!(Q(s).to_string(), expected);
    }
}

#[test]
fn rng_is_splitmix64() {
    // Reference outputs of splitmix64 seeded with 1234567.
    let mut rng = Rng::new(1234567);
    let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
    assert_eq!(
        first,
        [
            6457827717110365317,
            3203168211198807973,
            9817491932198370423
        ]
    );
    let mut rng = Rng::new(7);
    assert!((0..10_000).all(|_| rng.below(3) < 3));
}

#[test]
fn flags_are_validated() {
    let parse = |args: &[&str]| {
        Args::try_parse_from(std::iter::once("a2a-sim-gen").chain(args.iter().copied()))
            .map_err(|e| e.to_string())
            .and_then(Args::into_mode)
    };
    assert_eq!(
        parse(&["--seed", "1", "--agents", "2", "--steps", "3"]),
        Ok(Mode::Synthetic(Config {
            seed: 1,
            agents: 2,
            steps: 3,
            tenants: 2,
            skills_per_agent: 2,
            callers: 4,
            nesting_depth: 3,
        }))
    );
    assert_eq!(
        parse(&["--seed", "1", "--history", "9"]),
        Ok(Mode::LongHistory { history: 9 })
    );
    for bad in [
        &["--seed", "1", "--steps", "3"][..],
        &["--seed", "1", "--agents", "0", "--steps", "3"],
        &[
            "--seed",
            "1",
            "--agents",
            "2",
            "--steps",
            "3",
            "--tenants",
            "3",
        ],
        &[
            "--seed",
            "1",
            "--agents",
            "2",
            "--steps",
            "3",
            "--callers",
            "0",
        ],
        &[
            "--seed",
            "1",
            "--agents",
            "2",
            "--steps",
            "3",
            "--skills-per-agent",
            "0",
        ],
        &[
            "--seed",
            "1",
            "--agents",
            "2",
            "--steps",
            "3",
            "--history",
            "0",
            "--x",
        ],
    ] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
}
