//! One session entry as it is held in memory: the line of JSON it was read
//! or written as, plus the three fields the tree needs (`id`, `parentId`,
//! `type`). Everything else is parsed when it is asked for (the context, a
//! listing, an export), so a long session costs far less than its file's
//! size (long loaded lines stay in the file: [`super::stored`]) rather than
//! a tree of JSON values (a 10,000-entry session held as
//! `serde_json::Value`s took eight times its file's size).

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::stored::{FilePlace, LineReader, StoredLine};
use compact_str::CompactString as ShortText;
use pi_ai::ThinStr;

/// A session entry (the header excluded). It holds nothing apart but its
/// line, when that is not left in the file: the ids and the type are inline.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    line: StoredLine,
    id: ShortText,
    parent: Option<ShortText>,
    /// Its `type`, shared with every entry of the same type.
    kind: ThinStr,
}

/// The fields read when a line is loaded; the rest of the line is only
/// checked to be well formed.
#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, rename = "parentId")]
    parent_id: Option<Value>,
    #[serde(default, rename = "type")]
    kind: Option<Value>,
}

fn text_of(v: Option<&Value>) -> Option<ShortText> {
    v.and_then(Value::as_str).map(ShortText::new)
}

/// An entry's `type` (empty when it has none), shared.
fn kind_of(v: Option<&Value>) -> ThinStr {
    v.and_then(Value::as_str).map(pi_ai::intern::intern).unwrap_or_default()
}

/// The kind of `message` entries, for a reader to share among the entries
/// it makes without looking it up each time.
pub(crate) fn message_kind() -> ThinStr {
    pi_ai::intern::intern("message")
}

/// Why a line is not an entry.
#[derive(Debug, PartialEq)]
pub(crate) enum LineError {
    /// It is JSON, but not an object.
    NotObject,
    /// It is not JSON (the parser's words).
    Invalid(String),
}

impl Entry {
    /// An entry from its JSON object (`None` when `v` is not an object).
    pub fn from_value(v: &Value) -> Option<Entry> {
        let o = v.as_object()?;
        Some(Entry {
            line: StoredLine::new(serde_json::to_string(v).unwrap_or_default(), None),
            id: text_of(o.get("id")).unwrap_or_default(),
            parent: text_of(o.get("parentId")),
            kind: kind_of(o.get("type")),
        })
    }

    /// An entry from a line of a session file. Only its head is parsed into
    /// values; a line the head cannot be read from (an array, duplicate
    /// keys) is read whole, as `JSON.parse` would.
    #[cfg(test)]
    pub(crate) fn from_line(line: String) -> Result<Entry, LineError> {
        Entry::from_file_line(line, None)
    }

    /// [`Entry::from_line`] for a line read from a session file at `place`:
    /// a long line kept as it is stays there (see [`super::stored`]).
    pub(crate) fn from_file_line(line: String, place: Option<FilePlace>) -> Result<Entry, LineError> {
        let trimmed = line.trim_start();
        if trimmed.starts_with('{')
            && let Ok(head) = serde_json::from_str::<Head>(&line)
        {
            return Ok(Entry {
                id: text_of(head.id.as_ref()).unwrap_or_default(),
                parent: text_of(head.parent_id.as_ref()),
                kind: kind_of(head.kind.as_ref()),
                line: StoredLine::new(line, place),
            });
        }
        match serde_json::from_str::<Value>(&line) {
            Ok(v) => Entry::from_value(&v).ok_or(LineError::NotObject),
            Err(e) => Err(LineError::Invalid(e.to_string())),
        }
    }

    /// A `message` entry read whole from `line` (see
    /// [`super::message_line::message_entry`]), held as any line read at `place`.
    /// `message` is the kind shared (see [`message_kind`]).
    pub(crate) fn of_message(
        line: String,
        place: Option<FilePlace>,
        id: ShortText,
        parent: Option<ShortText>,
        message: &ThinStr,
    ) -> Entry {
        Entry { line: StoredLine::new(line, place), id, parent, kind: message.clone() }
    }

    /// Its line, now also written at `place` (see [`StoredLine::leave_in_file`]).
    pub(crate) fn leave_in_file(&mut self, place: FilePlace) {
        self.line.leave_in_file(place);
    }

