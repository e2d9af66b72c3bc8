//! Between the tools' result blocks and the provider layer's content blocks.

use pi_ai::ContentBlock;
use pi_tools::Content;

/// A tool result block as a message content block.
pub fn content_block(c: &Content) -> ContentBlock {
    match c {
        Content::Text { text } => ContentBlock::Text { text: text.clone() },
        Content::Image { data, mime_type } => ContentBlock::Image { data: data.clone(), mime_type: mime_type.clone() },
    }
}
