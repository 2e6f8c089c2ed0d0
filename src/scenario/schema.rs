//! The JSON Schema of scenario files, for editors (`a2a-sim schema`), generated from the very
//! types the loader deserialises.

use serde_json::Value;

use crate::scenario::file::ScenarioFile;

pub fn scenario_schema() -> Value {
    let mut schema = schemars::generate::SchemaSettings::draft07()
        .into_generator()
        .into_root_schema_for::<ScenarioFile>()
        .to_value();
    if let Some(obj) = schema.as_object_mut() {
        obj.insert("title".into(), Value::from("a2a-sim scenario"));
    }
    schema
}
