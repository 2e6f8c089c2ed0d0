//! Agent cards as A2A AgentCard JSON (1.0 ProtoJSON or 0.3). Platform metadata — tenant,
//! clearance, scopes, handler — is never emitted: it is not part of the card.

use serde_json::{Map, Value, json};

use crate::protocol::signing::SIGNATURES;
use crate::protocol::{A2aVersion, security};
use engine::scenario::Card;
use scenario::{CardVersion, card_version};

/// Media types our agents take and give: text parts and data parts.
pub const DEFAULT_MODES: [&str; 2] = ["text/plain", "application/json"];
/// The transport named in generated cards.
pub const TRANSPORT: &str = "JSONRPC";

/// The card in the requested version. A card from a file is emitted with that file's own fields.
pub fn card_json(card: &Card, v: A2aVersion) -> Result<Value, String> {
    card_json_noting(card, v).map(|(doc, _)| doc)
}

/// [`card_json`], with what converting a card file to the other version dropped: a capability set
/// to something other than its default that the other version cannot say, one note each.
pub fn card_json_noting(card: &Card, v: A2aVersion) -> Result<(Value, Vec<String>), String> {
    if let Some(source) = &card.source {
        return convert_file_card(source, v);
    }
    let skills: Vec<Value> = card
        .skills
        .iter()
        .map(|s| json!({"id": s.id, "name": s.name, "description": s.description, "tags": s.tags}))
        .collect();
    let caps = json!({"streaming": card.streaming, "pushNotifications": card.push_notifications});
    // A2A requires a non-empty description; a scenario may leave it out.
    let description = if card.description.is_empty() {
        &card.name
    } else {
        &card.description
    };
    let mut card_doc = match v {
        // Exactly ten keys (twelve with a bearer-JWT requirement).
        A2aVersion::V0_3 => json!({
            "protocolVersion": "0.3.0",
            "name": card.name,
            "description": description,
            "url": card.url,
            "preferredTransport": TRANSPORT,
            "version": card.version,
            "capabilities": caps,
            "defaultInputModes": DEFAULT_MODES,
            "defaultOutputModes": DEFAULT_MODES,
            "skills": skills,
        }),
        A2aVersion::V1_0 => json!({
            "name": card.name,
            "description": description,
            "supportedInterfaces": [{"url": card.url, "protocolBinding": TRANSPORT, "protocolVersion": "1.0"}],
            "version": card.version,
            "capabilities": caps,
            "defaultInputModes": DEFAULT_MODES,
            "defaultOutputModes": DEFAULT_MODES,
            "skills": skills,
        }),
    };
    if let (Some(scopes), Some(obj)) = (&card.bearer_scopes, card_doc.as_object_mut()) {
        for (key, value) in security::bearer(scopes, v) {
            obj.insert(key.into(), value);
        }
    }
    Ok((card_doc, Vec::new()))
}

/// Fields whose shape is the same in 1.0 and 0.3, copied as they are.
const PORTABLE: [&str; 8] = [
    "name",
    "description",
    "version",
    "provider",
    "documentationUrl",
    "iconUrl",
    "defaultInputModes",
    "defaultOutputModes",
];
const PORTABLE_SKILL: [&str; 7] = [
    "id",
    "name",
    "description",
    "tags",
    "examples",
    "inputModes",
    "outputModes",
];

/// Capabilities the two versions share, by the same name.
const PORTABLE_CAPABILITIES: [&str; 3] = ["streaming", "pushNotifications", "extensions"];

/// 1.0's `capabilities.extendedAgentCard` is 0.3's top-level `supportsAuthenticatedExtendedCard`.
const EXTENDED_CARD_1_0: &str = "extendedAgentCard";
const EXTENDED_CARD_0_3: &str = "supportsAuthenticatedExtendedCard";

