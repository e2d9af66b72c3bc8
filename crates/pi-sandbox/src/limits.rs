//! Every limit of the sandbox, in one place.

/// Longest wait for a probe (bubblewrap or Landlock) to answer, in milliseconds.
pub const PROBE_TIMEOUT_MS: u64 = 10_000;

/// How often a probe's end is looked for, in milliseconds.
pub const PROBE_POLL_MS: u64 = 2;

/// Symlinks followed while resolving one path before giving up (the kernel's
/// own limit is 40).
pub const MAX_SYMLINK_HOPS: usize = 40;

/// Full-output files of earlier commands made visible inside a read-only
/// sandbox's private temp (the most recent ones).
pub const MAX_VISIBLE_OUTPUT_FILES: usize = 32;

/// Entries of one folder the Landlock-only sandbox turns into rules (a folder
/// beside a hidden store, or a writable root with protected names). More
/// than this and the command does not run.
pub const MAX_LANDLOCK_DIR_ENTRIES: usize = 4096;

/// Landlock rules one command may need in all.
pub const MAX_LANDLOCK_RULES: usize = 16_384;

/// Exit status of the helper when it refuses to run the command (nothing ran).
pub const HELPER_REFUSED: i32 = 126;

/// Exit status of the helper when the program cannot be run.
pub const HELPER_EXEC_FAILED: i32 = 127;

/// Largest command request (program, arguments, environment) sent to a
/// session sandbox, in bytes.
pub const MAX_SESSION_REQUEST_BYTES: usize = 64 * 1024 * 1024;

/// Longest wait for a new session sandbox to say it is ready, in
/// milliseconds (then the command runs in a sandbox of its own).
pub const SESSION_START_TIMEOUT_MS: u64 = 20_000;

/// Session sandboxes one pi keeps at once (one per working folder and set of
/// rules; the least recently used goes first).
pub const MAX_SESSIONS: usize = 4;
