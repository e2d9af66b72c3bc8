//! Whether a failed or cut answer means the context no longer fits: the
//! providers' own words for it (as the reference recognises them), a
//! successful answer whose input exceeds the window, or a `length` stop with
//! no output at a full window.

use std::sync::OnceLock;

use pi_ai::{AssistantMessage, StopReason};
use regex::RegexSet;

/// Error texts providers use for a context that does not fit.
const OVERFLOW: &[&str] = &[
    r"(?i)prompt (?:is )?too long",
    r"(?i)prompt exceeds max length",
    r"(?i)request_too_large",
    r"(?i)input is too long for requested model",
    r"(?i)exceeds the context window",
    r"(?i)exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))",
    r"(?i)context window exceeded",
    r"(?i)input token count.*exceeds the maximum",
    r"(?i)maximum prompt length is \d+",
    r"(?i)reduce the length of the messages",
    r"(?i)maximum context length is \d+ tokens",
    r"(?i)exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?",
    r"(?i)input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)",
    r"(?i)exceeds the limit of \d+",
    r"(?i)exceeds the available context size",
    r"(?i)greater than the context length",
    r"(?i)context window exceeds limit",
    r"(?i)exceeded model token limit",
    r"(?i)too large for model with \d+ maximum context length",
    r"(?i)prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?",
    r"(?i)model_context_window_exceeded",
    r"(?i)prompt too long; exceeded (?:max )?context length",
    r"(?i)range of input length should be",
    r"(?i)context[_ ]length[_ ]exceeded",
    r"(?i)too many tokens",
    r"(?i)token limit exceeded",
    r"(?i)^(?:[\w -]+ API error \(413\):|413(?:\s|:|$))",
];

/// Texts that look like overflow but are rate limits or outages.
const NOT_OVERFLOW: &[&str] =
    &[r"(?i)^(Throttling error|Service unavailable):", r"(?i)rate limit", r"(?i)too many requests"];

fn sets() -> &'static (Option<RegexSet>, Option<RegexSet>) {
    static SETS: OnceLock<(Option<RegexSet>, Option<RegexSet>)> = OnceLock::new();
    SETS.get_or_init(|| (RegexSet::new(OVERFLOW).ok(), RegexSet::new(NOT_OVERFLOW).ok()))
}

/// Whether `m` says the context did not fit a window of `window` tokens.
pub fn is_context_overflow(m: &AssistantMessage, window: u64) -> bool {
    if m.stop_reason == StopReason::Error
        && let Some(text) = &m.error_message
    {
        let (yes, no) = sets();
        let excluded = no.as_ref().is_some_and(|s| s.is_match(text));
        if !excluded && yes.as_ref().is_some_and(|s| s.is_match(text)) {
            return true;
        }
    }
    let input = m.usage.input + m.usage.cache_read;
    if window > 0 && m.stop_reason == StopReason::Stop && input > window {
        return true;
    }
    window > 0 && m.stop_reason == StopReason::Length && m.usage.output == 0 && input as f64 >= window as f64 * 0.99
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(text: &str) -> AssistantMessage {
        AssistantMessage { stop_reason: StopReason::Error, error_message: Some(text.into()), ..Default::default() }
    }

    #[test]
    fn provider_words_are_recognised_and_rate_limits_are_not() {
        for t in [
            "prompt is too long: 210000 tokens > 200000 maximum",
            "This model's maximum context length is 128000 tokens",
            "Your input exceeds the context window of this model",
            "context_length_exceeded",
            "413 Request Entity Too Large",
        ] {
            assert!(is_context_overflow(&failed(t), 0), "{t}");
        }
        for t in ["rate limit reached: too many tokens per minute", "500 internal error", "Too many requests"] {
            assert!(!is_context_overflow(&failed(t), 0), "{t}");
        }
        let mut silent = AssistantMessage { stop_reason: StopReason::Stop, ..Default::default() };
        silent.usage.input = 1001;
        assert!(is_context_overflow(&silent, 1000));
        assert!(!is_context_overflow(&silent, 0));
    }
}
