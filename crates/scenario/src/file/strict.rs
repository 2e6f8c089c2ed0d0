//! Strict JSON-like values from YAML: a duplicate key, a non-string key or a non-finite number is an
//! error, not a silent last-one-wins. `data` mappings and condition literals are read this way.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};

use engine::scenario::DataMap;

/// Reads a `data` mapping strictly: a duplicate key, a non-string key or a non-finite number is
/// an error, not a silent last-one-wins.
pub fn strict_data<'de, D: de::Deserializer<'de>>(de: D) -> Result<Option<DataMap>, D::Error> {
    match de.deserialize_any(StrictValue)? {
        serde_json::Value::Object(m) => Ok(Some(m)),
        serde_json::Value::Null => Ok(None),
        _ => Err(de::Error::custom("`data` must be a mapping")),
    }
}

/// [`strict_data`], boxed: where most values have none (a step's), the room for one is a
/// pointer, not a mapping.
pub fn strict_data_boxed<'de, D: de::Deserializer<'de>>(
    de: D,
) -> Result<Option<Box<DataMap>>, D::Error> {
    strict_data(de).map(|d| d.map(Box::new))
}

struct StrictValue;

impl<'de> Visitor<'de> for StrictValue {
    type Value = serde_json::Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON-like value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        serde_json::Number::from_f64(v)
            .map(serde_json::Value::Number)
            .ok_or_else(|| E::custom("data numbers must be finite (no .inf or .nan)"))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_any(StrictValue)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(StrictSeed)? {
            items.push(v);
        }
        Ok(serde_json::Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = DataMap::new();
        while let Some(key) = map.next_key::<DataKey>()? {
            if out.contains_key(&key.0) {
                return Err(de::Error::custom(format!("duplicate field `{}`", key.0)));
            }
            let value = map.next_value_seed(StrictSeed)?;
            out.insert(key.0, value);
        }
        Ok(serde_json::Value::Object(out))
    }
}

struct StrictSeed;

impl<'de> de::DeserializeSeed<'de> for StrictSeed {
    type Value = serde_json::Value;
    fn deserialize<D: de::Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_any(StrictValue)
    }
}

/// A data key: a string (JSON objects have no other keys).
struct DataKey(String);

impl<'de> Deserialize<'de> for DataKey {
    fn deserialize<D: de::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct K;
        impl<'de> Visitor<'de> for K {
            type Value = DataKey;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string key (data is JSON: keys are strings)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DataKey, E> {
                Ok(DataKey(v.to_string()))
            }
        }
        de.deserialize_str(K)
    }
}

/// Reads any value strictly (for condition tests, whose literals are JSON).
pub fn strict_value<'de, D: de::Deserializer<'de>>(
    de: D,
) -> Result<Option<serde_json::Value>, D::Error> {
    de.deserialize_any(StrictValue).map(Some)
}

/// Reads a mapping of values strictly, keeping its keys in file order.
pub fn strict_map<'de, D: de::Deserializer<'de>>(de: D) -> Result<Option<DataMap>, D::Error> {
    match de.deserialize_any(StrictValue)? {
        serde_json::Value::Object(m) => Ok(Some(m)),
        _ => Err(de::Error::custom("expected a mapping of `PATH: TEST`")),
    }
}
