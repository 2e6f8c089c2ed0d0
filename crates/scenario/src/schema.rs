//! The JSON Schema of scenario files, for editors (`a2a-sim schema`), generated from the very
//! types the loader deserialises.

use serde_json::{Value, json};

use crate::file::ScenarioFile;

pub fn scenario_schema() -> Value {
    let mut schema = schemars::generate::SchemaSettings::draft07()
        .into_generator()
        .into_root_schema_for::<ScenarioFile>()
        .to_value();
    if let Some(obj) = schema.as_object_mut() {
        obj.insert("title".into(), Value::from("a2a-sim scenario"));
    }
    enumerate_words(&mut schema);
    schema
}

/// States, outcomes, error and denial codes as enums wherever they are expected, so editors catch
/// `state: complete`. The lists are the engine's own tables.
fn enumerate_words(schema: &mut Value) {
    use engine::record::{DenialCode, ErrorCode, Outcome, TaskState};
    let states: Vec<&str> = TaskState::ALL.iter().map(|s| s.as_str()).collect();
    let outcomes: Vec<&str> = Outcome::ALL.iter().map(|o| o.as_str()).collect();
    let errors: Vec<&str> = ErrorCode::every().map(|c| c.as_str()).collect();
    let denials: Vec<&str> = DenialCode::ALL.iter().map(|c| c.as_str()).collect();
    let words = |e: &[&str]| {
        json!({"anyOf": [
            {"type": "string", "enum": e},
            {"type": "array", "items": {"type": "string", "enum": e}},
            {"type": "null"}
        ]})
    };
    let list =
        |e: &[&str]| json!({"type": ["array", "null"], "items": {"type": "string", "enum": e}});
    let count_or = |e: &[&str]| {
        json!({"anyOf": [
            {"type": "integer"},
            {"type": "array", "items": {"type": "string", "enum": e}},
            {"type": "null"}
        ]})
    };
    let mut set = |def: &str, key: &str, value: Value| {
        if let Some(p) = schema
            .pointer_mut(&format!("/definitions/{def}/properties/{key}"))
            .and_then(Value::as_object_mut)
        {
            let description = p.remove("description");
            *p = value.as_object().cloned().unwrap_or_default();
            if let Some(d) = description {
                p.insert("description".into(), d);
            }
        }
    };
    set("ExpectFile", "state", words(&states));
    set("ExpectFile", "outcome", words(&outcomes));
    set("ExpectFile", "history", list(&states));
    set("ExpectFile", "codes", list(&denials));
    set("ExpectFile", "errors", count_or(&errors));
    set("ExpectFile", "pushes", count_or(&states));
    set("CondFile", "state", words(&states));
    set("CondFile", "outcome", words(&outcomes));
}
