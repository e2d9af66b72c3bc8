//! Images given with a prompt (`@file` arguments): recognised and prepared
//! exactly as `read` prepares an image (first bytes, EXIF orientation, BMP
//! converted to PNG, resized to the inline limits), so a prompt carries the
//! same picture a `read` of the file would.

use crate::ImageOmitted;
use crate::tools::read::picture;

/// An image file made ready to attach to a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedImage {
    /// Base64 data.
    pub data: String,
    /// Its MIME type (`image/png` for a converted BMP).
    pub mime_type: String,
    /// What was done to it (`[Image converted from …]`, `[Image: original …]`), in order.
    pub hints: Vec<String>,
}

/// `Some` when `bytes` are an image `read` would send: the prepared image, or
/// the note saying why it is left out
/// (`[Image omitted: could not be resized below the inline image size limit.]`, …).
/// `None` for anything else (text).
pub fn prepare_image(bytes: Vec<u8>) -> Option<Result<PreparedImage, ImageOmitted>> {
    let head = &bytes[..bytes.len().min(picture::HEAD_BYTES)];
    let kind = picture::detect(head)?;
    Some(picture::prepare(bytes, kind).map(|p| PreparedImage {
        data: p.data,
        mime_type: p.mime.to_string(),
        hints: p.hints,
    }))
}

/// An image a client sent with a prompt (base64 `data`, its declared
/// `mime_type`), prepared as the reference prepares prompt images: the
/// declared PNG, JPEG, GIF or WebP decoded and shrunk to the inline limits,
/// any other format converted to PNG. The error is the note that takes the
/// image's place in the prompt's text.
pub fn prepare_prompt_image(data: &str, mime_type: &str) -> Result<PreparedImage, ImageOmitted> {
    use base64::Engine;
    // Lenient, as the reference decodes: what is not base64 decodes to nothing usable.
    let bytes = base64::engine::general_purpose::STANDARD.decode(data.trim()).unwrap_or_default();
    let base = mime_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    let declared_inline =
        matches!(base.as_str(), "image/png" | "image/jpeg" | "image/jpg" | "image/gif" | "image/webp");
    match prepare_image(bytes) {
        Some(prepared) => prepared,
        None if declared_inline => Err(ImageOmitted::TooLarge),
        None => Err(ImageOmitted::Unconvertible),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_prepared_and_text_is_not_an_image() {
        let png = base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
        )
        .unwrap();
        let p = prepare_image(png).unwrap().unwrap();
        assert_eq!(p.mime_type, "image/png");
        assert!(p.hints.is_empty());
        assert!(prepare_image(b"hello\n".to_vec()).is_none());
        let broken = prepare_image(b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDRbroken".to_vec()).unwrap();
        assert_eq!(
            broken.unwrap_err().to_string(),
            "[Image omitted: could not be resized below the inline image size limit.]"
        );
    }

    #[test]
    fn prompt_images_are_prepared_or_replaced_by_the_note() {
        let tiny = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
        let p = prepare_prompt_image(tiny, "image/png").unwrap();
        assert_eq!((p.data.as_str(), p.mime_type.as_str()), (tiny, "image/png"));
        assert_eq!(
            prepare_prompt_image("bm90IGFuIGltYWdl", "image/png").unwrap_err().to_string(),
            "[Image omitted: could not be resized below the inline image size limit.]"
        );
        assert_eq!(
            prepare_prompt_image("bm90IGFuIGltYWdl", "image/tiff").unwrap_err().to_string(),
            "[Image omitted: could not be converted to a supported inline image format.]"
        );
        assert!(prepare_prompt_image("%%%", "image/png").is_err());
    }
}
