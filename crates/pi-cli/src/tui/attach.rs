//! `@path` in a prompt naming an image file attaches the image (the text
//! keeps the `@path`), as `@file` arguments do on the command line.

use std::path::Path;

/// Most images attached to one prompt.
const MAX_IMAGES: usize = 8;

/// The images `text` names with `@path`.
pub(crate) fn images(cwd: &Path, text: &str) -> Vec<pi_ai::ContentBlock> {
    let mut out = Vec::new();
    for token in text.split_whitespace().filter_map(|t| t.strip_prefix('@')) {
        if out.len() >= MAX_IMAGES {
            break;
        }
        let token = token.trim_end_matches([',', '.', ';', ':', ')', '"', '\'']);
        let Ok(path) = pi_tools::paths::resolve_read_path(cwd, token) else { continue };
        let Ok(meta) = std::fs::metadata(&path) else { continue };
        if !meta.is_file() || meta.len() > pi_config::files::CONFIG_MAX_BYTES {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else { continue };
        if let Some(Ok(img)) = pi_tools::attachment::prepare_image(bytes) {
            out.push(pi_ai::ContentBlock::image(img.data, img.mime_type));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_image_files_attach() {
        let tmp = tempfile::tempdir().unwrap();
        let png = image::RgbImage::new(2, 2);
        png.save(tmp.path().join("shot.png")).unwrap();
        std::fs::write(tmp.path().join("notes.txt"), "hi").unwrap();
        let got = images(tmp.path(), "look at @shot.png, and @notes.txt and @missing.png");
        assert_eq!(got.len(), 1);
        assert!(matches!(&got[0], pi_ai::ContentBlock::Image { mime_type, .. } if mime_type == "image/png"));
    }
}
