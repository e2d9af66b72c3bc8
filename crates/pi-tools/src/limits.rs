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
