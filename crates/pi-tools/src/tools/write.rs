//! The `write` tool: create or overwrite a file, creating its parent folders.
//!
//! Runs in the file's turn of the mutation queue. Errors are the platform's, in
//! Node's words (`EISDIR: illegal operation on a directory, open '<abs>'`).

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
    paths::check_no_nul(&abs)?;
    // The sandbox's rule, the same one its commands are held to.
    ctx.sandbox.check_write(&ctx.cwd, &abs).map_err(|r| ToolError::msg(r.to_string()))?;
    let abort = ctx.abort.clone();
    let guard = tokio::select! {
        _ = abort.cancelled() => return Err(ToolError::Aborted),
        g = ctx.mutation_queue.lock(&abs) => g,
    };
    let token = abort.clone();
    let job = tokio::task::spawn_blocking(move || write_file(guard, abs, args.content, &token));
    let outcome = tokio::select! {
        _ = abort.cancelled() => Err(ToolError::Aborted),
        r = job => r.unwrap_or_else(|e| Err(super::worker_failed(e))),
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
    let target = crate::replace::final_target(&abs);
    // A file pi may not write keeps its error (replacing it would get round that).
    if target.exists()
        && let Err(e) = rustix::fs::access(&target, rustix::fs::Access::WRITE_OK)
    {
        let e = std::io::Error::from_raw_os_error(e.raw_os_error());
        return Err(ToolError::msg(node_error(&e, "open", Some(&abs))));
    }
    let lock = crate::replace::FileLock::acquire(&target, abort).map_err(|e| super::edit::lock_error(e, &abs))?;
    super::edit::write(&abs, content.as_bytes())?;
    drop(lock);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    #[tokio::test]
    async fn the_sandbox_rule_refuses_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let mut ctx = ToolContext::new(dir.path());
        let policy = pi_sandbox::Policy { mode: pi_sandbox::Mode::ReadOnly, ..Default::default() };
        ctx.sandbox = Arc::new(pi_sandbox::Sandbox::new(policy, None, None));
        let e = run(json!({"path": "sub/a.txt", "content": "x"}), &ctx).await.unwrap_err();
        let abs = std::fs::canonicalize(dir.path()).unwrap().join("sub/a.txt");
        assert_eq!(e.to_string(), format!("sandbox: read-only: write to {} refused", abs.display()));
        assert!(!dir.path().join("sub").exists(), "not even the folder was made");
    }
}
