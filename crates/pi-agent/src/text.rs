//! Every model- or user-visible message of the agent, in one place.

/// Result of a call a handler blocked without a reason.
pub const BLOCKED: &str = "Tool execution was blocked";

/// `Tool <name> not found`.
pub fn tool_not_found(name: &str) -> String {
    pi_tools::text::common::tool_not_found(name)
}

/// The error of a model stream that closed without a final event.
pub const STREAM_ENDED_EARLY: &str = "The model stream ended without a final message";

/// A failure whose server asked to wait longer than
/// `retry.provider.maxRetryDelayMs` before a retry, given up at once:
/// `Server requested 3600s retry delay (max: 60s). <the server's message>`
/// (the reference's words; both rounded up to seconds).
pub fn retry_delay_too_long(requested: std::time::Duration, max_ms: u64, message: &str) -> String {
    let requested = requested.as_millis().div_ceil(1000);
    let max = max_ms.div_ceil(1000);
    format!("Server requested {requested}s retry delay (max: {max}s). {message}")
}

/// A call whose arguments are not a JSON object.
pub fn invalid_arguments(tool: &str, detail: &str) -> String {
    format!("Invalid arguments for tool \"{tool}\": {detail}")
}

/// The thinking level recorded on messages of a model run without thinking.
pub const THINKING_OFF: &str = "off";
/// The answer of a run aborted between requests (the reference's text: Node's abort error).
pub const RUN_ABORTED: &str = "This operation was aborted";

/// A user command's record with no output, as the model reads it.
pub const BASH_NO_OUTPUT: &str = "(no output)";

/// A user command the user stopped, as the model reads it.
pub const BASH_CANCELLED: &str = "\n\n(command cancelled)";

/// A user command that failed, as the model reads it.
pub fn bash_exited_with(code: i64) -> String {
    format!("\n\nCommand exited with code {code}")
}

/// A user command whose output was cut, as the model reads it.
pub fn bash_output_truncated(path: &str) -> String {
    format!("\n\n[Output truncated. Full output: {path}]")
}

/// A tool panicked while it ran (a bug in the tool): the call's result.
pub fn tool_panicked(name: &str) -> String {
    pi_tools::text::common::internal_error(name, "it failed unexpectedly (a bug); nothing more is known")
}

/// A tool call of an answer cut by the output token limit (as the reference).
pub fn truncated_call(name: &str) -> String {
    format!(
        "Tool call \"{name}\" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments."
    )
}

/// Before a compaction summary in the context (as the reference).
pub const COMPACTION_SUMMARY_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
/// After a compaction summary in the context.
pub const COMPACTION_SUMMARY_SUFFIX: &str = "\n</summary>";
/// Before a branch summary in the context (as the reference).
pub const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
/// After a branch summary in the context.
pub const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";

/// A session line that is not UTF-8 (the words of Rust's line reader).
pub const SESSION_LINE_NOT_UTF8: &str = "stream did not contain valid UTF-8";
/// A session line that is JSON but not an object.
pub const SESSION_LINE_NOT_OBJECT: &str = "not a JSON object";

/// A tool result cut in the text a compaction summarizes.
pub fn tool_result_cut(head: &str, more: usize) -> String {
    format!("{head}\n[... {more} more characters]")
}

/// Why a compaction did not happen (as the reference words it: an
/// automatic one, `manual` false, says so).
pub fn compaction_failed(manual: bool, message: &str) -> String {
    if manual { format!("Compaction failed: {message}") } else { format!("Auto-compaction failed: {message}") }
}

/// The summary request failed.
pub fn summarization_failed(error: impl std::fmt::Display) -> String {
    format!("Summarization failed: {error}")
}

/// The summary request for a split span's start failed.
pub fn turn_prefix_summarization_failed(error: impl std::fmt::Display) -> String {
    format!("Turn prefix summarization failed: {error}")
}

/// The session could not be read for a compaction: a thread panicked while
/// it held the session (the standard library's words for a poisoned lock).
pub const SESSION_LOCK_POISONED: &str = "poisoned lock: another task failed inside";

/// A compaction of a branch with nothing before the kept part (as the reference).
pub const NOTHING_TO_COMPACT: &str = "Nothing to compact (session too small)";

/// An extension (or an abort) cancelled the compaction (as the reference).
pub const COMPACTION_CANCELLED: &str = "Compaction cancelled";

/// A compaction asked for right after another one (as the reference).
pub const ALREADY_COMPACTED: &str = "Already compacted";

/// Between the history summary and the summary of a split user-message
/// span's start (as the reference).
pub const SPLIT_TURN_SEPARATOR: &str = "\n\n---\n\n**Turn Context (split turn):**\n\n";

/// The history part of a split-span summary when there is no history.
pub const NO_PRIOR_HISTORY: &str = "No prior history.";

/// The request for the summary of a split user-message span's start (our
/// own wording): what led up to the kept part.
pub fn turn_prefix_request(conversation: &str) -> String {
    format!(
        "The conversation below is the start of a request whose later part is kept verbatim after this summary.\n\n<conversation>\n{conversation}\n</conversation>\n\nSummarize only what the later part needs to make sense:\n\n## Original Request\n[What the user asked in this span]\n\n## Early Progress\n- [Work done and decisions made so far]\n\n## Context for Suffix\n- [Facts the kept messages rely on: paths, values, errors]"
    )
}

