//! The `read` tool: a window of a text file's lines, or an image as an attachment.
//!
//! Text: the file is decoded as UTF-8 (invalid bytes become U+FFFD) and split
//! on `\n`, so a final newline adds an empty last line. `offset` (1-based) and
//! `limit` pick a window with the reference's arithmetic, fractions and
//! negative numbers included; the window is then cut at 2000 lines or 50 KiB
//! (never inside a line) with a notice that says how to continue. The file is
//! streamed once in fixed chunks, so a file of any size is read in bounded
//! memory (see [`lines`]).
//!
//! Images are recognised by their first bytes (see [`picture`]). Failures of
//! the file system pass through in Node's words (`ENOENT: no such file or
//! directory, access '<path>'`), as the reference's do.

mod lines;
pub(crate) mod picture;

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use self::lines::{ScanError, Selection};
use crate::jsnum::js_number;
use crate::limits::{MAX_BYTES, MAX_LINES, READ_IMAGE_MAX_FILE_BYTES, READ_SPECIAL_FILE_MAX_BYTES};
use crate::os_error::{node_errno_error, node_error};
use crate::paths::resolve_read_path;
use crate::text::read as msg;
use crate::truncate::{TruncatedBy, Truncation};
use crate::{Content, ToolContext, ToolError, ToolResult};

#[derive(Debug, Deserialize)]
struct ReadArgs {
    path: String,
    #[serde(default)]
    offset: Option<f64>,
    #[serde(default)]
    limit: Option<f64>,
}

/// Run `read`.
pub async fn run(args: Value, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let args: ReadArgs = super::parse(args)?;
    let abs = resolve_read_path(&ctx.cwd, &args.path).map_err(ToolError::msg)?;
    let abort = ctx.abort.clone();
    let job = tokio::task::spawn_blocking(move || read_blocking(&abs, &args, &abort));
    tokio::select! {
        joined = job => joined.map_err(super::worker_failed)?,
        _ = ctx.abort.cancelled() => Err(ToolError::Aborted),
    }
}

fn scan_error(e: ScanError) -> ToolError {
    match e {
        ScanError::Io(e) if e.kind() == std::io::ErrorKind::FileTooLarge => ToolError::msg(e.to_string()),
        ScanError::Io(e) => ToolError::msg(node_error(&e, "read", None)),
        ScanError::Aborted => ToolError::Aborted,
    }
}

/// A device, FIFO or socket can stream forever (`/dev/zero`): stop after
/// [`READ_SPECIAL_FILE_MAX_BYTES`] with Node's "greater than 2 GiB" error, as
/// the reference fails there too. Regular files are read whatever their size.
struct Capped<R> {
    inner: R,
    read: u64,
    cap: Option<u64>,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        match self.cap {
            Some(cap) if self.read > cap => {
                Err(std::io::Error::new(std::io::ErrorKind::FileTooLarge, msg::file_too_large(self.read)))
            }
            _ => Ok(n),
        }
    }
}

impl<R: Seek> Seek for Capped<R> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.read = 0;
        self.inner.seek(pos)
    }
}

/// Open for reading without blocking on a FIFO that has no writer, then
/// switch back to blocking reads.
fn open_for_read(abs: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file =
        std::fs::OpenOptions::new().read(true).custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32).open(abs)?;
    if let Ok(flags) = rustix::fs::fcntl_getfl(&file) {
        let _ = rustix::fs::fcntl_setfl(&file, flags - rustix::fs::OFlags::NONBLOCK);
    }
    Ok(file)
}