    /// Whether its line is read back from the file rather than held.
    #[cfg(test)]
    pub(crate) fn is_in_file(&self) -> bool {
        matches!(self.line, StoredLine::InFile { .. })
    }

    /// Its id (empty when the line has none: see [`Entry::has_id`]).
    pub fn id(&self) -> &str {
        self.id.as_str()
    }

    /// Whether the line has a string id (version 1 files do not).
    pub(crate) fn has_id(&self) -> bool {
        !self.id().is_empty()
    }

    /// Its parent's id (`None` for a root).
    pub fn parent_id(&self) -> Option<&str> {
        self.parent.as_ref().map(ShortText::as_str)
    }

    /// Its `type` (`message`, `compaction`, `label`, …).
    pub fn kind(&self) -> &str {
        self.kind.as_str()
    }

    /// The line of JSON, as read or written (no newline).
    /// (Empty when a line left in its file can no longer be read there.)
    pub fn line(&self) -> Cow<'_, str> {
        self.line.text(self.id()).unwrap_or(Cow::Borrowed(""))
    }

    /// [`Entry::line`] through `reader`, which reads lines left in the file a
    /// window at a time (for walking many entries in file order).
    pub(crate) fn line_with<'a>(&'a self, reader: &'a mut LineReader) -> Cow<'a, str> {
        reader.text(&self.line, self.id()).unwrap_or(Cow::Borrowed(""))
    }

    /// The whole entry as a JSON value (parsed now).
    pub fn value(&self) -> Value {
        serde_json::from_str(&self.line()).unwrap_or(Value::Null)
    }

    /// One field of the entry (`Value::Null` when absent).
    pub fn field(&self, key: &str) -> Value {
        match self.value() {
            Value::Object(mut o) => o.swap_remove(key).unwrap_or(Value::Null),
            _ => Value::Null,
        }
    }

    /// The entry read as `T` straight from its line (no intermediate value).
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(&self.line())
    }
}

impl serde::Serialize for Entry {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_is_read_and_the_rest_kept_as_text() {
        let line = r#"{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"h\u00e9"}}"#;
        let e = Entry::from_line(line.to_string()).unwrap();
        assert_eq!((e.kind(), e.id(), e.parent_id()), ("message", "a1", None));
        assert_eq!(e.line(), line, "the line as read");
        assert_eq!(e.field("message")["content"], "hé");
        let e = Entry::from_line(r#"{"type":"label","id":"b","parentId":"a1"}"#.into()).unwrap();
        assert_eq!(e.parent_id(), Some("a1"));
    }

    #[test]
    fn bad_lines_are_told_apart() {
        assert_eq!(Entry::from_line("[1,2]".into()), Err(LineError::NotObject));
        assert_eq!(Entry::from_line("3".into()), Err(LineError::NotObject));
        assert!(matches!(Entry::from_line(r#"{"type":"mess"#.into()), Err(LineError::Invalid(_))));
        assert!(matches!(Entry::from_line(r#"{"a":1} x"#.into()), Err(LineError::Invalid(_))));
    }

    #[test]
    fn odd_heads_are_read_as_javascript_would() {
        // Duplicate keys: the last wins; a numeric id is no id.
        let e = Entry::from_line(r#"{"type":"a","type":"b","id":"x"}"#.into()).unwrap();
        assert_eq!(e.kind(), "b");
        let e = Entry::from_line(r#"{"type":"a","id":7}"#.into()).unwrap();
        assert!(!e.has_id());
    }

    /// An entry costs its line's place (or text), two ids and a shared type:
    /// a long session holds one per line (was 96 bytes with the type inline).
    #[test]
    fn an_entry_stays_small_and_shares_its_type() {
        assert!(size_of::<Entry>() <= 80, "{}", size_of::<Entry>());
        let a = Entry::from_line(r#"{"type":"label","id":"a"}"#.into()).unwrap();
        let b = Entry::from_line(r#"{"type":"label","id":"b"}"#.into()).unwrap();
        assert!(std::ptr::eq(a.kind(), b.kind()), "one copy of a type");
        assert_eq!(Entry::from_line(r#"{"id":"c"}"#.into()).unwrap().kind(), "");
    }
}
