//! Agent cards read from A2A AgentCard JSON files (1.0 or 0.3, detected).

use std::path::Path;

use serde_json::Value;

use engine::scenario::{Card, Skill};

/// Which A2A version a card document is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardVersion {
    V1_0,
    V0_3,
}

/// 1.0 cards list `supportedInterfaces`; 0.3 cards have a top-level `url` and `protocolVersion`.
pub fn detect(doc: &Value) -> CardVersion {
    if doc.get("supportedInterfaces").is_some() {
        CardVersion::V1_0
    } else {
        CardVersion::V0_3
    }
}

/// Reads a card file. The error names the field that is wrong.
pub fn read(path: &Path) -> Result<Card, String> {
    let text = crate::regular_file::read_text(path, crate::regular_file::KEY_LIMIT)
        .map_err(|e| format!("cannot read it: {e}"))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| {
        let what = match e.classify() {
            serde_json::error::Category::Eof => "it ends too early",
            _ => "it is not valid JSON",
        };
        format!(
            "{what} (at its line {}, column {}); an AgentCard file is a JSON object",
            e.line(),
            e.column()
        )
    })?;
    parse(&doc)
}

/// The card fields of an AgentCard document.
pub fn parse(doc: &Value) -> Result<Card, String> {
    let obj = doc.as_object().ok_or("an AgentCard is a JSON object")?;
    let version = detect(doc);
    let string = |key: &str| -> Result<String, String> {
        match obj.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(format!("field `{key}` must be a string")),
            None => Err(format!("required field `{key}` is missing")),
        }
    };
    let name = string("name")?;
    if name.is_empty() {
        return Err("field `name` must not be empty".into());
    }
    let description = string("description")?;
    let card_version = string("version")?;
    let url = match version {
        CardVersion::V0_3 => {
            string("protocolVersion")?;
            string("url")?
        }
        CardVersion::V1_0 => {
            let list = obj
                .get("supportedInterfaces")
                .and_then(Value::as_array)
                .ok_or("field `supportedInterfaces` must be a list")?;
            let first = list
                .first()
                .ok_or("field `supportedInterfaces` needs at least one interface")?;
            for (i, iface) in list.iter().enumerate() {
                for key in ["url", "protocolBinding", "protocolVersion"] {
                    if !iface.get(key).is_some_and(Value::is_string) {
                        return Err(format!(
                            "field `supportedInterfaces[{i}].{key}` must be a string"
                        ));
                    }
                }
            }
            first
                .get("url")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        }
    };
    if url::Url::parse(&url).is_err() {
        return Err(format!("the card's url `{url}` is not an absolute URL"));
    }
    for key in ["defaultInputModes", "defaultOutputModes"] {
        match obj.get(key) {
            Some(Value::Array(a)) if a.iter().all(Value::is_string) => {}
            Some(_) => return Err(format!("field `{key}` must be a list of strings")),
            None => return Err(format!("required field `{key}` is missing")),
        }
    }
    let caps = match obj.get("capabilities") {
        Some(Value::Object(c)) => c,
        Some(_) => return Err("field `capabilities` must be an object".into()),
        None => return Err("required field `capabilities` is missing".into()),
    };
    let flag = |key: &str| -> Result<bool, String> {
        match caps.get(key) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(format!("field `capabilities.{key}` must be true or false")),
        }
    };
    let streaming = flag("streaming")?;
    let push_notifications = flag("pushNotifications")?;
    let skill_list = match obj.get("skills") {
        Some(Value::Array(s)) if !s.is_empty() => s,
        Some(Value::Array(_)) => return Err("field `skills` needs at least one skill".into()),
        Some(_) => return Err("field `skills` must be a list".into()),
        None => return Err("required field `skills` is missing".into()),
    };
    let mut skills = Vec::with_capacity(skill_list.len());
    for (i, s) in skill_list.iter().enumerate() {
        let field = |key: &str| -> Result<String, String> {
            match s.get(key) {
                Some(Value::String(v)) => Ok(v.clone()),
                Some(_) => Err(format!("field `skills[{i}].{key}` must be a string")),
                None => Err(format!("required field `skills[{i}].{key}` is missing")),
            }
        };
        let tags = match s.get("tags") {
            Some(Value::Array(t)) => t
                .iter()
                .map(|t| t.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or(format!(
                    "field `skills[{i}].tags` must be a list of strings"
                ))?,
            Some(_) => {
                return Err(format!(
                    "field `skills[{i}].tags` must be a list of strings"
                ));
            }
            None => return Err(format!("required field `skills[{i}].tags` is missing")),
        };
        skills.push(Skill {
            id: field("id")?,
            name: field("name")?,
            description: field("description")?,
            tags,
            tag_set: Vec::new(),
        });
    }
    Ok(Card {
        name,
        description,
        version: card_version,
        url,
        streaming,
        push_notifications,
        skills,
        source: Some(doc.clone()),
        file: None,
        bearer_scopes: None,
    })
}
