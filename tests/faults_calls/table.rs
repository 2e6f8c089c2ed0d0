//! The table report's rows for call-picked and wire faults.

use super::*;

/// The rows of the table report's `faults` section, each a list of its cells.
fn faults_rows(table: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .skip_while(|l| *l != "faults")
        .skip(4)
        .take_while(|l| l.starts_with('│'))
        .map(|l| {
            l.trim_matches('│')
                .split('┆')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn the_table_report_shows_calls_statuses_and_cuts() {
    let faults = [
        "  - {agent: screener, unavailable: {calls: [2, 4]}}",
        "  - {agent: screener, unavailable: {from: 5, to: 12}}",
        "  - {agent: screener, http_error: {status: 502, from: 30, to: 39}}",
        "  - {agent: screener, http_error: {status: 502, calls: [1]}}",
        "  - {agent: screener, reset: {calls: [7]}}",
        "  - {agent: screener, reset: {from: 40}}",
        "  - {agent: screener, drop_stream: {after: 3, from: 2, to: 6}}",
        "  - {agent: screener, drop_stream: {after: 0, calls: [1, 3]}}",
        "  - {agent: screener, slow: {extra: 2, calls: [5]}}",
        "  - {agent: screener, slow: {extra: 2, from: 1, to: 3}}",
    ]
    .join("\n");
    let dir = scratch("faults-calls-table");
    write(&dir, "s.yaml", &scenario(SCREENER, &faults, &send("a")));
    let r = a2a_sim_in(&dir, &["run", "s.yaml"], None);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let rows = faults_rows(&r.stdout);
    let want = [
        ["1", "agent screener", "unavailable", "calls 2, 4"],
        ["2", "agent screener", "unavailable", "[5, 12)"],
        ["3", "agent screener", "http_error", "[30, 39) HTTP 502"],
        ["4", "agent screener", "http_error", "calls 1 HTTP 502"],
        ["5", "agent screener", "reset", "calls 7"],
        ["6", "agent screener", "reset", "[40, forever)"],
        [
            "7",
            "agent screener",
            "drop_stream",
            "[2, 6) after 3 events",
        ],
        [
            "8",
            "agent screener",
            "drop_stream",
            "calls 1, 3 after 0 events",
        ],
        ["9", "agent screener", "slow", "calls 5 +2 ticks"],
        ["10", "agent screener", "slow", "[1, 3) +2 ticks"],
    ];
    assert_eq!(rows, want, "{}", r.stdout);
}
