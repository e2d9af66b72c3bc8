//! Every numeric limit of the provider layer, in one place.

/// The deepest nesting of arrays and objects accepted in tool-call arguments;
/// deeper is rejected like any malformed JSON. No tool takes anything near
/// it; it keeps the recursive parser far from the stack's end, and a call
/// that passes it stays readable by `serde_json` (limited to 128 levels) when
/// it is read back inside a session line or an RPC record, which wrap it in a
/// few levels of their own.
pub const MAX_ARGUMENT_DEPTH: usize = 64;
