//! The `edit` tool: exact (or, failing that, fuzzy) text replacement in one
//! file, all edits or none.
//!
//! The pieces: [`apply`] matches the edits against the original text and turns
//! them into replacements, [`fuzzy`] is the normalised space matching falls
//! back to, [`endings`] splices the replacements into the original bytes (BOM
//! and line endings kept), [`diff`] renders `details.diff` and `details.patch`.
//! The call runs in the file's turn of the mutation queue.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::limits::EDIT_MAX_FILE_BYTES;
use crate::os_error::{code_and_description, node_error};
use crate::queue::FileMutationGuard;
use crate::text::edit as msg;
use crate::{ToolContext, ToolError, ToolResult, paths};

mod apply;
mod diff;
mod endings;
mod error;
mod fuzzy;
mod myers;
#[cfg(test)]
mod props;

use apply::EditText;

#[derive(Deserialize)]
struct EditArgs {
    path: String,
    edits: Vec<EditItem>,
}

#[derive(Deserialize)]
struct EditItem {
    #[serde(rename = "oldText")]
    old_text: String,
    #[serde(rename = "newText")]
    new_text: String,
}

/// Run `edit`.
pub async fn run(args: Value, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let args: EditArgs = super::parse(args)?;
    if args.edits.is_empty() {
        return Err(ToolError::msg(msg::EMPTY_EDITS));
    }
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
    let job = tokio::task::spawn_blocking(move || edit_file(guard, abs, args, &token));
    tokio::select! {
        _ = abort.cancelled() => Err(ToolError::Aborted),
        r = job => r.unwrap_or_else(|e| Err(super::worker_failed(e))),
    }
}

/// The blocking part; holds the file's turn until the write has settled.
fn edit_file(
    _guard: FileMutationGuard,
    abs: PathBuf,
    args: EditArgs,
    abort: &CancellationToken,
) -> Result<ToolResult, ToolError> {
    let check = || if abort.is_cancelled() { Err(ToolError::Aborted) } else { Ok(()) };
    let path = args.path.as_str();
    check()?;
    rustix::fs::access(&abs, rustix::fs::Access::READ_OK | rustix::fs::Access::WRITE_OK)
        .map_err(|e| ToolError::msg(msg::could_not_edit(path, code_and_description(e.raw_os_error()).0)))?;
    check()?;
    // Other processes that change the file wait for this one (and it for them).
    let lock = crate::replace::FileLock::acquire(&crate::replace::final_target(&abs), abort)
        .map_err(|e| lock_error(e, &abs))?;
    let bytes = match &lock {
        Some(l) => read_locked(l.file(), path)?,
        None => read(&abs)?,
    };
    check()?;
    let mut source = endings::Source::decode(bytes);
    let edits: Vec<EditText> = args.edits.into_iter().map(|e| EditText { old: e.old_text, new: e.new_text }).collect();
    let count = edits.len();
    let applied = apply::apply_edits(source.lf(), &edits, path).map_err(|e| ToolError::msg(e.to_string()))?;
    let d = diff::edit_diff(path, source.lf(), &applied.reps);
    // Memory: the original and the new text at most, never more copies (the
    // diff builds only the new side of the regions it shows).
    let reps = applied.reps;
    source.drop_lf();
    let new_bytes = source.splice(&reps);
    drop(source);
    check()?;
    write(&abs, &new_bytes)?;
    drop(lock);
    let mut details = json!({"diff": d.diff, "patch": d.patch});
    if let Some(line) = d.first_changed_line {
        details["firstChangedLine"] = json!(line);
    }
    Ok(ToolResult::success(msg::replaced(path, count)).with_details(details))
}

/// A lock that could not be taken, as the model reads it.
pub(crate) fn lock_error(e: crate::replace::LockError, abs: &std::path::Path) -> ToolError {
    use crate::replace::LockError;
    match e {
        LockError::Aborted => ToolError::Aborted,
        LockError::Busy => {
            ToolError::msg(crate::text::common::file_busy(&abs.to_string_lossy(), crate::limits::FILE_LOCK_WAIT_SECS))
        }
        LockError::Io(e) => ToolError::msg(node_error(&e, "open", Some(abs))),
    }
}

/// The bytes of the locked regular file, refused past [`EDIT_MAX_FILE_BYTES`].
fn read_locked(mut file: &std::fs::File, path: &str) -> Result<Vec<u8>, ToolError> {
    use std::io::Read as _;
    let size = file.metadata().map_err(|e| ToolError::msg(node_error(&e, "fstat", None)))?.len();
    if size > EDIT_MAX_FILE_BYTES {
        return Err(ToolError::msg(msg::file_too_large(path, size, EDIT_MAX_FILE_BYTES)));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.read_to_end(&mut bytes).map_err(|e| ToolError::msg(node_error(&e, "read", None)))?;
    Ok(bytes)
}

/// The file's bytes. Opened without blocking, and only a regular file is
/// read: a FIFO or a device (`/dev/zero`) reads as empty instead of hanging or
/// filling memory (`/dev/null` reads as empty in the reference too).
fn read(abs: &std::path::Path) -> Result<Vec<u8>, ToolError> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(abs)
        .map_err(|e| ToolError::msg(node_error(&e, "open", Some(abs))))?;
    let meta = file.metadata().map_err(|e| ToolError::msg(node_error(&e, "fstat", None)))?;
    let mut bytes = Vec::new();
    if meta.is_dir() {
        return Err(ToolError::msg(node_error(
            &std::io::Error::from_raw_os_error(rustix::io::Errno::ISDIR.raw_os_error()),
            "read",
            None,
        )));
    }
    if meta.is_file() {
        file.read_to_end(&mut bytes).map_err(|e| ToolError::msg(node_error(&e, "read", None)))?;
    }
    Ok(bytes)
}

/// Replace the file's contents in one step (see [`crate::replace`]).
pub(crate) fn write(abs: &std::path::Path, bytes: &[u8]) -> Result<(), ToolError> {
    crate::replace::replace(abs, bytes).map_err(|(e, syscall)| {
        let path = (syscall != "write").then_some(abs);
        ToolError::msg(node_error(&e, syscall, path))
    })
}
