//! Scenario text for benchmarks (the criterion benches and the `delegations` example).

use std::fmt::Write as _;

/// N sends on the common path: admission, task creation, working, one artifact with a text and
/// a data part, completed.
pub fn delegation_scenario(n: usize) -> String {
    let mut y = String::from(
        "agents:\n  - name: sanctions-screener\n    tenant: acme\n    clearance: confidential\n    required_scopes: [sanctions:screen]\n    skills: [{id: screen, tags: [sanctions, kyc]}]\n    handler:\n      - working\n      - artifact: {name: result, text: \"Acme Trading FZE: 1 possible match (score 0.83) against SDN list\", data: {matches: 1, top_score: 0.83, list: SDN, recommendation: manual_review}}\n      - completed\ncallers:\n  - {id: payments-agent, tenant: acme, classification: confidential, scopes: [sanctions:screen], delegation_chain: [orchestrator]}\nsteps:\n",
    );
    for _ in 0..n {
        y.push_str("  - send: {caller: payments-agent, to: sanctions-screener, text: Screen the beneficiary}\n");
    }
    y
}

/// A directory of `cards` agents, each with `skills` skills drawn from 64 tags, and one caller.
pub fn directory_scenario(cards: usize, skills: usize, queries: usize) -> String {
    let mut y = String::from("agents:\n");
    for i in 0..cards {
        let _ = writeln!(
            y,
            "  - name: agent-{i:05}\n    tenant: acme\n    clearance: restricted\n    skills:"
        );
        for k in 0..skills {
            let tags: Vec<String> = (0..3)
                .map(|t| format!("tag-{}", (i * 7 + k * 13 + t * 29) % 64))
                .collect();
            let _ = writeln!(y, "      - {{id: s{k}, tags: [{}]}}", tags.join(", "));
        }
    }
    y.push_str("callers:\n  - {id: c, tenant: acme, classification: public}\nsteps:\n");
    for q in 0..queries {
        let _ = writeln!(
            y,
            "  - discover: {{caller: c, tags: [tag-{}, tag-{}], limit: 10}}",
            q % 64,
            (q * 5 + 1) % 64
        );
    }
    y
}

/// One task living through `turns` input-required pauses, each resumed by a reply.
pub fn history_scenario(turns: usize) -> String {
    let mut y = String::from(
        "agents:\n  - name: clerk\n    tenant: acme\n    clearance: public\n    skills: [{id: s, tags: [x]}]\n    handler:\n",
    );
    for _ in 0..turns {
        y.push_str("      - working\n      - input_required: more?\n");
    }
    y.push_str("      - working\n      - completed\ncallers:\n  - {id: c, tenant: acme, classification: public}\nsteps:\n  - send: {caller: c, to: clerk, text: start, as: long}\n");
    for _ in 0..turns {
        y.push_str("  - reply: {caller: c, task: long, text: more}\n");
    }
    y
}

/// One orchestrator fanning out to `width` children at once, each running `steps` handler steps
/// (working, messages, completed): `width × steps` turns interleaved by the scheduler, every
/// child due at once, so each turn goes through the heap.
pub fn fan_out_scenario(width: usize, steps: usize) -> String {
    let mut y = String::from(
        "agents:\n  - name: worker\n    tenant: acme\n    clearance: public\n    skills: [{id: w, tags: [w]}]\n    handler:\n      - working\n",
    );
    for _ in 2..steps.max(2) {
        y.push_str("      - message: step\n");
    }
    y.push_str("      - completed\n  - name: orchestrator\n    tenant: acme\n    clearance: public\n    skills: [{id: o, tags: [o]}]\n    handler:\n      - working\n      - fan_out:\n          as: all\n          text: go\n          to: [");
    let members = vec!["worker"; width];
    y.push_str(&members.join(", "));
    y.push_str("]\n      - completed\ncallers:\n  - {id: c, tenant: acme, classification: public}\nsteps:\n  - send: {caller: c, to: orchestrator, text: start}\n");
    y
}
