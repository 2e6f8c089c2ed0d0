//! `a2a-sim schema`: a JSON Schema of the scenario file that every bundled scenario validates
//! against and that rejects what the loader rejects.

use std::path::Path;

use crate::common::binary::a2a_sim;

#[test]
fn schema_describes_every_bundled_scenario() {
    let r = a2a_sim(&["schema"]);
    assert_eq!(r.status, 0);
    let schema: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(schema["title"], "a2a-sim scenario");
    assert_eq!(schema["additionalProperties"], false);
}

#[test]
fn every_bundled_scenario_validates_against_the_schema() {
    let r = a2a_sim(&["schema"]);
    let schema: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = a2a_sim::corpus::expand(&[root.join("scenarios")]).unwrap();
    for f in &files {
        let doc =
            a2a_sim::scenario::yaml::parse_value(&std::fs::read_to_string(f).unwrap()).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", f.display());
    }
    // And it rejects what the loader rejects: an unknown key, an unknown step kind.
    for bad in [
        "agents: []\ncallers: []\nsteps: []\nextra: 1\n",
        "agents: []\ncallers: []\nsteps: [{sned: {}}]\n",
    ] {
        let doc = a2a_sim::scenario::yaml::parse_value(bad).unwrap();
        assert!(!validator.is_valid(&doc), "{bad}");
    }
}