/// The model answered the summary request with no text.
pub const EMPTY_SUMMARY: &str = "the model returned an empty summary";

/// The system prompt of a summary request (our own wording).
pub const SUMMARY_SYSTEM_PROMPT: &str = "You write the working summary of a coding session so that it can continue without the conversation it stands for. You do not continue the conversation and you do not call tools: you only write the summary, in the format asked for.";

/// The request for a compaction summary of `conversation` (our own wording,
/// the reference's structure), building on `previous` when there is one.
pub fn summary_request(conversation: &str, previous: Option<&str>) -> String {
    let mut out = String::from("Summarize the session below for the agent that will continue it.\n\n");
    if let Some(p) = previous {
        out.push_str(&format!("<previous-summary>\n{p}\n</previous-summary>\n\nFold what still matters of the previous summary into the new one.\n\n"));
    }
    out.push_str(&format!("<conversation>\n{conversation}\n</conversation>\n\n"));
    out.push_str("Use exactly these sections:\n\n## Goal\n[What the user is trying to accomplish]\n\n## Constraints & Preferences\n- [Requirements the user stated]\n\n## Progress\n### Done\n- [x] [Finished work]\n\n### In Progress\n- [ ] [Current work]\n\n### Blocked\n- [Problems, if any]\n\n## Key Decisions\n- **[Decision]**: [Why]\n\n## Next Steps\n1. [What comes next]\n\n## Critical Context\n- [Facts needed to continue: paths, names, values, errors]");
    out
}

/// What a `/compact` asks the summary to focus on.
pub fn summary_focus(instructions: &str) -> String {
    format!("\n\nFocus especially on: {instructions}")
}

/// `abort_retry` stopped a retry that waited (as the reference).
pub const RETRY_CANCELLED: &str = "Retry cancelled";

/// reference: the first line of the system prompt's skills section.
pub const SKILLS_INTRO: &str = "The following skills provide specialized instructions for specific tasks.";
/// reference: how to load a skill when `read` is declared.
pub const SKILLS_HINT_READ: &str = "Use the read tool to load a skill's file when the task matches its description.";
/// reference: how to load a skill when only `bash` is declared.
pub const SKILLS_HINT_BASH: &str = "Use bash to load a skill's file when the task matches its description.";
/// reference: how to load a skill when the reader is not declared.
pub const SKILLS_HINT_INDIRECT: &str = "Load a skill's file when the task matches its description.";
/// reference: how skill paths resolve.
pub const SKILLS_PATHS: &str =
    "Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.";

/// reference: the event named when a `/skill:` file cannot be read.
pub const SKILL_EXPANSION_EVENT: &str = "skill_expansion";

/// A message a `context` handler returned that pi cannot read (left out of the request).
pub fn bad_context_message(error: &str) -> String {
    format!("context handler returned a message pi cannot read ({error}); it is left out")
}

/// reference: a `context_with_system` handler's list lacks the leading system message.
pub const CONTEXT_SYSTEM_DROPPED: &str = "Handler removed the leading system message; the request has no prompt or initial tool declarations. Keep it at index 0 or replace a dropped prefix with getCurrentSystemMessage().";

/// A `context_with_system` answer that is not a list of messages (ignored).
pub fn bad_context_with_system(kind: &str) -> String {
    format!("context_with_system handler returned messages that are not a list ({kind}); the request goes as it was")
}

/// The source named when a turn boundary's proposal cannot be carried out.
pub const BOUNDARY_SOURCE: &str = "<boundary>";

/// reference: a boundary asked for one more request while the conversation
/// ends with the model's answer.
pub fn boundary_cannot_continue(kind: &str) -> String {
    format!("{kind} requested continuation without runnable model context")
}

/// A boundary's proposed entry pi cannot append: the whole proposal is left out.
pub fn boundary_bad_entry(kind: &str, index: usize, why: &str) -> String {
    format!("{kind} proposed entries were not appended: entry {index}: {why}")
}

/// The summary of a branch that held no message to summarize.
pub const NOTHING_IN_BRANCH: &str = "Nothing to summarize in that branch.";

/// Above a branch summary's text (our own wording): what the model reads
/// when the conversation comes back from another branch.
pub const BRANCH_SUMMARY_HEADING: &str =
    "Before coming back to this point, the user tried another branch of the conversation. What happened there:\n\n";

/// The request for a branch summary (our own wording, the reference's
/// structure: the sections stop after Next Steps); `custom` adds to it, or
/// replaces it with `replace`.
pub fn branch_summary_request(conversation: &str, custom: Option<&str>, replace: bool) -> String {
    let default = "Summarize this branch of the conversation, so the work can be picked up again when the user returns to it.\n\nUse exactly these sections:\n\n## Goal\n[What the user wanted in this branch]\n\n## Constraints & Preferences\n- [Requirements the user stated, or \"(none)\"]\n\n## Progress\n### Done\n- [x] [Finished work]\n\n### In Progress\n- [ ] [Work started, not finished]\n\n### Blocked\n- [Problems, if any]\n\n## Key Decisions\n- **[Decision]**: [Why]\n\n## Next Steps\n1. [What comes next]\n\nBe brief; keep file paths, function names and error messages exact.";
    let instructions = match custom {
        Some(c) if replace => c.to_string(),
        Some(c) => format!("{default}{}", summary_focus(c)),
        None => default.to_string(),
    };
    format!("<conversation>\n{conversation}\n</conversation>\n\n{instructions}")
}
