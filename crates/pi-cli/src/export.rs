//! A session as one self-contained HTML page (`--export`, RPC
//! `export_html`): the header, the system prompt and tools, and every entry
//! of the active branch, each message rendered for its role; text from the
//! session is escaped, so nothing in it runs or styles the page.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use pi_agent::session::{Session, SessionError};
use serde_json::Value;

use crate::text;

/// Why a session could not be exported; shown after `Error: `.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ExportError {
    /// The session has no file (it is kept in memory).
    #[error("{}", text::RPC_EXPORT_IN_MEMORY)]
    InMemory,
    /// `--export` names a file that does not exist.
    #[error("{}", text::export_file_not_found(.0))]
    NotFound(PathBuf),
    /// The session file could not be read.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The page could not be written.
    #[error(transparent)]
    Write(#[from] std::io::Error),
}

/// Escape text for HTML.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The readable text of content blocks (text, thinking, tool calls, images).
fn blocks(content: &Value) -> String {
    let mut out = String::new();
    match content {
        Value::String(s) => out.push_str(&format!("<pre>{}</pre>", esc(s))),
        Value::Array(list) => {
            for b in list {
                match b["type"].as_str() {
                    Some("text") => out.push_str(&format!("<pre>{}</pre>", esc(b["text"].as_str().unwrap_or("")))),
                    Some("thinking") => out.push_str(&format!(
                        "<details><summary>thinking</summary><pre>{}</pre></details>",
                        esc(b["thinking"].as_str().unwrap_or(""))
                    )),
                    Some("toolCall") => out.push_str(&format!(
                        "<div class=\"call\"><b>{}</b><pre>{}</pre></div>",
                        esc(b["name"].as_str().unwrap_or("")),
                        esc(&serde_json::to_string_pretty(&b["arguments"]).unwrap_or_default())
                    )),
                    Some("image") => {
                        let mime = b["mimeType"].as_str().unwrap_or("image/png");
                        let data = b["data"].as_str().unwrap_or("");
                        if data.chars().all(|c| c.is_ascii_alphanumeric() || "+/=".contains(c)) {
                            out.push_str(&format!("<img alt=\"image\" src=\"data:{};base64,{data}\">", esc(mime)))
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out
}

/// One entry as an HTML section (entries without a display are skipped).
fn entry_html(e: &Value) -> Option<String> {
    let (class, title, body) = match e["type"].as_str()? {
        "message" => {
            let m = &e["message"];
            let role = m["role"].as_str().unwrap_or("");
            match role {
                "system" => return None,
                "toolResult" => {
                    let name = m["toolName"].as_str().unwrap_or("");
                    let err = if m["isError"] == true { " (error)" } else { "" };
                    ("tool", format!("result of {name}{err}"), blocks(&m["content"]))
                }
                "bashExecution" => (
                    "bash",
                    format!("$ {}", m["command"].as_str().unwrap_or("")),
                    format!("<pre>{}</pre>", esc(m["output"].as_str().unwrap_or(""))),
                ),
                "compactionSummary" | "branchSummary" => {
                    ("summary", role.to_string(), format!("<pre>{}</pre>", esc(m["summary"].as_str().unwrap_or(""))))
                }
                _ => (role, role.to_string(), blocks(&m["content"])),
            }
        }
        "compaction" => {
            ("summary", "compaction".to_string(), format!("<pre>{}</pre>", esc(e["summary"].as_str().unwrap_or(""))))
        }
        "branch_summary" => (
            "summary",
            "branch summary".to_string(),
            format!("<pre>{}</pre>", esc(e["summary"].as_str().unwrap_or(""))),
        ),
        "custom_message" => ("custom", e["customType"].as_str().unwrap_or("").to_string(), blocks(&e["content"])),
        "model_change" => (
            "meta",
            format!("model: {}/{}", e["provider"].as_str().unwrap_or(""), e["modelId"].as_str().unwrap_or("")),
            String::new(),
        ),
        "thinking_level_change" => {
            ("meta", format!("thinking: {}", e["thinkingLevel"].as_str().unwrap_or("")), String::new())
        }
        _ => return None,
    };
    Some(format!("<section class=\"{}\"><h3>{}</h3>{body}</section>\n", esc(class), esc(&title)))
}

const STYLE: &str = "body{font:14px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;background:#fafafa;color:#222}\
section{background:#fff;border-left:4px solid #999;margin:1em 0;padding:.5em 1em}\
section.user{border-color:#2a6}section.assistant{border-color:#36c}section.tool{border-color:#c83}\
section.bash{border-color:#a3a}section.summary{border-color:#888}section.meta{border-color:#ddd;color:#666}\
pre{white-space:pre-wrap;word-break:break-word;margin:.3em 0}h3{margin:.2em 0;font-size:13px;color:#555}\
.call{background:#f4f4f8;padding:.3em .6em}";

/// The page for `session` (its active branch), with the system prompt.
pub(crate) fn html(session: &Session, system_prompt: &str) -> String {
    let header = session.header();
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n",
        esc(&text::export_title(&session.name().unwrap_or_else(|| session.id().to_string())))
    );
    let _ = writeln!(
        out,
        "<header><h1>{}</h1><p>{} · {}</p></header>",
        esc(&session.name().unwrap_or_else(|| session.id().to_string())),
        esc(header["cwd"].as_str().unwrap_or("")),
        esc(header["timestamp"].as_str().unwrap_or(""))
    );
    if !system_prompt.is_empty() {
        let _ = writeln!(out, "<details><summary>system prompt</summary><pre>{}</pre></details>", esc(system_prompt));
    }
    for e in session.branch() {
        if let Some(h) = entry_html(&e.value()) {
            out.push_str(&h);
        }
    }
    out.push_str("</body></html>\n");
    out
}

/// Write the page to `output` (default: `pi-session-<file name>.html` in
/// `cwd`); the path written.
pub(crate) fn export(
    session: &Session,
    system_prompt: &str,
    output: Option<&Path>,
    cwd: &Path,
) -> Result<PathBuf, ExportError> {
    let file = session.path().ok_or(ExportError::InMemory)?;
    let path = match output {
        Some(p) if p.is_absolute() => p.to_path_buf(),
        Some(p) => cwd.join(p),
        None => cwd.join(default_name(file)),
    };
    std::fs::write(&path, html(session, system_prompt))?;
    Ok(path)
}

/// `pi --export <session file> [output]`: write the page (default
/// `pi-session-<file name>.html` in the current folder) and say where, as
/// the reference (`Exported to: <path>`; `Error: File not found: <path>`).
pub(crate) fn from_file(input: &str, output: Option<&str>) -> std::process::ExitCode {
    let cwd = std::env::current_dir().unwrap_or_default();
    let input = cwd.join(pi_config::expand_tilde(input));
    let result = if input.symlink_metadata().is_err() {
        Err(ExportError::NotFound(input))
    } else {
        Session::open_read_only(&input).map_err(ExportError::from).and_then(|s| {
            let name = output.map(pi_config::expand_tilde).unwrap_or_else(|| default_name(&input));
            std::fs::write(cwd.join(&name), html(&s, "")).map(|()| name).map_err(ExportError::from)
        })
    };
    match result {
        Ok(path) => {
            println!("{}", text::exported_to(&path));
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("Error: {e}");
            std::process::ExitCode::from(1)
        }
    }
}

/// `pi-session-<file name without .jsonl>.html`.
fn default_name(file: &Path) -> PathBuf {
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    PathBuf::from(format!("pi-session-{stem}.html"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_is_shown_and_nothing_is_markup() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Session::create(Some(dir.path()), Path::new("/p"), None, None).unwrap();
        s.append_message(&serde_json::json!({"role": "user", "content": "<script>alert(1)</script>", "timestamp": 1}))
            .unwrap();
        s.append_message(&serde_json::json!({"role": "assistant", "content": [{"type": "text", "text": "answer"},
            {"type": "toolCall", "id": "c", "name": "read", "arguments": {"path": "a"}}], "timestamp": 2}))
            .unwrap();
        let page = html(&s, "SYS");
        assert!(!page.contains("<script>"));
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("answer") && page.contains("<b>read</b>") && page.contains("SYS"));
        let written = export(&s, "SYS", None, dir.path()).unwrap();
        assert!(written.file_name().unwrap().to_string_lossy().starts_with("pi-session-"));
        let mem = Session::in_memory();
        assert_eq!(export(&mem, "", None, dir.path()).unwrap_err().to_string(), text::RPC_EXPORT_IN_MEMORY);
    }
}
