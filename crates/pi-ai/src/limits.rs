//! Every numeric limit of the provider layer, in one place.

use std::time::Duration;

/// How long to wait for a connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a response may stay silent (first byte included) before it fails.
pub const READ_TIMEOUT: Duration = Duration::from_secs(600);
/// The most of an error body kept for the message.
pub const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;
/// The most characters of an error body shown (like the reference).
pub const MAX_ERROR_BODY_CHARS: usize = 4000;
/// The size of each chunk a request body is written in (see
/// `providers::request_body`): large enough that a body of tens of megabytes
/// is a few hundred chunks, small enough that the last chunk's unused room
/// does not matter.
pub const REQUEST_BODY_CHUNK_BYTES: usize = 128 * 1024;
/// Request bodies at least this long are not held: counted first, then
/// written again while they are sent (see `providers::request_body`).
/// Below, writing the body twice costs more than the memory it saves: at
/// 256 KiB the agent loop's CPU per call at 2,000 calls went 2.14 -> 3.09 ms
/// with no change in its peak memory (its bodies stay under 1 MiB); at
/// 4 MiB a resume of 100,000 entries held 3 MB of its body while counting.
pub const STREAMED_BODY_MIN_BYTES: usize = 1024 * 1024;
/// The chunks of a streamed body written ahead of what the HTTP client has
/// taken (1 MiB).
pub const STREAMED_BODY_CHUNKS_IN_FLIGHT: usize = 8;
/// The largest server-sent event read (its unfinished line plus the data
/// gathered so far, 256 MiB); past it the stream fails instead of growing
/// without end. (The reference's engine cannot hold a string much over
/// 512 MiB either.)
pub const MAX_SSE_EVENT_BYTES: usize = 256 * 1024 * 1024;
/// The deepest nesting of arrays and objects accepted in tool-call arguments;
/// deeper is rejected like any malformed JSON. No tool takes anything near
/// it; it keeps the recursive parser far from the stack's end, and a call
/// that passes it stays readable by `serde_json` (limited to 128 levels) when
/// it is read back inside a session line or an RPC record, which wrap it in a
/// few levels of their own.
pub const MAX_ARGUMENT_DEPTH: usize = 64;
/// Partial tool arguments are re-parsed on every delta up to this size...
pub const PARTIAL_PARSE_ALWAYS: usize = 8 * 1024;
/// ...and beyond it only after growing by a quarter since the last parse,
/// which keeps the total work linear in the size of the arguments.
pub const PARTIAL_PARSE_GROWTH_DIVISOR: usize = 4;
/// Capacity of the event channel (the provider waits when the reader lags).
pub const CHANNEL_CAPACITY: usize = 256;
/// The largest Google credentials file read (they are a few kilobytes).
pub const MAX_CREDENTIALS_FILE_BYTES: u64 = 1024 * 1024;
/// The lifetime asked for a Google access token, and assumed when the answer gives none.
pub const TOKEN_LIFETIME_SECS: u64 = 3600;
/// A Google access token is replaced this long before it expires.
pub const TOKEN_REFRESH_MARGIN_SECS: u64 = 300;
/// The largest AWS credentials or config file read (`~/.aws/...`).
pub const MAX_AWS_FILE_BYTES: usize = 1024 * 1024;
/// The largest Bedrock event-stream frame read (AWS's own limit is 16 MiB);
/// a frame announcing more fails the stream before anything is buffered.
pub const MAX_EVENT_FRAME_BYTES: usize = 16 * 1024 * 1024;
/// How long an AWS `credential_process` command may run.
pub const CREDENTIAL_PROCESS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);
/// The most an AWS `credential_process` command may print.
pub const MAX_CREDENTIAL_PROCESS_OUTPUT: usize = 64 * 1024;
/// How long to wait for ECS/EKS container credentials.
pub const CONTAINER_CREDENTIALS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
/// The largest container credentials answer read.
pub const MAX_CONTAINER_CREDENTIALS_BYTES: usize = 64 * 1024;
