//! `store()`/`load()` across scripts: each successful script that wrote
//! values appends one `codemode-store` custom entry (`{set, delete}`) to the
//! session; the values a script starts with are those entries on the
//! session's current branch, applied from the root (so a resumed, forked or
//! switched session sees what was stored on its own path).

use pi_agent::SharedSession;
use serde_json::{Map, Value, json};

use crate::js;
use crate::text::{self, STORE_ENTRY_TYPE};

/// One script's writes.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Writes {
    /// Keys set, in the order first written.
    pub set: Map<String, Value>,
    /// Keys deleted (`store(key, undefined)`).
    pub delete: Vec<String>,
}

impl Writes {
    fn is_empty(&self) -> bool {
        self.set.is_empty() && self.delete.is_empty()
    }
}

/// Why the runtime's report of the writes could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Malformed(pub String);

/// Read `[[key, json] | [key], …]` as the runtime reports a script's writes.
pub(crate) fn parse_writes(json: &str) -> Result<Writes, Malformed> {
    let list: Value = serde_json::from_str(json).map_err(|_| Malformed(text::WRITES_NOT_JSON.into()))?;
    let Value::Array(list) = list else { return Err(Malformed(text::WRITES_NOT_ARRAY.into())) };
    let mut writes = Writes::default();
    for entry in list {
        let malformed = || Malformed(text::WRITES_MALFORMED.into());
        let Value::Array(parts) = entry else { return Err(malformed()) };
        match parts.as_slice() {
            [Value::String(key)] => {
                writes.set.shift_remove(key);
                writes.delete.push(key.clone());
            }
            [Value::String(key), Value::String(value)] => {
                let value = serde_json::from_str(value)
                    .map_err(|_| Malformed(text::store_value_not_json(&js::stringify(&json!(key)))))?;
                writes.set.insert(key.clone(), value);
            }
            _ => return Err(malformed()),
        }
    }
    Ok(writes)
}

fn is_entry(data: &Value) -> bool {
    data.get("set").is_some_and(|s| s.is_object() || s.is_array())
        && data.get("delete").and_then(Value::as_array).is_some_and(|d| d.iter().all(Value::is_string))
}

/// The data of the `codemode-store` entries on the session's branch.
fn entries(session: &SharedSession) -> Vec<Value> {
    let Ok(s) = session.lock() else { return Vec::new() };
    s.branch()
        .into_iter()
        .filter(|e| e.kind() == "custom")
        .map(|e| e.value())
        .filter(|e| e["customType"] == STORE_ENTRY_TYPE)
        .map(|e| e.get("data").cloned().unwrap_or(Value::Null))
        .collect()
}

/// The stored values on the current branch.
pub(crate) fn values(session: &SharedSession) -> Map<String, Value> {
    let mut store = Map::new();
    for data in entries(session).iter().filter(|d| is_entry(d)) {
        for key in data["delete"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            store.shift_remove(key);
        }
        match &data["set"] {
            Value::Object(set) => {
                for (k, v) in set {
                    store.insert(k.clone(), v.clone());
                }
            }
            Value::Array(set) => {
                for (i, v) in set.iter().enumerate() {
                    store.insert(i.to_string(), v.clone());
                }
            }
            _ => {}
        }
    }
    store
}

/// What the runtime starts with: `{key: JSON text}`.
pub(crate) fn snapshot_json(values: &Map<String, Value>) -> String {
    let texts: Map<String, Value> = values.iter().map(|(k, v)| (k.clone(), Value::String(js::stringify(v)))).collect();
    Value::Object(texts).to_string()
}

/// Record a successful script's writes (nothing when it wrote nothing). A
/// failed write to the session file leaves the entry in memory, as the
/// agent's own records do.
pub(crate) fn record(session: &SharedSession, writes: Writes) {
    if writes.is_empty() {
        return;
    }
    if let Ok(mut s) = session.lock() {
        let data = json!({"set": writes.set, "delete": writes.delete});
        let _ = s.append("custom", json!({"customType": STORE_ENTRY_TYPE, "data": data}));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_apply_along_the_branch() {
        let session: SharedSession =
            std::sync::Arc::new(std::sync::Mutex::new(pi_agent::session::Session::in_memory()));
        let custom = |t: &str, data: Value| {
            session.lock().unwrap().append("custom", json!({"customType": t, "data": data})).unwrap();
        };
        custom(STORE_ENTRY_TYPE, json!({"set": {"a": 1, "b": [2]}, "delete": []}));
        custom("other", json!({"set": {"z": 1}, "delete": []}));
        custom(STORE_ENTRY_TYPE, json!({"set": {"c": "x"}, "delete": ["a"]}));
        custom(STORE_ENTRY_TYPE, json!({"bogus": true}));
        let v = values(&session);
        assert_eq!(Value::Object(v.clone()), json!({"b": [2], "c": "x"}));
        assert_eq!(snapshot_json(&v), r#"{"b":"[2]","c":"\"x\""}"#);
        let w = parse_writes(r#"[["k","{\"n\":1}"],["gone"],["k2","2"]]"#).unwrap();
        assert_eq!(
            w,
            Writes { set: json!({"k": {"n": 1}, "k2": 2}).as_object().unwrap().clone(), delete: vec!["gone".into()] }
        );
        record(&session, w);
        assert_eq!(values(&session).get("k2"), Some(&json!(2)));
        assert!(parse_writes("[[1]]").is_err() && parse_writes("{}").is_err());
        // Another branch (the leaf moved back to the first entry) sees only its own values.
        let first = session.lock().unwrap().branch()[0].id().to_string();
        session.lock().unwrap().set_leaf(Some(&first)).unwrap();
        assert_eq!(Value::Object(values(&session)), json!({"a": 1, "b": [2]}));
    }
}
