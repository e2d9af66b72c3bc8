//! What only the terminal's owner can do: run an external editor, read and
//! write the clipboard, suspend for job control.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::EditorError;

/// Longest a clipboard tool may take.
pub const CLIPBOARD_TIMEOUT: Duration = Duration::from_secs(2);
/// Most bytes read from the clipboard.
pub const CLIPBOARD_MAX_BYTES: usize = 32 * 1024 * 1024;

/// The editor to run: `$VISUAL`, `$EDITOR`, else `nano`.
fn editor_command() -> String {
    ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.trim().is_empty()))
        .unwrap_or_else(|| crate::text::DEFAULT_EDITOR.to_string())
}

/// Edit `text` in an external editor (the terminal is the editor's while it
/// runs); the new text, or an error message.
pub fn external_editor(text: &str) -> Result<String, EditorError> {
    let dir = std::env::temp_dir();
    let path = dir.join(format!("pi-prompt-{}.md", std::process::id()));
    std::fs::write(&path, text).map_err(EditorError::File)?;
    let command = editor_command();
    let status = Command::new("sh").arg("-c").arg(format!("{command} \"$1\"")).arg("sh").arg(&path).status();
    let result = match status {
        Ok(s) if s.success() => std::fs::read_to_string(&path).map_err(EditorError::File),
        Ok(status) => Err(EditorError::Failed { command, status }),
        Err(source) => Err(EditorError::NotStarted { command, source }),
    };
    let _ = std::fs::remove_file(&path);
    result.map(|t| t.trim_end_matches('\n').to_string())
}

/// Run a clipboard tool with a deadline; its output.
fn run_tool(program: &str, args: &[&str]) -> Option<Vec<u8>> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut stdout).take(CLIPBOARD_MAX_BYTES as u64).read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(s)) if s.success() => break,
            Ok(Some(_)) => return None,
            Ok(None) if start.elapsed() > CLIPBOARD_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(_) => return None,
        }
    }
    reader.join().ok()
}

/// What the clipboard holds, for pasting: an image is saved to a temporary
/// file and pasted as its path; otherwise the text.
pub fn paste_clipboard() -> Option<String> {
    let wayland = std::env::var_os("WAYLAND_DISPLAY").is_some();
    let types = if wayland {
        run_tool("wl-paste", &["--list-types"])
    } else {
        run_tool("xclip", &["-selection", "clipboard", "-t", "TARGETS", "-o"])
    };
    let types = String::from_utf8_lossy(&types.unwrap_or_default()).to_string();
    if let Some(mime) = ["image/png", "image/jpeg", "image/gif", "image/webp"].into_iter().find(|m| types.contains(m)) {
        let bytes = if wayland {
            run_tool("wl-paste", &["--type", mime])
        } else {
            run_tool("xclip", &["-selection", "clipboard", "-t", mime, "-o"])
        }?;
        let ext = mime.rsplit('/').next().unwrap_or("png");
        let stamp =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let path: PathBuf = std::env::temp_dir().join(format!("pi-clipboard-{}-{stamp}.{ext}", std::process::id()));
        std::fs::write(&path, bytes).ok()?;
        return Some(path.to_string_lossy().into_owned());
    }
    let text = if wayland {
        run_tool("wl-paste", &["--no-newline"])
    } else {
        run_tool("xclip", &["-selection", "clipboard", "-o"]).or_else(|| run_tool("pbpaste", &[]))
    }?;
    Some(String::from_utf8_lossy(&text).into_owned())
}

/// Put `text` on the clipboard: the OSC 52 sequence our own renderer emits
/// (terminals and tmux pass it on), and a clipboard tool when there is one.
pub fn copy(out: &mut impl Write, text: &str) {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    let _ = write!(out, "\x1b]52;c;{encoded}\x07");
    let _ = out.flush();
    let owned = text.to_string();
    std::thread::spawn(move || {
        for (program, args) in [("wl-copy", &[][..]), ("xclip", &["-selection", "clipboard"][..]), ("pbcopy", &[][..])]
        {
            let Ok(mut child) = Command::new(program)
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
            else {
                continue;
            };
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(owned.as_bytes());
            }
            let _ = child.wait();
            return;
        }
    });
}

/// Stop the process group (ctrl+z); returns when the shell continues it.
pub fn suspend() {
    let _ = rustix::process::kill_current_process_group(rustix::process::Signal::TSTP);
}
