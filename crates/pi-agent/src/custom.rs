//! The session's custom entries (`{"type": "custom", "customType", "data"}`)
//! on the current branch: state tools keep across calls and resumes without
//! the model seeing it (codemode's `store()` writes `codemode-store` entries).

use std::sync::{Arc, Mutex};

use serde_json::Value;

/// Writes an entry to the session file (`customType`, `data`).
pub type CustomWriter = Arc<dyn Fn(&str, &Value) + Send + Sync>;

#[derive(Default)]
struct Inner {
    entries: Vec<(String, Value)>,
    writer: Option<CustomWriter>,
}

/// A shared handle: cheap to clone, safe to use from any thread.
#[derive(Clone, Default)]
pub struct CustomEntries(Arc<Mutex<Inner>>);

impl std::fmt::Debug for CustomEntries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CustomEntries").field("entries", &self.with(|i| i.entries.len())).finish()
    }
}

impl CustomEntries {
    /// The entries of a loaded branch (`LoadedSession::custom`), oldest first.
    pub fn new(entries: Vec<(String, Value)>) -> Self {
        CustomEntries(Arc::new(Mutex::new(Inner { entries, writer: None })))
    }

    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        let mut g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut g)
    }

    /// Where appended entries are written (the session file); without one
    /// they are only kept in memory (`--no-session`).
    pub fn set_writer(&self, writer: CustomWriter) {
        self.with(|i| i.writer = Some(writer));
    }

    /// Append an entry to the branch and the session file.
    pub fn append(&self, custom_type: &str, data: Value) {
        let writer = self.with(|i| {
            i.entries.push((custom_type.to_string(), data.clone()));
            i.writer.clone()
        });
        if let Some(w) = writer {
            w(custom_type, &data);
        }
    }

    /// The data of every entry of `custom_type`, oldest first.
    pub fn of_type(&self, custom_type: &str) -> Vec<Value> {
        self.with(|i| i.entries.iter().filter(|(t, _)| t == custom_type).map(|(_, d)| d.clone()).collect())
    }

    /// Forget every entry (a new session).
    pub fn clear(&self) {
        self.with(|i| i.entries.clear());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn appends_are_kept_written_and_filtered_by_type() {
        let entries = CustomEntries::new(vec![("a".into(), json!(1)), ("b".into(), json!(2))]);
        let written = Arc::new(Mutex::new(Vec::new()));
        let w = written.clone();
        entries.set_writer(Arc::new(move |t: &str, d: &Value| w.lock().unwrap().push((t.to_string(), d.clone()))));
        entries.append("a", json!(3));
        assert_eq!(entries.of_type("a"), vec![json!(1), json!(3)]);
        assert_eq!(*written.lock().unwrap(), vec![("a".to_string(), json!(3))]);
        entries.clear();
        assert!(entries.of_type("a").is_empty());
    }
}
