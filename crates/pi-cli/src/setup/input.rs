//! The input stage: the messages of a print or JSON run. The first is piped
//! standard input, then the `@file` texts, then the first message argument,
//! joined without separators (not sent when empty); the others follow as
//! given. Images among the `@file`s go with the first message.

use std::io::Read;
use std::path::Path;

use super::report::Stop;
use crate::text;

/// The messages and the first message's images.
#[derive(Debug, Default)]
pub(crate) struct Input {
    /// Messages, in order.
    pub messages: Vec<String>,
    /// Images for the first message.
    pub first_images: Vec<pi_ai::ContentBlock>,
}

/// Standard input's text when it is not a terminal: trimmed (a BOM too),
/// `None` when empty.
pub(crate) fn piped_stdin() -> Option<String> {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() {
        return None;
    }
    let mut buf = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf);
    let text = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    (!text.is_empty()).then(|| text.to_string())
}

/// Build the messages from `piped`, the `@file` arguments and the message arguments.
pub(crate) fn collect(cwd: &Path, piped: Option<String>, files: &[String], messages: &[String]) -> Result<Input, Stop> {
    let (files, first_images) = attach_files(cwd, files)?;
    let mut rest = messages.iter().cloned();
    let first: String = [piped, Some(files), rest.next()].into_iter().flatten().collect();
    let messages = Some(first).filter(|m| !m.is_empty()).into_iter().chain(rest).collect();
    Ok(Input { messages, first_images })
}

/// The text and images of `@file` arguments: each file as `<file name="ABS">`
/// with its text (a UTF-8 BOM removed), empty files skipped; an image (as
/// `read` recognises one) is attached after the text, its tag holding only
/// the processing notes (or why it was left out); a missing file or one that
/// cannot be read is an error.
fn attach_files(cwd: &Path, files: &[String]) -> Result<(String, Vec<pi_ai::ContentBlock>), Stop> {
    let mut out = String::new();
    let mut images = Vec::new();
    for f in files {
        let path = pi_tools::paths::resolve_read_path(cwd, f)
            .map_err(|e| Stop::Error(text::attach_failed(Path::new(f), e)))?;
        let meta = std::fs::metadata(&path).map_err(|_| Stop::Error(text::file_not_found(&path)))?;
        if meta.len() == 0 {
            continue;
        }
        let content = std::fs::read(&path).map_err(|e| Stop::Error(text::attach_failed(&path, &e.to_string())))?;
        if let Some(image) = pi_tools::attachment::prepare_image(content.clone()) {
            let note = match image {
                Ok(p) => {
                    images.push(pi_ai::ContentBlock::image(p.data, p.mime_type));
                    p.hints.join("\n")
                }
                Err(note) => note.to_string(),
            };
            out.push_str(&format!("<file name=\"{}\">{note}</file>\n", path.display()));
            continue;
        }
        let content = String::from_utf8_lossy(&content);
        let content = content.strip_prefix('\u{feff}').unwrap_or(&content);
        out.push_str(&format!("<file name=\"{}\">\n{content}\n</file>\n", path.display()));
    }
    Ok((out, images))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn stdin_then_files_then_the_first_message_joined() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("a.txt"), "\u{feff}hello").unwrap();
        std::fs::write(tmp.path().join("empty.txt"), "").unwrap();
        let input = collect(
            tmp.path(),
            Some("piped".into()),
            &strings(&["a.txt", "empty.txt"]),
            &strings(&["first", "second"]),
        )
        .unwrap();
        let file = format!("<file name=\"{}\">\nhello\n</file>\n", tmp.path().join("a.txt").display());
        assert_eq!(input.messages, vec![format!("piped{file}first"), "second".to_string()]);
        let nothing = collect(tmp.path(), None, &[], &strings(&["", "next"])).unwrap();
        assert_eq!(nothing.messages, strings(&["next"]), "an empty first message is not sent");
    }

    #[test]
    fn a_missing_file_stops_start_up() {
        let tmp = tempfile::tempdir().unwrap();
        let err = collect(tmp.path(), None, &strings(&["nope.txt"]), &[]).unwrap_err();
        assert_eq!(err, Stop::Error(text::file_not_found(&tmp.path().join("nope.txt"))));
    }
}
