//! A script's output as the model reads it: text items in order (each
//! starting with `==> text N/M <==` when there are several), `console` lines
//! in one `<console_output>` block after them, the error of a failed script,
//! then the token budget (start and end kept, the full text spilled to a
//! temp file) and each image saved to a temp file with its path before it.

use base64::Engine as _;
use pi_tools::Content;
use pi_tools::output_file::OutputFiles;

use super::vm::Item;
use crate::js;
use crate::text::{self, CHARS_PER_TOKEN};

/// Text and image items, in order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Block {
    Text(String),
    Image { data: String, mime: String },
}

/// Number the text items and gather the console lines at the end.
pub(crate) fn format(items: Vec<Item>) -> Vec<Block> {
    let total = items.iter().filter(|i| matches!(i, Item::Text { console: false, .. })).count();
    let mut out = Vec::new();
    let mut console = Vec::new();
    let mut n = 0;
    for item in items {
        match item {
            Item::Image { data, mime } => out.push(Block::Image { data, mime }),
            Item::Text { text, console: true } => console.push(text),
            Item::Text { text, console: false } => {
                n += 1;
                out.push(Block::Text(if total > 1 { text::text_item(n, total, &text) } else { text }));
            }
        }
    }
    if !console.is_empty() {
        out.push(Block::Text(text::console_block(&console.join("\n"))));
    }
    out
}

/// Join adjacent text blocks, each part on its own line.
pub(crate) fn join(blocks: Vec<Block>) -> Vec<Block> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    let mut last_part_ends_line = true;
    for b in blocks {
        match b {
            Block::Text(t) => {
                let joined = current.get_or_insert_with(String::new);
                if !last_part_ends_line {
                    joined.push('\n');
                    last_part_ends_line = true;
                }
                if !t.is_empty() {
                    last_part_ends_line = t.ends_with('\n');
                }
                joined.push_str(&t);
            }
            image => {
                if let Some(t) = current.take() {
                    out.push(Block::Text(t));
                }
                last_part_ends_line = true;
                out.push(image);
            }
        }
    }
    if let Some(t) = current {
        out.push(Block::Text(t));
    }
    out
}

/// The blocks within `max_tokens`; the path of the full text when it was cut.
pub(crate) fn budget(blocks: Vec<Block>, max_tokens: u64, files: &OutputFiles) -> (Vec<Block>, Option<String>) {
    let texts: Vec<&str> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Text(t) => Some(t.as_str()),
            Block::Image { .. } => None,
        })
        .collect();
    let combined = texts.join("\n");
    let length = js::len16(&combined);
    let limit = usize::try_from(max_tokens).unwrap_or(usize::MAX).saturating_mul(CHARS_PER_TOKEN);
    if texts.is_empty() || length <= limit {
        return (blocks, None);
    }
    let head_chars = limit / 2;
    let tail_chars = limit - head_chars;
    let removed = length - head_chars - tail_chars;
    let head = &combined[..js::head_index(&combined, head_chars)];
    let tail = &combined[js::tail_index(&combined, tail_chars)..];
    let mut out = text::truncated_header(length.div_ceil(CHARS_PER_TOKEN), combined.split('\n').count());
    out.push_str(head);
    out.push_str(&text::tokens_truncated(removed.div_ceil(CHARS_PER_TOKEN)));
    out.push_str(tail);
    let spilled = files.write_new(text::OUTPUT_FILE_PREFIX, text::OUTPUT_FILE_EXTENSION, combined.as_bytes());
    let path = match spilled {
        Ok(p) => {
            let p = p.to_string_lossy().into_owned();
            out.push_str(&text::full_output(&p));
            Some(p)
        }
        Err(e) => {
            out.push_str(&text::full_output_failed(&e.to_string()));
            None
        }
    };
    let mut kept = vec![Block::Text(out)];
    kept.extend(blocks.into_iter().filter(|b| matches!(b, Block::Image { .. })));
    (kept, path)
}

fn extension(mime: &str) -> &'static str {
    match mime {
        "image/png" => ".png",
        "image/jpeg" => ".jpg",
        "image/gif" => ".gif",
        _ => ".webp",
    }
}

/// Save each image (once per distinct image) and put its label before it.
pub(crate) fn save_images(blocks: Vec<Block>, files: &OutputFiles) -> Vec<Block> {
    let mut labels: Vec<(String, String)> = Vec::new();
    let mut out = Vec::with_capacity(blocks.len());
    for b in blocks {
        let Block::Image { data, mime } = &b else {
            out.push(b);
            continue;
        };
        let label = match labels.iter().find(|(d, _)| d == data) {
            Some((_, l)) => l.clone(),
            None => {
                let bytes = base64::engine::general_purpose::STANDARD.decode(data).unwrap_or_default();
                let kind = format!("{mime}, {}", pi_tools::truncate::format_size(bytes.len()));
                let saved = files.write_new(text::OUTPUT_FILE_PREFIX, extension(mime), &bytes);
                let l = match saved {
                    Ok(p) => text::image_saved(&p.to_string_lossy(), &kind),
                    Err(e) => text::image_not_saved(&kind, &e.to_string()),
                };
                labels.push((data.clone(), l.clone()));
                l
            }
        };
        out.push(Block::Text(label));
        out.push(b);
    }
    out
}

/// The blocks as tool result content.
pub(crate) fn content(blocks: Vec<Block>) -> Vec<Content> {
    blocks
        .into_iter()
        .map(|b| match b {
            Block::Text(text) => Content::Text { text },
            Block::Image { data, mime } => Content::Image { data, mime_type: mime },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Item {
        Item::Text { text: s.into(), console: false }
    }

    #[test]
    fn numbering_console_and_joining() {
        let items = vec![t("a"), Item::Text { text: "c1".into(), console: true }, t(""), t("b\n")];
        let blocks = join(format(items));
        assert_eq!(
            blocks,
            vec![Block::Text(
                "==> text 1/3 <==\na\n==> text 2/3 <==\n==> text 3/3 <==\nb\n<console_output>\nc1\n</console_output>"
                    .into()
            )]
        );
        assert_eq!(
            join(vec![Block::Text("x".into()), Block::Text("".into()), Block::Text("y".into())]),
            vec![Block::Text("x\ny".into())]
        );
        assert_eq!(format(vec![t("only")]), vec![Block::Text("only".into())]);
    }

    #[test]
    fn budget_keeps_start_and_end() {
        let (blocks, path) = budget(vec![Block::Text("0123456789".repeat(10))], 5, &OutputFiles::new());
        let Block::Text(s) = &blocks[0] else { panic!() };
        assert!(s.starts_with("Warning: truncated output (original token count: 25)\nTotal output lines: 1\n\n0123456789…20 tokens truncated…0123456789\n\n[Full output: "), "{s}");
        let path = path.unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "0123456789".repeat(10));
        let _ = std::fs::remove_file(path);
        let (kept, none) = budget(vec![Block::Text("short".into())], 5, &OutputFiles::new());
        assert_eq!((kept, none), (vec![Block::Text("short".into())], None));
    }
}
