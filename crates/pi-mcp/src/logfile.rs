//! `<agent-dir>/mcp.log`: servers' logging notifications and stdio servers'
//! standard error, rotated to `mcp.log.1` past 5 MB.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;

use crate::text;

/// The log file (`None`: logging off, as in tests).
#[derive(Debug, Clone, Default)]
pub struct LogFile(pub Option<PathBuf>);

impl LogFile {
    fn open(&self) -> Option<std::fs::File> {
        let path = self.0.as_ref()?;
        if std::fs::metadata(path).is_ok_and(|m| m.len() > text::LOG_MAX_BYTES) {
            let _ = std::fs::rename(path, path.with_extension("log.1"));
        }
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        OpenOptions::new().create(true).append(true).open(path).ok()
    }

    /// Append one line for `server`.
    pub fn append(&self, server: &str, line: &str) {
        if let Some(mut f) = self.open() {
            let _ = writeln!(f, "[{server}] {line}");
        }
    }

    /// Where a stdio server's standard error goes.
    pub fn stdio(&self) -> Stdio {
        self.open().map(Stdio::from).unwrap_or_else(Stdio::null)
    }
}