/// Whether a capability's value is the one a card that leaves it out means (`false`, `[]`, `{}`):
/// such a capability converts by omission.
fn is_default(value: &Value) -> bool {
    match value {
        Value::Bool(b) => !b,
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

fn convert_file_card(source: &Value, v: A2aVersion) -> Result<(Value, Vec<String>), String> {
    let from = card_version(source);
    let same = matches!(
        (from, v),
        (CardVersion::V1_0, A2aVersion::V1_0) | (CardVersion::V0_3, A2aVersion::V0_3)
    );
    if same {
        return Ok((source.clone(), Vec::new()));
    }
    let mut notes = Vec::new();
    let target = match v {
        A2aVersion::V1_0 => "1.0",
        A2aVersion::V0_3 => "0.3",
    };
    let obj = source.as_object().ok_or("a card is a JSON object")?;
    let known_other: &[&str] = match from {
        CardVersion::V1_0 => &[
            "supportedInterfaces",
            "capabilities",
            "skills",
            "securitySchemes",
            "securityRequirements",
        ],
        CardVersion::V0_3 => &[
            "securitySchemes",
            "security",
            "protocolVersion",
            "url",
            "preferredTransport",
            "additionalInterfaces",
            "capabilities",
            "skills",
            EXTENDED_CARD_0_3,
        ],
    };
    // Signatures cover the card in its own version: converted, it is another document.
    if obj.contains_key(SIGNATURES) {
        notes.push(format!(
            "the card file's `{SIGNATURES}` are dropped: they cover the card in its own version"
        ));
    }
    if let Some(key) = obj.keys().find(|k| {
        !PORTABLE.contains(&k.as_str()) && !known_other.contains(&k.as_str()) && *k != SIGNATURES
    }) {
        return Err(format!(
            "the card file has `{key}`, which a2a-sim does not convert between A2A versions; ask for the file's own version"
        ));
    }
    let mut out = Map::new();
    let interfaces: Vec<(String, String)> = match from {
        CardVersion::V1_0 => obj["supportedInterfaces"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|i| (str_of(i, "url"), str_of(i, "protocolBinding")))
            .collect(),
        CardVersion::V0_3 => {
            let mut list = vec![(
                str_of(source, "url"),
                obj.get("preferredTransport")
                    .and_then(Value::as_str)
                    .unwrap_or(TRANSPORT)
                    .to_string(),
            )];
            for i in obj
                .get("additionalInterfaces")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let pair = (str_of(i, "url"), str_of(i, "transport"));
                if !list.contains(&pair) {
                    list.push(pair);
                }
            }
            list
        }
    };
    if v == A2aVersion::V0_3 {
        out.insert("protocolVersion".into(), json!("0.3.0"));
    }
    for key in PORTABLE {
        if let Some(val) = obj.get(key) {
            out.insert(key.into(), val.clone());
        }
        if key == "description" {
            match v {
                A2aVersion::V0_3 => {
                    let (url, transport) = interfaces.first().cloned().unwrap_or_default();
                    out.insert("url".into(), json!(url));
                    out.insert("preferredTransport".into(), json!(transport));
                    if interfaces.len() > 1 {
                        let extra: Vec<Value> = interfaces
                            .iter()
                            .map(|(u, t)| json!({"url": u, "transport": t}))
                            .collect();
                        out.insert("additionalInterfaces".into(), Value::Array(extra));
                    }
                }
                A2aVersion::V1_0 => {
                    let list: Vec<Value> = interfaces
                        .iter()
                        .map(|(u, t)| json!({"url": u, "protocolBinding": t, "protocolVersion": "1.0"}))
                        .collect();
                    out.insert("supportedInterfaces".into(), Value::Array(list));
                }
            }
        }
    }
    if let Some(caps) = obj.get("capabilities").and_then(Value::as_object) {
        let mut c = Map::new();
        for (k, val) in caps {
            if PORTABLE_CAPABILITIES.contains(&k.as_str()) {
                c.insert(k.clone(), val.clone());
            } else if k == EXTENDED_CARD_1_0 && v == A2aVersion::V0_3 {
                if !is_default(val) {
                    out.insert(EXTENDED_CARD_0_3.into(), val.clone());
                }
            } else if !is_default(val) {
                // One capability the other version cannot say is no reason to refuse the card.
                notes.push(format!(
                    "`capabilities.{k}` has no equivalent in A2A {target}: dropped"
                ));
            }
        }
        if v == A2aVersion::V1_0
            && let Some(val) = obj.get(EXTENDED_CARD_0_3)
            && !is_default(val)
        {
            c.insert(EXTENDED_CARD_1_0.into(), val.clone());
        }
        out.insert("capabilities".into(), Value::Object(c));
    }
    let mut skills = Vec::new();
    for (i, s) in obj
        .get("skills")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let mut o = Map::new();
        for (k, val) in s.as_object().into_iter().flatten() {
            // A skill's own security requirement, in the other version's shape.
            let requirement = match from {
                CardVersion::V0_3 => "security",
                CardVersion::V1_0 => "securityRequirements",
            };
            if k == requirement
                && let Some((name, convert)) = security::requirement_key(k, v)
            {
                o.insert(name.into(), convert(val, &format!("skills[{i}].{k}"))?);
                continue;
            }
            if !PORTABLE_SKILL.contains(&k.as_str()) {
                return Err(format!(
                    "the card file's `skills[{i}].{k}` is not converted between A2A versions"
                ));
            }
            o.insert(k.clone(), val.clone());
        }
        skills.push(Value::Object(o));
    }
    out.insert("skills".into(), Value::Array(skills));
    security::convert(obj, v, &mut out)?;
    Ok((Value::Object(out), notes))
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}
