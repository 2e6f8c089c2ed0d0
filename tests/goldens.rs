//! Every bundled scenario's report equals its checked-in golden file, and its `expect:` holds.

use std::path::Path;

use a2a_sim::corpus;
use a2a_sim::testing::golden;

#[test]
fn bundled_scenarios_match_their_goldens() {
    let files = corpus::expand(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")]).unwrap();
    assert!(files.len() >= 7, "the bundled scenarios are missing");
    let mut failures = Vec::new();
    for f in &files {
        let o = golden::test_one(f, false, &Default::default());
        if !o.passed() {
            failures.push(format!(
                "{}: {o:?}\n{}",
                f.display(),
                o.diff.clone().unwrap_or_default()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "run `cargo run -- test --bless` after checking the change:\n{}",
        failures.join("\n")
    );
}
