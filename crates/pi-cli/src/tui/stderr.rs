//! While the terminal UI runs, anything written to standard error (a
//! warning from a library, an extension's `console.error`) would land on
//! top of the screen. It is captured instead and shown in the transcript,
//! sanitised like every other text; the real standard error comes back when
//! the UI ends, or before a panic message is printed.

use std::io::{BufRead, BufReader};
use std::os::fd::OwnedFd;
use std::sync::Mutex;

use pi_tui::host::Update;
use pi_tui::transcript::Level;
use tokio::sync::mpsc::UnboundedSender;

/// The real standard error while it is captured. A static because file
/// descriptor 2 is the process's, and the panic hook that puts it back gets
/// no context argument.
static SAVED: Mutex<Option<OwnedFd>> = Mutex::new(None);
/// Longest captured line kept.
const MAX_LINE_BYTES: usize = 4096;

/// Send standard error's lines to the UI as notices.
pub(crate) fn capture(up: UnboundedSender<Update>) {
    let Ok(saved) = rustix::io::dup(rustix::stdio::stderr()) else { return };
    let Ok((read, write)) = rustix::pipe::pipe() else { return };
    if rustix::stdio::dup2_stderr(&write).is_err() {
        return;
    }
    drop(write);
    if let Ok(mut g) = SAVED.lock() {
        *g = Some(saved);
    }
    let spawned = std::thread::Builder::new().name("pi-stderr".into()).spawn(move || {
        let reader = BufReader::new(std::fs::File::from(read));
        for line in reader.split(b'\n') {
            let Ok(mut line) = line else { break };
            line.truncate(MAX_LINE_BYTES);
            let text = String::from_utf8_lossy(&line).trim_end().to_string();
            if !text.is_empty() && up.send(Update::Notice(Level::Warning, text)).is_err() {
                break;
            }
        }
    });
    if spawned.is_err() {
        restore();
    }
}

/// Give standard error back.
pub(crate) fn restore() {
    if let Some(saved) = SAVED.lock().ok().and_then(|mut g| g.take()) {
        let _ = rustix::stdio::dup2_stderr(&saved);
    }
}