/// Fill `buf` as far as the file allows; returns the bytes read.
fn read_head(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

fn read_blocking(abs: &Path, args: &ReadArgs, abort: &CancellationToken) -> Result<ToolResult, ToolError> {
    crate::paths::check_no_nul(abs)?;
    rustix::fs::access(abs, rustix::fs::Access::READ_OK)
        .map_err(|e| ToolError::msg(node_errno_error(e, "access", Some(abs))))?;
    let mut file = open_for_read(abs).map_err(|e| ToolError::msg(node_error(&e, "open", Some(abs))))?;
    let mut head = [0u8; picture::HEAD_BYTES];
    let n = read_head(&mut file, &mut head).map_err(|e| ToolError::msg(node_error(&e, "read", None)))?;
    if abort.is_cancelled() {
        return Err(ToolError::Aborted);
    }
    match picture::detect(&head[..n]) {
        Some(kind) => read_image(file, &head[..n], kind),
        None => {
            let regular = file.metadata().is_ok_and(|m| m.is_file());
            let cap = (!regular).then_some(READ_SPECIAL_FILE_MAX_BYTES);
            read_text(Capped { inner: file, read: n as u64, cap }, &head[..n], args, abort)
        }
    }
}

fn read_image(mut file: File, head: &[u8], kind: picture::Kind) -> Result<ToolResult, ToolError> {
    let mut bytes = head.to_vec();
    (&mut file)
        .take(READ_IMAGE_MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::msg(node_error(&e, "read", None)))?;
    let processed = if bytes.len() as u64 > READ_IMAGE_MAX_FILE_BYTES {
        picture::Processed::omitted(kind, msg::IMAGE_OMITTED_TOO_LARGE)
    } else {
        picture::process(bytes, kind)
    };
    let mut result = ToolResult::success(processed.text.clone());
    match processed.image {
        Some((data, mime)) => {
            result.structured = Some(json!({"type": "image", "data": data, "mimeType": mime, "note": processed.text}));
            result.content.push(Content::Image { data, mime_type: mime.to_string() });
        }
        None => result.structured = Some(Value::String(processed.text)),
    }
    Ok(result)
}

/// The start line (0-based, possibly fractional) the reference derives from `offset`.
fn start_line(offset: Option<f64>) -> f64 {
    match offset {
        Some(o) if o != 0.0 && !o.is_nan() => (o - 1.0).max(0.0),
        _ => 0.0,
    }
}

/// The truncation of the selected text, computed from the scan (the same
/// result as `truncate_head` on the whole selection).
fn truncation_of(scan: &lines::Scan) -> Truncation {
    let k = scan.selected;
    let text_empty = k == 0 || (k == 1 && scan.line_lens.first() == Some(&0));
    let total_lines = if text_empty {
        0
    } else if k >= 2 && scan.last_selected_empty {
        k - 1
    } else {
        k
    };
    let mut t = Truncation {
        content: String::new(),
        truncated: false,
        truncated_by: None,
        total_lines: total_lines as usize,
        total_bytes: scan.selected_bytes as usize,
        output_lines: total_lines as usize,
        output_bytes: scan.selected_bytes as usize,
        last_line_partial: false,
        first_line_exceeds_limit: false,
        max_lines: MAX_LINES,
        max_bytes: MAX_BYTES,
    };
    if total_lines as usize <= MAX_LINES && scan.selected_bytes as usize <= MAX_BYTES {
        t.content = scan.prefix.clone();
        return t;
    }
    t.truncated = true;
    if scan.line_lens.first().is_some_and(|l| *l > MAX_BYTES) {
        t.truncated_by = Some(TruncatedBy::Bytes);
        t.first_line_exceeds_limit = true;
        t.output_lines = 0;
        t.output_bytes = 0;
        return t;
    }
    let mut by = TruncatedBy::Lines;
    let (mut kept, mut bytes) = (0usize, 0usize);
    for (i, len) in scan.line_lens.iter().take(total_lines as usize).enumerate() {
        if i >= MAX_LINES {
            by = TruncatedBy::Lines;
            break;
        }
        let add = len + usize::from(i > 0);
        if bytes + add > MAX_BYTES {
            by = TruncatedBy::Bytes;
            break;
        }
        bytes += add;
        kept += 1;
    }
    t.truncated_by = Some(by);
    t.output_lines = kept;
    t.output_bytes = bytes;
    t.content = scan.prefix.get(..bytes).unwrap_or_default().to_string();
    t
}

/// `details` of a truncated read: `{truncation: {content, truncated, …}}`.
fn truncation_details(t: &Truncation) -> Value {
    let mut inner = Map::new();
    inner.insert("content".into(), Value::String(t.content.clone()));
    if let Ok(Value::Object(fields)) = serde_json::to_value(t) {
        inner.extend(fields);
    }
    json!({ "truncation": inner })
}

fn read_text(
    mut file: Capped<File>,
    head: &[u8],
    args: &ReadArgs,
    abort: &CancellationToken,
) -> Result<ToolResult, ToolError> {
    let aborted = || abort.is_cancelled();
    let start_f = start_line(args.offset);
    let start = start_f as u64; // start_f >= 0; saturates
    let mut head = head;
    let end = match args.limit.map(|l| (start_f + l).trunc()) {
        None => None,
        Some(t) if t >= 0.0 => Some(t as u64),
        Some(t) => {
            // A negative end counts from the end of the file: count first.
            let total = lines::count_lines(&mut file, head, &aborted).map_err(scan_error)?;
            file.seek(SeekFrom::Start(0)).map_err(|e| ToolError::msg(node_error(&e, "read", None)))?;
            head = &[];
            Some((total as f64 + t).max(0.0) as u64)
        }
    };
    let scan = lines::scan(&mut file, head, Selection { start, end }, MAX_LINES + 1, MAX_BYTES, &aborted)
        .map_err(scan_error)?;
    let total = scan.total_lines;
    let total_f = total as f64;
    if start_f >= total_f {
        return Err(ToolError::msg(msg::offset_beyond_end(&js_number(args.offset.unwrap_or(0.0)), total)));
    }
    let t = truncation_of(&scan);
    let first_display = start_f + 1.0;
    let (text, details) = if t.first_line_exceeds_limit {
        if start_f.fract() != 0.0 {
            return Err(ToolError::msg(msg::FRACTIONAL_OFFSET_LONG_LINE));
        }
        let first_len = scan.line_lens.first().copied().unwrap_or(0);
        (msg::first_line_too_big(&js_number(first_display), first_len, &args.path), Some(truncation_details(&t)))
    } else if t.truncated {
        let last_display = first_display + t.output_lines as f64 - 1.0;
        let next = js_number(last_display + 1.0);
        let (a, b) = (js_number(first_display), js_number(last_display));
        let notice = match t.truncated_by {
            Some(TruncatedBy::Bytes) => msg::showing_lines_byte_limit(&a, &b, total, &next),
            _ => msg::showing_lines(&a, &b, total, &next),
        };
        (format!("{}{notice}", t.content), Some(truncation_details(&t)))
    } else {
        let mut text = t.content.clone();
        if let Some(limit) = args.limit {
            let end_f = (start_f + limit).min(total_f);
            let user_limited = end_f - start_f;
            if start_f + user_limited < total_f {
                let remaining = total_f - (start_f + user_limited);
                let next = start_f + user_limited + 1.0;
                text.push_str(&msg::more_lines(&js_number(remaining), &js_number(next)));
            }
        }
        (text, None)
    };
    let mut result = ToolResult::success(text.clone());
    result.details = details;
    result.structured = Some(Value::String(text));
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_of(text: &str, start: u64, end: Option<u64>) -> lines::Scan {
        lines::scan(&mut std::io::empty(), text.as_bytes(), Selection { start, end }, MAX_LINES + 1, MAX_BYTES, &|| {
            false
        })
        .unwrap()
    }

    #[test]
    fn truncation_matches_truncate_head() {
        let cases = [
            "a\nb\nc\n".to_string(),
            String::new(),
            "\n".to_string(),
            "x".repeat(60000) + "\nsecond\n",
            "a".repeat(51200) + "\n",
            ("x".repeat(99) + "\n").repeat(512),
            ("x".repeat(99) + "\n").repeat(511) + &"x".repeat(100) + "\n",
            "\n".repeat(2001),
            "a\n".repeat(2000),
            (0..2500).map(|i| format!("{i}\n")).collect(),
            (0..500).map(|i| format!("{i:03}{}\n", "x".repeat(206))).collect(),
        ];
        for text in &cases {
            let want = crate::truncate::truncate_head(text, crate::truncate::Limits::default());
            let got = truncation_of(&scan_of(text, 0, None));
            assert_eq!(got, want, "text of {} bytes", text.len());
        }
    }

    #[test]
    fn start_line_follows_the_reference() {
        assert_eq!(start_line(None), 0.0);
        assert_eq!(start_line(Some(0.0)), 0.0);
        assert_eq!(start_line(Some(-5.0)), 0.0);
        assert_eq!(start_line(Some(1.5)), 0.5);
        assert_eq!(start_line(Some(51.0)), 50.0);
    }
}
