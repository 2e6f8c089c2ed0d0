//! `--set KEY=VALUE`: a scalar key of a scenario overridden from the command line, so one file
//! runs as a policy matrix. Applied to the file that holds the key (agents and callers by name,
//! steps by their 1-based number), then checked like file content; problems are located as
//! `--set KEY=VALUE: message`.

use crate::diagnostic::Diagnostic;
use crate::redact;
use crate::secrets::{self, Redact};
use crate::yaml::{self, Seg, Value};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Override {
    /// As given: `policy.max_depth=3`.
    pub raw: String,
    pub key: Vec<String>,
    pub value: String,
}

impl Override {
    /// Parses `KEY=VALUE` (clap's value parser).
    pub fn parse(raw: &str) -> Result<Override, String> {
        let (key, value) = raw
            .split_once('=')
            .ok_or_else(|| format!("`{raw}` is not KEY=VALUE, such as policy.max_depth=3"))?;
        let key: Vec<String> = key.split('.').map(str::to_string).collect();
        if key.iter().any(String::is_empty) {
            return Err(format!("`{raw}`: the key has an empty part"));
        }
        Ok(Override {
            raw: raw.to_string(),
            key,
            value: value.to_string(),
        })
    }

    /// As given, but a value set under a `token` (or a whole `push`) shown as `[redacted]`: the
    /// report and error messages never print a push token.
    pub fn shown(&self) -> String {
        if self.is_secret() {
            format!("{}=[redacted]", self.key.join("."))
        } else {
            self.raw.clone()
        }
    }

    /// Whether the value set is a secret: under a `token` (but `policy.token`'s settings), or a
    /// `push` or `set_push_config` key, or a push's `url`.
    fn is_secret(&self) -> bool {
        let keys: Vec<Seg> = self.key.iter().map(|k| Seg::from(k.as_str())).collect();
        secrets::may_be_secret(&keys, false)
    }

    /// A problem this override caused: a secret value is not quoted back.
    pub fn diagnostic(&self, message: impl Into<String>) -> Diagnostic {
        let redact = if self.is_secret() {
            Redact::All
        } else {
            Redact::NOTHING
        };
        Diagnostic {
            file: format!("--set {}", self.shown()),
            line: 0,
            column: 0,
            message: redact::message(&message.into(), &redact),
            coded: None,
        }
    }

    /// Whether this override addresses source `is_root` or the file whose document is `doc`
    /// (agents and callers live where they are defined; everything else in the importing file).
    pub fn targets(&self, doc: &Value, is_root: bool) -> bool {
        match self.key[0].as_str() {
            "agents" | "callers" => {
                self.key.len() >= 2 && find_named(doc, &self.key[0], &self.key[1]).is_some()
            }
            _ => is_root,
        }
    }

    /// Sets the value in `doc`; returns the path it changed.
    pub fn apply(&self, doc: &mut Value) -> Result<Vec<Seg>, String> {
        let value: Value = yaml::parse_scalar(&self.value)
            .map_err(|e| format!("the value is not a YAML scalar: {e}"))?;
        if value.is_mapping() || value.is_sequence() {
            return Err("`--set` overrides scalar keys; the value must be a scalar".to_string());
        }
        let mut path = Vec::new();
        let mut at: &mut Value = doc;
        let mut i = 0;
        while i < self.key.len() {
            let k = &self.key[i];
            let last = i + 1 == self.key.len();
            if (k == "agents" || k == "callers") && path.is_empty() && !last {
                let name = &self.key[i + 1];
                let j = find_named(at, k, name).ok_or_else(|| {
                    let what = if k == "agents" { "agent" } else { "caller" };
                    format!("no {what} `{name}` in the scenario or its imports")
                })?;
                path.push(Seg::from(k.as_str()));
                path.push(Seg::Index(j));
                at = &mut at[k.as_str()][j];
                i += 2;
                continue;
            }
            if k == "steps" && path.is_empty() && !last {
                let n: usize = self.key[i + 1]
                    .parse()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| {
                        format!(
                            "steps are named by their number from 1, not `{}`",
                            self.key[i + 1]
                        )
                    })?;
                let count = at
                    .get("steps")
                    .and_then(Value::as_sequence)
                    .map_or(0, Vec::len);
                if n > count {
                    return Err(format!(
                        "there is no step {n}: the scenario has {count} steps"
                    ));
                }
                path.push(Seg::from("steps"));
                path.push(Seg::Index(n - 1));
                at = &mut at["steps"][n - 1];
                i += 2;
                // `steps.3.text` means the key inside the step's one operation.
                if let Some(m) = at.as_mapping()
                    && m.len() == 1
                    && let Some(op) = m.keys().next().and_then(Value::as_str).map(str::to_string)
                    && self.key.get(i) != Some(&op)
                {
                    path.push(Seg::from(op.as_str()));
                    at = &mut at[op.as_str()];
                }
                continue;
            }
            let Value::Mapping(m) = at else {
                return Err(format!(
                    "`{}` is not a mapping, so it has no key `{k}`",
                    self.key[..i].join(".")
                ));
            };
            let key = Value::String(k.clone());
            if !m.contains_key(&key) {
                // A key the file lacks is added; the format then decides whether it may be.
                let fresh = if last {
                    Value::Null
                } else {
                    Value::Mapping(Default::default())
                };
                m.insert(key.clone(), fresh);
            }
            path.push(Seg::from(k.as_str()));
            at = m
                .get_mut(&key)
                .ok_or("unreachable: the key was just inserted")?;
            i += 1;
        }
        if at.is_mapping() || at.is_sequence() {
            return Err(format!("`{}` is not a scalar key", self.key.join(".")));
        }
        *at = value;
        Ok(path)
    }
}

/// The index of the agent (by `name`) or caller (by `id`) called `name` in `doc`'s list `list`.
fn find_named(doc: &Value, list: &str, name: &str) -> Option<usize> {
    let field = if list == "agents" { "name" } else { "id" };
    doc.get(list)?
        .as_sequence()?
        .iter()
        .position(|item| item.get(field).and_then(Value::as_str) == Some(name))
}
