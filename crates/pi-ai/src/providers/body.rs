//! Request bodies written straight to bytes: the top-level object key by key
//! and the conversation one message at a time, each message field by field,
//! so a long conversation is never held as a JSON value tree beside its
//! bytes and writing a message allocates nothing. The output is what
//! `serde_json::to_vec` gives for the same object (compact, keys in the
//! order written), so requests stay byte for byte the same.

use std::io::Write;

use serde::Serialize;

use super::request_body::{ChunkWriter, RequestBody};
use crate::error::ProviderError;
use crate::text;

/// A JSON object being written (a request body's top level).
pub(crate) struct ObjectWriter {
    out: ChunkWriter,
    empty: bool,
}

/// A JSON array being written inside an object.
pub(crate) struct ArrayWriter<'a> {
    out: &'a mut ChunkWriter,
    empty: bool,
}

/// A JSON object being written inside an array or an object.
pub(crate) struct FieldWriter<'a> {
    out: &'a mut ChunkWriter,
    empty: bool,
}

/// A value that could not be written (a map with non-string keys, say).
fn failed(_: serde_json::Error) -> ProviderError {
    ProviderError::failed(text::BODY_NOT_WRITTEN)
}

/// The hex digits of a `\u00XX` escape, as serde_json writes them.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// Append `bytes` (UTF-8) as the inside of a JSON string, escaped as
/// serde_json escapes: `"` and `\`, the short forms of backspace, form feed,
/// newline, carriage return and tab, `\u00XX` for the other control
/// characters, everything else as it is.
fn escape_into(out: &mut ChunkWriter, bytes: &[u8]) {
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight bytes at a time while none of them needs escaping.
        if let Some(word) = bytes.get(i..i + 8) {
            let mut eight = [0u8; 8];
            eight.copy_from_slice(word);
            if !needs_escape(u64::from_le_bytes(eight)) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => b"",
            _ => {
                i += 1;
                continue;
            }
        };
        out.extend_from_slice(&bytes[start..i]);
        if short.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
        } else {
            out.extend_from_slice(short);
        }
        i += 1;
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
}

/// Whether any of the eight bytes of `w` is a control character, `"` or `\`
/// (the bytes a JSON string escapes).
fn needs_escape(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_in = |x: u64| x.wrapping_sub(ONES) & !x & HIGH != 0;
    let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGH != 0;
    below_space || zero_in(w ^ (ONES * u64::from(b'"'))) || zero_in(w ^ (ONES * u64::from(b'\\')))
}

/// Writes what it is given escaped as the inside of a JSON string: a value
/// serialised through it lands as the JSON text of that value, quoted.
struct Escaping<'a>(&'a mut ChunkWriter);

