//! Shared names: every assistant message names its API, provider and model,
//! the same few strings across a whole conversation; each is held once and
//! shared (a 100,000-entry session would otherwise hold 100,000 copies).
//! Names and the rarer texts of a message are [`ThinStr`]s: one thin
//! pointer each, so an assistant message's slot stays small.

use std::borrow::Borrow;
use std::collections::HashSet;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, LazyLock, Mutex};

use serde::de::Visitor;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Most names kept for sharing (beyond, a name is held on its own).
const MAX_SHARED_NAMES: usize = 4096;

static NAMES: LazyLock<Mutex<HashSet<ThinStr, foldhash::fast::RandomState>>> = LazyLock::new(Default::default);

/// An immutable string behind one thin pointer (8 bytes where it is held,
/// 8 for `Option<ThinStr>`), shared by its clones. Read it as a `&str`
/// (it derefs to one); made from a string (held on its own) or by
/// [`intern`] (shared with every holder of the same name).
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThinStr(Arc<Box<str>>);

impl ThinStr {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for ThinStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for ThinStr {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for ThinStr {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for ThinStr {
    fn from(s: &str) -> Self {
        ThinStr(Arc::new(Box::from(s)))
    }
}

impl From<String> for ThinStr {
    fn from(s: String) -> Self {
        ThinStr(Arc::new(s.into_boxed_str()))
    }
}

impl From<Box<str>> for ThinStr {
    fn from(s: Box<str>) -> Self {
        ThinStr(Arc::new(s))
    }
}

impl From<&String> for ThinStr {
    fn from(s: &String) -> Self {
        ThinStr::from(s.as_str())
    }
}

impl From<ThinStr> for String {
    fn from(s: ThinStr) -> Self {
        s.as_str().to_string()
    }
}

impl PartialEq<str> for ThinStr {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ThinStr {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for ThinStr {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<ThinStr> for str {
    fn eq(&self, other: &ThinStr) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<ThinStr> for &str {
    fn eq(&self, other: &ThinStr) -> bool {
        *self == other.as_str()
    }
}

impl fmt::Debug for ThinStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for ThinStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl Serialize for ThinStr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self)
    }
}

/// Read as a string held on its own (see [`de`] for shared names).
impl<'de> Deserialize<'de> for ThinStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(TextVisitor { shared: false })
    }
}

/// `name`, shared with every other holder of the same name.
pub fn intern(name: &str) -> ThinStr {
    let Ok(mut names) = NAMES.lock() else { return ThinStr::from(name) };
    if let Some(known) = names.get(name) {
        return known.clone();
    }
    let new = ThinStr::from(name);
    if names.len() < MAX_SHARED_NAMES {
        names.insert(new.clone());
    }
    new
}

/// Deserialize a name through [`intern`] (read in place: no copy is made
/// of a name already held).
pub(crate) fn de<'de, D: Deserializer<'de>>(d: D) -> Result<ThinStr, D::Error> {
    d.deserialize_str(TextVisitor { shared: true })
}

/// Deserialize an optional name through [`intern`].
pub(crate) fn de_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ThinStr>, D::Error> {
    struct Shared(ThinStr);
    impl<'de> Deserialize<'de> for Shared {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            de(d).map(Shared)
        }
    }
    Ok(Option::<Shared>::deserialize(d)?.map(|s| s.0))
}

struct TextVisitor {
    shared: bool,
}

impl Visitor<'_> for TextVisitor {
    type Value = ThinStr;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ThinStr, E> {
        Ok(if self.shared { intern(v) } else { ThinStr::from(v) })
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<ThinStr, E> {
        Ok(if self.shared { intern(&v) } else { ThinStr::from(v) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[test]
    fn the_same_name_is_held_once() {
        let (a, b) = (intern("openai-completions"), intern(&String::from("openai-completions")));
        assert!(Arc::ptr_eq(&a.0, &b.0));
        assert_eq!(&*intern("other"), "other");
        let json = r#"["mock-1", "mock-1", "mock-1", null]"#;
        #[derive(Deserialize)]
        struct Four(
            #[serde(deserialize_with = "de")] ThinStr,
            #[serde(deserialize_with = "de")] ThinStr,
            #[serde(deserialize_with = "de_opt")] Option<ThinStr>,
            #[serde(deserialize_with = "de_opt")] Option<ThinStr>,
        );
        let Four(x, y, z, none) = serde_json::from_str(json).unwrap();
        assert!(Arc::ptr_eq(&x.0, &y.0));
        assert!(Arc::ptr_eq(&x.0, &z.unwrap().0));
        assert_eq!(none, None);
    }

    #[test]
    fn a_thin_str_is_one_pointer_and_reads_and_writes_as_a_string() {
        assert_eq!(size_of::<ThinStr>(), 8);
        assert_eq!(size_of::<Option<ThinStr>>(), 8);
        let own: ThinStr = serde_json::from_str(r#""é\"x""#).unwrap();
        assert_eq!(own, "é\"x");
        assert_eq!(serde_json::to_string(&own).unwrap(), r#""é\"x""#);
        assert!(serde_json::from_str::<ThinStr>("1").is_err());
        // Texts read on their own are not shared.
        let (a, b): (ThinStr, ThinStr) = serde_json::from_str(r#"["n", "n"]"#).unwrap();
        assert!(!Arc::ptr_eq(&a.0, &b.0));
        assert_eq!(format!("{a} {a:?}"), "n \"n\"");
    }
}
