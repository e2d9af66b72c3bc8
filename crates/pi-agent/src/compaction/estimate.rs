//! Token estimates, as the reference makes them (its docs/compaction.md):
//! characters over four, rounded up, counted per message kind (text and
//! thinking, a tool call's name and JSON arguments, 4,800 characters an
//! image, a system message's sections and declared tools). A context's size
//! is the last valid answer's reported usage plus an estimate of what came
//! after it, unless a context edit or a compaction came later: then it is
//! all estimated.

use serde_json::Value;

use crate::messages::{AgentMessage, AgentOnly};
use crate::session::Session;

/// Characters per estimated token.
const CHARS_PER_TOKEN: usize = 4;
/// Characters an image counts for.
const IMAGE_CHARS: usize = 4800;

/// Length as JavaScript counts it (UTF-16 units), which the figures match.
fn js_len(s: &str) -> usize {
    s.encode_utf16().count()
}

fn blocks_chars(blocks: &[pi_ai::ContentBlock]) -> usize {
    blocks
        .iter()
        .map(|b| match b {
            pi_ai::ContentBlock::Text { text } => js_len(text),
            pi_ai::ContentBlock::Image { .. } => IMAGE_CHARS,
            _ => 0,
        })
        .sum()
}

/// Characters of a string or of text/image blocks held as JSON.
fn json_content_chars(v: &Value) -> usize {
    match v {
        Value::String(s) => js_len(s),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b["type"].as_str() {
                Some("text") => b["text"].as_str().map(js_len).unwrap_or(0),
                Some("image") => IMAGE_CHARS,
                _ => 0,
            })
            .sum(),
        _ => 0,
    }
}

/// Estimated tokens of one message.
pub fn estimate(m: &AgentMessage) -> u64 {
    let chars = match m {
        AgentMessage::Llm(pi_ai::Message::User(u)) => match &u.content {
            pi_ai::UserContent::Text(t) => js_len(t),
            pi_ai::UserContent::Blocks(b) => blocks_chars(b),
        },
        AgentMessage::Llm(pi_ai::Message::Assistant(a)) => a
            .content
            .iter()
            .map(|b| match b {
                pi_ai::ContentBlock::Text { text } => js_len(text),
                pi_ai::ContentBlock::Thinking { thinking, .. } => js_len(thinking),
                pi_ai::ContentBlock::ToolCall(call) => {
                    let pi_ai::ToolCallBlock { name, arguments, .. } = &**call;
                    js_len(name) + serde_json::to_string(arguments).map(|s| js_len(&s)).unwrap_or(0)
                }
                _ => 0,
            })
            .sum(),
        AgentMessage::Llm(pi_ai::Message::ToolResult(r)) => blocks_chars(&r.content),
        AgentMessage::Agent(AgentOnly::System(s)) => {
            let sections: usize =
                s.sections.iter().flat_map(|m| m.values()).filter_map(Value::as_str).map(js_len).sum();
            let tools =
                s.tools_added.as_ref().and_then(|t| serde_json::to_string(t).ok()).map(|t| js_len(&t)).unwrap_or(0);
            json_content_chars(&s.content) + sections + tools
        }
        AgentMessage::Agent(AgentOnly::Custom(c)) => json_content_chars(&c.content),
        AgentMessage::Agent(AgentOnly::BashExecution(b)) => js_len(&b.command) + js_len(&b.output),
        AgentMessage::Agent(AgentOnly::CompactionSummary(c)) => js_len(&c.summary),
        AgentMessage::Agent(AgentOnly::BranchSummary(b)) => js_len(&b.summary),
    };
    chars.div_ceil(CHARS_PER_TOKEN) as u64
}

/// The context tokens an answer reports (its total, else the sum of its parts);
/// `None` for a failed or aborted answer or one that reported nothing.
fn reported(m: &AgentMessage) -> Option<u64> {
    let AgentMessage::Llm(pi_ai::Message::Assistant(a)) = m else { return None };
    if matches!(a.stop_reason, pi_ai::StopReason::Error | pi_ai::StopReason::Aborted) {
        return None;
    }
    let u = &a.usage;
    let total = if u.total_tokens > 0 { u.total_tokens } else { u.input + u.output + u.cache_read + u.cache_write };
    (total > 0).then_some(total)
}

/// All estimated: the current system state once, then every other message.
fn estimate_all(messages: &[AgentMessage]) -> u64 {
    note_estimated(messages.len());
    let system = crate::system_message::checkpoint(messages)
        .map(|s| estimate(&AgentMessage::Agent(AgentOnly::System(s))))
        .unwrap_or(0);
    system
        + messages.iter().filter(|m| !matches!(m, AgentMessage::Agent(AgentOnly::System(_)))).map(estimate).sum::<u64>()
}

/// The size of `messages` (a conversation not tied to a session): the last
/// valid usage plus an estimate of what follows, else all estimated.
pub fn context_tokens(messages: &[AgentMessage]) -> u64 {
    match messages.iter().rposition(|m| reported(m).is_some()) {
        Some(i) => reported(&messages[i]).unwrap_or(0) + messages[i + 1..].iter().map(estimate).sum::<u64>(),
        None => estimate_all(messages),
    }
}

