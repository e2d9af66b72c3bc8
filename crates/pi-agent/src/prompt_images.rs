//! Images that come with a prompt (from a client, the terminal UI, an
//! extension or an `@file` argument), prepared once where the user message
//! is built, as the reference prepares them: shrunk to the inline limits,
//! converted to PNG when need be, and an image that cannot be sent replaced
//! by a note after the prompt's text (with the notes of what was done).

use pi_ai::ContentBlock;

/// `text` with the notes of its images after a blank line, and the images
/// ready to send (blocks that are not images pass unchanged).
pub(crate) fn prepare(text: String, images: Vec<ContentBlock>) -> (String, Vec<ContentBlock>) {
    let mut hints = Vec::new();
    let mut ready = Vec::with_capacity(images.len());
    for block in images {
        match block {
            ContentBlock::Image { data, mime_type } => {
                match pi_tools::attachment::prepare_prompt_image(&data, &mime_type) {
                    Ok(p) => {
                        hints.extend(p.hints);
                        ready.push(ContentBlock::image(p.data, p.mime_type));
                    }
                    Err(note) => hints.push(note.to_string()),
                }
            }
            other => ready.push(other),
        }
    }
    if hints.is_empty() { (text, ready) } else { (format!("{text}\n\n{}", hints.join("\n")), ready) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sendable_images_pass_and_the_others_become_notes() {
        let tiny = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
        let (text, images) = prepare("look".into(), vec![ContentBlock::image(tiny, "image/png")]);
        assert_eq!(text, "look");
        assert_eq!(images, vec![ContentBlock::image(tiny, "image/png")]);
        let (text, images) = prepare(
            "look".into(),
            vec![ContentBlock::image("bm9wZQ==", "image/png"), ContentBlock::image(tiny, "image/png")],
        );
        assert_eq!(text, "look\n\n[Image omitted: could not be resized below the inline image size limit.]");
        assert_eq!(images.len(), 1);
        let (text, images) = prepare("none".into(), Vec::new());
        assert_eq!((text.as_str(), images.len()), ("none", 0));
    }
}