impl Write for Escaping<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        escape_into(self.0, buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Append `s` as a JSON string.
fn string_into(out: &mut ChunkWriter, s: &str) {
    out.push(b'"');
    escape_into(out, s.as_bytes());
    out.push(b'"');
}

impl ObjectWriter {
    /// A new object.
    #[cfg(test)]
    pub(crate) fn new() -> Self {
        ObjectWriter::to(&super::request_body::BodySink::default())
    }

    /// A new object, its bytes going to `sink` (a request's
    /// [`crate::StreamOptions::body_sink`]).
    pub(crate) fn to(sink: &super::request_body::BodySink) -> Self {
        let mut out = ChunkWriter::to(sink);
        out.push(b'{');
        ObjectWriter { out, empty: true }
    }

    /// The fields written so far, to write more with `write`.
    fn with<R>(&mut self, write: impl FnOnce(&mut FieldWriter<'_>) -> R) -> R {
        let mut fields = FieldWriter { out: &mut self.out, empty: self.empty };
        let r = write(&mut fields);
        self.empty = fields.empty;
        r
    }

    /// Write `key: value`.
    pub(crate) fn field(&mut self, key: &str, value: &impl Serialize) -> Result<(), ProviderError> {
        self.with(|f| f.field(key, value))
    }

    /// Write `key: [...]`, the items given by `fill`.
    pub(crate) fn array(
        &mut self,
        key: &str,
        fill: impl FnOnce(&mut ArrayWriter<'_>) -> Result<(), ProviderError>,
    ) -> Result<(), ProviderError> {
        self.with(|f| f.array(key, fill))
    }

    /// The object's bytes.
    pub(crate) fn finish(mut self) -> RequestBody {
        self.out.push(b'}');
        self.out.finish()
    }
}

impl FieldWriter<'_> {
    fn key(&mut self, key: &str) {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
        string_into(self.out, key);
        self.out.push(b':');
    }

    /// Write `key: value`.
    pub(crate) fn field(&mut self, key: &str, value: &impl Serialize) -> Result<(), ProviderError> {
        self.key(key);
        serde_json::to_writer(&mut *self.out, value).map_err(failed)
    }

    /// Write `key: "s"`.
    pub(crate) fn str(&mut self, key: &str, s: &str) {
        self.key(key);
        string_into(self.out, s);
    }

    /// Write `key: null`.
    pub(crate) fn null(&mut self, key: &str) {
        self.key(key);
        self.out.extend_from_slice(b"null");
    }

    /// Write `key: "..."`, the string being `pieces` one after another
    /// (joined without copying them together first).
    pub(crate) fn joined<'s>(&mut self, key: &str, pieces: impl IntoIterator<Item = &'s str>) {
        self.key(key);
        self.out.push(b'"');
        for p in pieces {
            escape_into(self.out, p.as_bytes());
        }
        self.out.push(b'"');
    }

    /// Write `key: "<value as JSON text>"`: what `value.to_string()` would
    /// give for a `serde_json::Value`, as a string, without the text being
    /// held apart first.
    pub(crate) fn json_text(&mut self, key: &str, value: &impl Serialize) -> Result<(), ProviderError> {
        self.key(key);
        self.out.push(b'"');
        serde_json::to_writer(Escaping(&mut *self.out), value).map_err(failed)?;
        self.out.push(b'"');
        Ok(())
    }

    /// Write `key: [...]`, the items given by `fill`.
    pub(crate) fn array(
        &mut self,
        key: &str,
        fill: impl FnOnce(&mut ArrayWriter<'_>) -> Result<(), ProviderError>,
    ) -> Result<(), ProviderError> {
        self.key(key);
        self.out.push(b'[');
        let mut items = ArrayWriter { out: &mut *self.out, empty: true };
        fill(&mut items)?;
        self.out.push(b']');
        Ok(())
    }

    /// Write `key: {...}`, the fields given by `fill`.
    pub(crate) fn object(
        &mut self,
        key: &str,
        fill: impl FnOnce(&mut FieldWriter<'_>) -> Result<(), ProviderError>,
    ) -> Result<(), ProviderError> {
        self.key(key);
        write_object(self.out, fill)
    }
}

/// Write `{...}`, the fields given by `fill`.
fn write_object(
    out: &mut ChunkWriter,
    fill: impl FnOnce(&mut FieldWriter<'_>) -> Result<(), ProviderError>,
) -> Result<(), ProviderError> {
    out.push(b'{');
    let mut fields = FieldWriter { out: &mut *out, empty: true };
    fill(&mut fields)?;
    out.push(b'}');
    Ok(())
}

impl ArrayWriter<'_> {
    fn comma(&mut self) {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
    }

    /// Write one item.
    pub(crate) fn push(&mut self, item: &impl Serialize) -> Result<(), ProviderError> {
        self.comma();
        serde_json::to_writer(&mut *self.out, item).map_err(failed)
    }

    /// Write one item, an object whose fields `fill` writes.
    pub(crate) fn object(
        &mut self,
        fill: impl FnOnce(&mut FieldWriter<'_>) -> Result<(), ProviderError>,
    ) -> Result<(), ProviderError> {
        self.comma();
        write_object(self.out, fill)
    }
}

/// A tool as the OpenAI APIs declare a function: `name`, `description`,
/// `parameters` and, when the provider has a strict mode, `strict` (with
/// the strict schema when the tool asks for strict sampling and can have it).
pub(crate) fn function_tool(t: &crate::Tool, strict_mode: bool) -> Result<serde_json::Value, ProviderError> {
    use crate::strict::{Declared, declare};
    let declared = declare(t, strict_mode, None)?;
    let mut f = serde_json::Map::new();
    f.insert("name".into(), t.name.as_str().into());
    f.insert("description".into(), t.description.as_str().into());
    match declared {
        Declared::Plain => {
            f.insert("parameters".into(), t.parameters.clone());
        }
        Declared::NotStrict => {
            f.insert("parameters".into(), t.parameters.clone());
            f.insert("strict".into(), false.into());
        }
        Declared::Strict(schema) => {
            f.insert("parameters".into(), schema);
            f.insert("strict".into(), true.into());
        }
    }
    Ok(serde_json::Value::Object(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_what_serde_json_writes() {
        let mut o = ObjectWriter::new();
        o.field("model", &"m\"1\n").unwrap();
        o.array("messages", |a| {
            a.push(&json!({"role": "user", "content": "é\u{1}"}))?;
            a.push(&json!({"role": "assistant", "content": null}))
        })
        .unwrap();
        o.array("none", |_| Ok(())).unwrap();
        o.field("stream", &true).unwrap();
        let expected = json!({
            "model": "m\"1\n",
            "messages": [{"role": "user", "content": "é\u{1}"}, {"role": "assistant", "content": null}],
            "none": [],
            "stream": true,
        });
        assert_eq!(o.finish().to_vec(), serde_json::to_vec(&expected).unwrap());
    }

    #[test]
    fn every_byte_that_needs_escaping_is_found_at_every_offset_of_a_long_text() {
        // The eight-byte scan must see a special byte wherever it falls.
        let specials: Vec<char> =
            (0u8..0x20).map(char::from).chain(['"', '\\', '\u{7f}', 'é', '😀', ' ', '~']).collect();
        for c in specials {
            for at in 0..20 {
                let s: String = (0..24).map(|i| if i == at { c } else { 'a' }).collect();
                let mut out = ChunkWriter::new();
                string_into(&mut out, &s);
                assert_eq!(out.finish().to_vec(), serde_json::to_vec(&s).unwrap(), "{c:?} at {at}");
            }
        }
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let every_control: String = (0u8..0x20).map(char::from).collect();
        for s in [every_control.as_str(), "\"\\/\u{7f}é\u{2028}😀", "", "plain"] {
            let mut out = ChunkWriter::new();
            string_into(&mut out, s);
            assert_eq!(out.finish().to_vec(), serde_json::to_vec(s).unwrap(), "{s:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_string_is_escaped_as_serde_json_escapes_it(s in "(?s).{0,40}", t in "[\\x00-\\x7f]{0,40}") {
            for s in [&s, &t] {
                let mut out = ChunkWriter::new();
                string_into(&mut out, s);
                proptest::prop_assert_eq!(out.finish().to_vec(), serde_json::to_vec(s).unwrap());
            }
        }
    }

    #[test]
    fn nested_fields_write_what_serde_json_writes() {
        let args = json!({"path": "a\"b\n", "n": [1, 2.5, null], "z": {"q": "\u{1}"}});
        let mut o = ObjectWriter::new();
        o.array("messages", |a| {
            a.object(|m| {
                m.str("role", "assistant");
                m.null("content");
                m.joined("reasoning", ["th\"", "", "ink\t"]);
                m.array("tool_calls", |calls| {
                    calls.object(|c| {
                        c.str("id", "c1");
                        c.object("function", |f| {
                            f.field("name", &"ls")?;
                            f.json_text("arguments", &args)
                        })
                    })
                })
            })?;
            a.object(|_| Ok(()))
        })
        .unwrap();
        let expected = json!({"messages": [
            {"role": "assistant", "content": null, "reasoning": "th\"ink\t", "tool_calls": [
                {"id": "c1", "function": {"name": "ls", "arguments": args.to_string()}}
            ]},
            {}
        ]});
        assert_eq!(String::from_utf8(o.finish().to_vec()).unwrap(), serde_json::to_string(&expected).unwrap());
    }

    #[test]
    fn an_empty_object_is_an_object() {
        assert_eq!(ObjectWriter::new().finish().to_vec(), b"{}");
    }

    #[test]
    fn a_value_that_cannot_be_json_is_an_error_not_a_panic() {
        let mut o = ObjectWriter::new();
        let bad: std::collections::HashMap<Vec<u8>, u8> = [(vec![1u8], 1u8)].into();
        let err = o.field("x", &bad).unwrap_err();
        assert_eq!(err.to_string(), text::BODY_NOT_WRITTEN);
    }
}