/// The size of the context the agent holds (`messages`, its session's
/// context as recorded in `session`): as [`session_context_tokens`], with
/// work that follows what is new, not the history: the messages after the
/// last answer that reported its usage are estimated, and only the session
/// entries recorded after that answer are read (to see whether a context
/// edit or compaction came later, which leaves everything estimated).
pub fn held_context_tokens(messages: &[AgentMessage], session: &Session) -> u64 {
    let Some(i) = messages.iter().rposition(|m| reported(m).is_some()) else {
        return estimate_all(messages);
    };
    for entry in session.walk_back() {
        match entry.kind() {
            "context_edit" | "compaction" => return estimate_all(messages),
            "message" => {
                note_estimated(1);
                if entry_reports_usage(entry) {
                    break;
                }
            }
            _ => {}
        }
    }
    note_estimated(messages.len() - i - 1);
    reported(&messages[i]).unwrap_or(0) + messages[i + 1..].iter().map(estimate).sum::<u64>()
}

/// Whether a `message` entry holds an answer that reported its usage (only
/// assistant lines are parsed).
fn entry_reports_usage(entry: &crate::session::Entry) -> bool {
    if !entry.line().contains("\"assistant\"") {
        return false;
    }
    crate::session::message_of(entry).as_ref().and_then(reported).is_some()
}

/// How many messages the token estimates read (parsed from the session or
/// estimated) so far in this process: the test hook that shows a turn's
/// work does not grow with the history.
pub fn estimated_so_far() -> u64 {
    ESTIMATED.load(std::sync::atomic::Ordering::Relaxed)
}

/// The counter behind [`estimated_so_far`] (a statistic, not state).
static ESTIMATED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn note_estimated(n: usize) {
    ESTIMATED.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
}

/// The size of `session`'s context: as [`context_tokens`], but a usage
/// reported before the branch's latest context edit or compaction no
/// longer describes the context, which is then all estimated.
pub fn session_context_tokens(session: &Session) -> u64 {
    let ctx = session.context();
    note_estimated(ctx.messages.len());
    let Some(i) = ctx.messages.iter().rposition(|m| reported(m).is_some()) else {
        return estimate_all(&ctx.messages);
    };
    let branch = session.branch();
    let usage_at = ctx.entry_ids.get(i).and_then(|id| branch.iter().position(|e| e.id() == id));
    let invalidated_at = branch.iter().rposition(|e| matches!(e.kind(), "context_edit" | "compaction"));
    match (usage_at, invalidated_at) {
        (Some(u), Some(x)) if u < x => estimate_all(&ctx.messages),
        (None, Some(_)) => estimate_all(&ctx.messages),
        _ => context_tokens(&ctx.messages),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(text: &str) -> AgentMessage {
        AgentMessage::Llm(pi_ai::Message::User(pi_ai::UserMessage::text(text)))
    }

    #[test]
    fn characters_over_four_rounded_up() {
        assert_eq!(estimate(&user("one")), 1);
        assert_eq!(estimate(&user("12345678")), 2);
        assert_eq!(estimate(&user("123456789")), 3);
        assert_eq!(estimate(&user("")), 0);
    }

    #[test]
    fn utf16_units_are_counted_as_javascript_does() {
        // One astral character is two UTF-16 units.
        assert_eq!(js_len("😀"), 2);
        assert_eq!(estimate(&user("😀😀")), 1);
    }

    #[test]
    fn without_usage_everything_is_estimated() {
        assert_eq!(context_tokens(&[user("12345678"), user("1234")]), 3);
    }

    fn answer(total: u64) -> AgentMessage {
        let mut a = pi_ai::faux::assistant_message(vec![pi_ai::ContentBlock::text("answer")]);
        a.usage.total_tokens = total;
        AgentMessage::Llm(pi_ai::Message::Assistant(a))
    }

    /// The held estimate agrees with the one read from the session: a usage
    /// counts until a context edit or compaction comes after it.
    #[test]
    fn the_held_estimate_agrees_with_the_sessions() {
        let mut session = Session::in_memory();
        let mut held = Vec::new();
        for m in [user("hello there"), answer(1000), user("12345678")] {
            session.append_message(&m).unwrap();
            held.push(m);
        }
        assert_eq!(held_context_tokens(&held, &session), 1002);
        assert_eq!(held_context_tokens(&held, &session), session_context_tokens(&session));
        session.append("context_edit", serde_json::json!({"omit": []})).unwrap();
        let all = estimate_all(&held);
        assert_eq!(held_context_tokens(&held, &session), all);
        assert_eq!(session_context_tokens(&session), all);
        // A new answer with usage counts again.
        for m in [answer(2000), user("1234")] {
            session.append_message(&m).unwrap();
            held.push(m);
        }
        assert_eq!(held_context_tokens(&held, &session), 2001);
        assert_eq!(held_context_tokens(&held, &session), session_context_tokens(&session));
        // No answer at all: everything estimated.
        assert_eq!(held_context_tokens(&held[..1], &Session::in_memory()), estimate_all(&held[..1]));
    }
}
