//! Reading content blocks and user content straight into what they are.
//!
//! A derived internally tagged enum (`ContentBlock`, tagged by `type`) and a
//! derived untagged one (`UserContent`) both copy each value into an
//! intermediate tree before building it, so every text of a resumed
//! session was allocated twice. Here a block whose `type` comes first (as
//! pi and the reference write them) is read directly into its variant; a
//! block whose `type` comes later is gathered as JSON first and read from
//! that (the same result, slower). User content is a string or a list of
//! blocks, told apart by what the reader finds.

use std::fmt;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, de::Error as _};
use serde_json::Value;

use crate::types::{ContentBlock, ToolCallBlock, UserContent};

/// The kinds of block, as `type` names them.
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "camelCase")]
enum Kind {
    Text,
    Image,
    Thinking,
    ToolCall,
}

#[derive(Deserialize)]
struct TextFields {
    text: String,
}

#[derive(Deserialize)]
struct ImageFields {
    data: String,
    #[serde(rename = "mimeType")]
    mime_type: String,
}

#[derive(Deserialize)]
struct ThinkingFields {
    thinking: String,
    #[serde(rename = "thinkingSignature", default)]
    signature: Option<String>,
}

/// The block of `kind` read from the fields in `d`.
fn block_of<'de, D: Deserializer<'de>>(kind: Kind, d: D) -> Result<ContentBlock, D::Error> {
    Ok(match kind {
        Kind::Text => ContentBlock::Text { text: TextFields::deserialize(d)?.text },
        Kind::Image => {
            let f = ImageFields::deserialize(d)?;
            ContentBlock::Image { data: f.data, mime_type: f.mime_type }
        }
        Kind::Thinking => {
            let f = ThinkingFields::deserialize(d)?;
            ContentBlock::Thinking { thinking: f.thinking, signature: f.signature }
        }
        Kind::ToolCall => ContentBlock::ToolCall(Box::new(ToolCallBlock::deserialize(d)?)),
    })
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(BlockVisitor)
    }
}

struct BlockVisitor;

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = ContentBlock;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content block object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ContentBlock, A::Error> {
        // The usual order: `type` first, the rest read into its variant.
        let mut whole = serde_json::Map::new();
        match map.next_key_seed(KeyOrType)? {
            None => return Err(A::Error::missing_field("type")),
            Some(FirstKey::Type) => {
                let kind: Kind = map.next_value()?;
                return block_of(kind, MapAccessDeserializer::new(map));
            }
            Some(FirstKey::Other(key)) => {
                whole.insert(key, map.next_value()?);
            }
        }
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            whole.insert(key, value);
        }
        let kind = whole.get("type").cloned().ok_or_else(|| A::Error::missing_field("type"))?;
        let kind = Kind::deserialize(kind).map_err(A::Error::custom)?;
        block_of(kind, Value::Object(whole)).map_err(A::Error::custom)
    }
}

/// The first key of a block: `type`, or another one (kept).
enum FirstKey {
    Type,
    Other(String),
}

/// Reads the first key without copying it when it is `type`.
struct KeyOrType;

impl<'de> de::DeserializeSeed<'de> for KeyOrType {
    type Value = FirstKey;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<FirstKey, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for KeyOrType {
    type Value = FirstKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<FirstKey, E> {
        Ok(if v == "type" { FirstKey::Type } else { FirstKey::Other(v.to_string()) })
    }
}

impl<'de> Deserialize<'de> for UserContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UserContentVisitor)
    }
}

struct UserContentVisitor;

impl<'de> Visitor<'de> for UserContentVisitor {
    type Value = UserContent;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or a list of content blocks")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<UserContent, E> {
        Ok(UserContent::Text(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<UserContent, E> {
        Ok(UserContent::Text(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<UserContent, A::Error> {
        let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1).min(64));
        while let Some(b) = seq.next_element::<ContentBlock>()? {
            blocks.push(b);
        }
        blocks.shrink_to_fit();
        Ok(UserContent::Blocks(blocks))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_read_the_same_whatever_the_order_of_their_keys() {
        let cases = [
            (json!({"type": "text", "text": "hi"}), ContentBlock::text("hi")),
            (json!({"text": "hi", "type": "text", "extra": 1}), ContentBlock::text("hi")),
            (json!({"type": "image", "data": "AA", "mimeType": "image/png"}), ContentBlock::image("AA", "image/png")),
            (
                json!({"thinking": "t", "thinkingSignature": "s", "type": "thinking"}),
                ContentBlock::Thinking { thinking: "t".into(), signature: Some("s".into()) },
            ),
            (
                json!({"type": "toolCall", "id": "c", "name": "read", "arguments": {"path": "a"}}),
                ContentBlock::tool_call("c", "read", json!({"path": "a"})),
            ),
        ];
        for (v, expected) in cases {
            let text = v.to_string();
            assert_eq!(serde_json::from_str::<ContentBlock>(&text).unwrap(), expected, "{text}");
            assert_eq!(ContentBlock::deserialize(&v).unwrap(), expected, "from a value: {text}");
        }
    }

    #[test]
    fn bad_blocks_are_refused() {
        for bad in [
            r#"{}"#,
            r#"{"text":"x"}"#,
            r#"{"type":"video","url":"x"}"#,
            r#"{"type":"text"}"#,
            r#"{"type":"toolCall","id":"c","name":"n"}"#,
            r#"{"type":7,"text":"x"}"#,
            r#""text""#,
            r#"[1]"#,
        ] {
            assert!(serde_json::from_str::<ContentBlock>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn user_content_is_a_string_or_blocks() {
        assert_eq!(serde_json::from_str::<UserContent>(r#""hi""#).unwrap(), UserContent::Text("hi".into()));
        assert_eq!(
            serde_json::from_str::<UserContent>(r#"[{"type":"text","text":"a"}]"#).unwrap(),
            UserContent::Blocks(vec![ContentBlock::text("a")])
        );
        assert_eq!(UserContent::deserialize(&json!([])).unwrap(), UserContent::Blocks(vec![]));
        for bad in ["7", "{}", r#"[{"type":"nope"}]"#, "null"] {
            assert!(serde_json::from_str::<UserContent>(bad).is_err(), "{bad}");
        }
    }
}
