//! A tool result's text and images as the wire writers send them, borrowed
//! from the message: the text is handed out in pieces to be written one
//! after another, never joined into a string of its own.

use crate::text;
use crate::types::{ContentBlock, ToolResultMessage};

/// A tool result as text plus the images to send separately. Without image
/// support each image becomes [`text::TOOL_IMAGE_OMITTED`]; text parts are
/// joined with `\n`.
#[derive(Clone, Copy)]
pub(crate) struct ToolText<'a> {
    result: &'a ToolResultMessage,
    images_ok: bool,
}

impl<'a> ToolText<'a> {
    /// The text and images of `result`, for a model that takes images or not.
    pub(crate) fn of(result: &'a ToolResultMessage, images_ok: bool) -> Self {
        ToolText { result, images_ok }
    }

    /// The text parts, before they are joined.
    fn parts(self) -> impl Iterator<Item = &'a str> {
        self.result.content.iter().filter_map(move |b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            ContentBlock::Image { .. } if !self.images_ok => Some(text::TOOL_IMAGE_OMITTED),
            _ => None,
        })
    }

    /// The text, as pieces to write one after another (the parts with
    /// `\n` between them).
    pub(crate) fn pieces(self) -> impl Iterator<Item = &'a str> {
        self.parts().enumerate().flat_map(|(i, p)| [if i == 0 { "" } else { "\n" }, p])
    }

    /// Whether the text is empty.
    pub(crate) fn is_empty(self) -> bool {
        let mut parts = self.parts();
        match (parts.next(), parts.next()) {
            (None, _) => true,
            (Some(p), None) => p.is_empty(),
            _ => false,
        }
    }

    /// Whether the text is empty or only whitespace (joined with `\n`, it
    /// is when every part is).
    pub(crate) fn is_blank(self) -> bool {
        self.parts().all(|p| p.trim().is_empty())
    }

    /// The images to send, `(data, mime type)`: none for a model that does
    /// not take images.
    pub(crate) fn images(self) -> impl Iterator<Item = (&'a str, &'a str)> {
        self.result.content.iter().filter_map(move |b| match b {
            ContentBlock::Image { data, mime_type } if self.images_ok => Some((data.as_str(), mime_type.as_str())),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::tool_result_parts;

    fn result(content: Vec<ContentBlock>) -> ToolResultMessage {
        ToolResultMessage {
            tool_call_id: "c".into(),
            tool_name: "t".into(),
            content,
            details: None,
            is_error: false,
            duration_ms: None,
            timestamp: 0,
            nested_calls: None,
            usage: None,
        }
    }

    /// The pieces, emptiness and images are what `tool_result_parts` gives.
    #[test]
    fn the_pieces_are_the_joined_text() {
        let img = ContentBlock::image("AAAA", "image/png");
        let t = ContentBlock::text;
        let cases = [
            vec![],
            vec![t("")],
            vec![t(""), t("")],
            vec![t(" \n"), t("\t")],
            vec![t("a"), img.clone(), t("b")],
            vec![img.clone()],
            vec![img.clone(), img.clone()],
            vec![t("x"), ContentBlock::tool_call("i", "n", serde_json::json!({})), t("y")],
        ];
        for content in cases {
            let r = result(content);
            for images_ok in [false, true] {
                let (joined, images) = tool_result_parts(&r, images_ok);
                let text = ToolText::of(&r, images_ok);
                assert_eq!(text.pieces().collect::<String>(), joined, "{r:?}");
                assert_eq!(text.is_empty(), joined.is_empty(), "{r:?}");
                assert_eq!(text.is_blank(), joined.trim().is_empty(), "{r:?}");
                let borrowed: Vec<(String, String)> =
                    text.images().map(|(d, m)| (d.to_string(), m.to_string())).collect();
                assert_eq!(borrowed, images, "{r:?}");
            }
        }
    }
}
