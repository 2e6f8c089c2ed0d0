//! `a2a-sim schema`: the JSON schema of a scenario file enumerates the task states and the
//! denial and error codes.

use crate::common::binary::a2a_sim;

#[test]
fn the_schema_enumerates_states_and_codes() {
    let schema: serde_json::Value = serde_json::from_str(&a2a_sim(&["schema"]).stdout).unwrap();
    let expect = &schema["definitions"]["ExpectFile"]["properties"];
    let states = &expect["state"]["anyOf"][0]["enum"];
    assert!(
        states.as_array().unwrap().contains(&"completed".into()),
        "{states}"
    );
    assert!(!states.as_array().unwrap().contains(&"complete".into()));
    assert!(
        expect["codes"]["items"]["enum"]
            .as_array()
            .unwrap()
            .contains(&"tenant".into())
    );
    assert!(
        expect["errors"]["anyOf"][1]["items"]["enum"]
            .as_array()
            .unwrap()
            .contains(&"streaming_not_supported".into())
    );
    let cond =
        &schema["definitions"]["CondFile"]["properties"]["state"]["anyOf"][1]["items"]["enum"];
    assert!(
        cond.as_array().unwrap().contains(&"failed".into()),
        "{cond}"
    );
}
