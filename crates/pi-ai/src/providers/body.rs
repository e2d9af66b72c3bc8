//! Request bodies written straight to bytes: the top-level object key by key
//! and the conversation one message at a time, so a long conversation is
//! never held as a JSON value tree beside its bytes. The output is what
//! `serde_json::to_vec` gives for the same object (compact, keys in the
//! order written), so requests stay byte for byte the same.

use serde::Serialize;

use crate::error::ProviderError;
use crate::text;

/// A JSON object being written.
pub(crate) struct ObjectWriter {
    out: Vec<u8>,
    empty: bool,
}

/// A JSON array being written inside an [`ObjectWriter`].
pub(crate) struct ArrayWriter<'a> {
    out: &'a mut Vec<u8>,
    empty: bool,
}

/// A value that could not be written (a map with non-string keys, say).
fn failed(_: serde_json::Error) -> ProviderError {
    ProviderError::failed(text::BODY_NOT_WRITTEN)
}

impl ObjectWriter {
    /// A new object.
    pub(crate) fn new() -> Self {
        ObjectWriter { out: vec![b'{'], empty: true }
    }

    fn key(&mut self, key: &str) -> Result<(), ProviderError> {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
        serde_json::to_writer(&mut self.out, key).map_err(failed)?;
        self.out.push(b':');
        Ok(())
    }

    /// Write `key: value`.
    pub(crate) fn field(&mut self, key: &str, value: &impl Serialize) -> Result<(), ProviderError> {
        self.key(key)?;
        serde_json::to_writer(&mut self.out, value).map_err(failed)
    }

    /// Write `key: [...]`, the items given by `fill`.
    pub(crate) fn array(
        &mut self,
        key: &str,
        fill: impl FnOnce(&mut ArrayWriter<'_>) -> Result<(), ProviderError>,
    ) -> Result<(), ProviderError> {
        self.key(key)?;
        self.out.push(b'[');
        let mut items = ArrayWriter { out: &mut self.out, empty: true };
        fill(&mut items)?;
        self.out.push(b']');
        Ok(())
    }

    /// The object's bytes.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.out.push(b'}');
        self.out
    }
}

impl ArrayWriter<'_> {
    /// Write one item.
    pub(crate) fn push(&mut self, item: &impl Serialize) -> Result<(), ProviderError> {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
        serde_json::to_writer(&mut *self.out, item).map_err(failed)
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
        assert_eq!(o.finish(), serde_json::to_vec(&expected).unwrap());
    }

    #[test]
    fn an_empty_object_is_an_object() {
        assert_eq!(ObjectWriter::new().finish(), b"{}");
    }

    #[test]
    fn a_value_that_cannot_be_json_is_an_error_not_a_panic() {
        let mut o = ObjectWriter::new();
        let bad: std::collections::HashMap<Vec<u8>, u8> = [(vec![1u8], 1u8)].into();
        let err = o.field("x", &bad).unwrap_err();
        assert_eq!(err.to_string(), text::BODY_NOT_WRITTEN);
    }
}
