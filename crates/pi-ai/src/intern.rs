//! Shared names: every assistant message names its API, provider and model,
//! the same few strings across a whole conversation; each is held once and
//! shared (a 100,000-entry session would otherwise hold 100,000 copies).

use std::collections::HashSet;
use std::sync::{Arc, LazyLock, Mutex};

use serde::Deserializer;
use serde::de::Visitor;

/// Most names kept for sharing (beyond, a name is held on its own).
const MAX_SHARED_NAMES: usize = 4096;

static NAMES: LazyLock<Mutex<HashSet<Arc<str>, foldhash::fast::RandomState>>> = LazyLock::new(Default::default);

/// `name`, shared with every other holder of the same name.
pub fn intern(name: &str) -> Arc<str> {
    let Ok(mut names) = NAMES.lock() else { return Arc::from(name) };
    if let Some(known) = names.get(name) {
        return known.clone();
    }
    let new: Arc<str> = Arc::from(name);
    if names.len() < MAX_SHARED_NAMES {
        names.insert(new.clone());
    }
    new
}

/// Deserialize a name through [`intern`] (read in place: no copy is made
/// of a name already held).
pub(crate) fn de<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<str>, D::Error> {
    d.deserialize_str(NameVisitor)
}

struct NameVisitor;

impl Visitor<'_> for NameVisitor {
    type Value = Arc<str>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a name")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Arc<str>, E> {
        Ok(intern(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[test]
    fn the_same_name_is_held_once() {
        let (a, b) = (intern("openai-completions"), intern(&String::from("openai-completions")));
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(&*intern("other"), "other");
        let json = r#"["mock-1", "mock-1"]"#;
        #[derive(Deserialize)]
        struct Two(#[serde(deserialize_with = "de")] Arc<str>, #[serde(deserialize_with = "de")] Arc<str>);
        let Two(x, y) = serde_json::from_str(json).unwrap();
        assert!(Arc::ptr_eq(&x, &y));
    }
}
