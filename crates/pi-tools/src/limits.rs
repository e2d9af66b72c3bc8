//! Every numeric limit the tools apply, in one place.

/// Lines kept by head/tail truncation (`DEFAULT_MAX_LINES`).
pub const MAX_LINES: usize = 2000;
/// Bytes kept by head/tail truncation, 50 KiB (`DEFAULT_MAX_BYTES`).
pub const MAX_BYTES: usize = 50 * 1024;
/// Characters kept of one grep output line (`GREP_MAX_LINE_LENGTH`).
pub const GREP_MAX_LINE_LENGTH: usize = 500;
/// Default `limit` of grep (matches).
pub const GREP_DEFAULT_LIMIT: usize = 100;
/// Default `limit` of find (results).
pub const FIND_DEFAULT_LIMIT: usize = 1000;
/// Default `limit` of ls (entries).
pub const LS_DEFAULT_LIMIT: usize = 500;
/// Largest bash/powershell timeout in seconds.
pub const MAX_TIMEOUT_SECONDS: f64 = 2147483.647;
/// Decoded bytes of bash output kept in memory to cut the model's tail from
/// (twice [`MAX_BYTES`]); the rest streams to the output file.
pub const BASH_TAIL_WINDOW: usize = 2 * MAX_BYTES;
/// Largest `output` of bash's structured result (1 MiB of raw output); longer
/// output keeps its first and last half around an omission marker.
pub const BASH_STRUCTURED_MAX_BYTES: usize = 1024 * 1024;
/// Milliseconds between two streaming updates of a running command.
pub const BASH_UPDATE_INTERVAL_MS: u64 = 100;
/// Milliseconds of quiet after which a command's output stops being read once
/// its shell exited (a background process may keep the pipes open); each
/// chunk that still comes starts the wait again, as the reference does.
pub const BASH_EXIT_GRACE_MS: u64 = 100;
/// Milliseconds after the shell's exit at which reading stops even if a
/// background process keeps writing (beyond B8; the reference reads on until
/// the timeout, or forever without one).
pub const BASH_EXIT_DRAIN_MAX_MS: u64 = 1000;
/// Unchanged lines shown around each change in `edit`'s diff and patch.
pub const EDIT_DIFF_CONTEXT_LINES: usize = 4;
/// Line edits up to which `edit` aligns a changed region exactly as the
/// reference does; bigger regions use a faster, bounded diff.
pub const EDIT_DIFF_MAX_EDITS: usize = 2000;
/// Seconds that faster diff may spend on one region before settling for a
/// coarser result (the file is written either way).
pub const EDIT_DIFF_DEADLINE_SECS: u64 = 2;
/// `read`: images wider or taller than this are resized to fit (pixels).
pub const READ_IMAGE_MAX_DIMENSION: u32 = 2000;
/// `read`: largest inline image, counted as base64 text (4.5 MiB).
pub const READ_IMAGE_MAX_BASE64_BYTES: usize = 4_718_592;
/// `read`: JPEG qualities tried when a re-encoded image is too big: the first
/// competes with PNG, the others follow in this order (as the reference).
pub const READ_IMAGE_JPEG_QUALITIES: &[u8] = &[80, 85, 70, 55, 40];
/// `read`: each further attempt scales the image by this factor (rounded
/// down, at least 1 pixel) when no encoding fits at the current size.
pub const READ_IMAGE_DOWNSCALE_STEP: f64 = 0.75;
/// `read`: bytes of a file's start looked at to recognise an image.
pub const READ_IMAGE_SNIFF_BYTES: usize = 4100;
/// `read`: image files bigger than this are not loaded (the image is omitted).
pub const READ_IMAGE_MAX_FILE_BYTES: u64 = 128 * 1024 * 1024;
/// `read`: bytes read from a device, FIFO or socket before giving up (2 GiB,
/// where Node's `readFile` fails too); regular files have no such limit.
pub const READ_SPECIAL_FILE_MAX_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// Symlinks followed to find the file a write changes (as the kernel's limit).
pub const MAX_SYMLINK_HOPS: usize = 40;
/// Seconds `edit` and `write` wait for another process's lock on the file.
pub const FILE_LOCK_WAIT_SECS: u64 = 30;
/// Milliseconds between two tries of a held file lock.
pub const FILE_LOCK_POLL_MS: u64 = 5;
/// `edit`: largest file it changes (bigger ones get a clear error; edit keeps
/// about twice the file in memory).
pub const EDIT_MAX_FILE_BYTES: u64 = 128 * 1024 * 1024;
/// Longest single argument a process may get on Linux (`MAX_ARG_STRLEN`,
/// 32 pages, less the terminating NUL): the reference's `grep`/`find` fail
/// with `spawn E2BIG` past it.
pub const MAX_ARGUMENT_BYTES: usize = 32 * 4096 - 1;
/// `grep`: bytes one line may take in memory; a longer line (a huge file
/// without newlines) is an error for that file, not an out-of-memory abort.
pub const GREP_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;
