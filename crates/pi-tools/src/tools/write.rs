//! The `write` tool: create or overwrite a file, creating its parent folders.
//!
//! Runs in the file's turn of the mutation queue. Errors are the platform's, in
//! Node's words (`EISDIR: illegal operation on a directory, open '<abs>'`).

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::os_error::node_error;
use crate::queue::FileMutationGuard;
use crate::text::write as msg;
use crate::{ToolContext, ToolError, ToolResult, paths};

#[derive(Deserialize)]
struct WriteArgs {
    path: String,
    content: String,
}

/// Run `write`.
pub async fn run(args: Value, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let args: WriteArgs = super::parse(args)?;
    let abs = paths::resolve(&ctx.cwd, &args.path).map_err(ToolError::msg)?;
    paths::check_no_nul(&abs).map_err(ToolError::msg)?;
    let abort = ctx.abort.clone();
    let guard = tokio::select! {
        _ = abort.cancelled() => return Err(ToolError::Aborted),
        g = ctx.mutation_queue.lock(&abs) => g,
    };
    let token = abort.clone();
    let job = tokio::task::spawn_blocking(move || write_file(guard, abs, args.content, &token));
    let outcome = tokio::select! {
        _ = abort.cancelled() => Err(ToolError::Aborted),
        r = job => r.unwrap_or_else(|e| Err(ToolError::msg(e.to_string()))),
    };
    outcome?;
    Ok(ToolResult::success(msg::wrote(&args.path)))
}

/// The blocking part; holds the file's turn until the write has settled.
fn write_file(
    _guard: FileMutationGuard,
    abs: PathBuf,
    content: String,
    abort: &CancellationToken,
) -> Result<(), ToolError> {
    let check = || if abort.is_cancelled() { Err(ToolError::Aborted) } else { Ok(()) };
    check()?;
    if let Some(dir) = abs.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir).map_err(|e| ToolError::msg(node_error(&e, "mkdir", Some(dir))))?;
    }
    check()?;
    // Without blocking: a FIFO nobody reads fails (ENXIO) instead of hanging.
    let mut file = std::fs::OpenOptions::new()
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&abs)
        .map_err(|e| ToolError::msg(node_error(&e, "open", Some(&abs))))?;
    file.write_all(content.as_bytes()).map_err(|e| ToolError::msg(node_error(&e, "write", None)))?;
    Ok(())
}
