//! Retrying failed model requests (the `retry` settings).

use std::time::Duration;

/// The `retry` settings: enabled, attempts, base delay (doubling each time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetrySettings {
    /// Retry at all.
    pub enabled: bool,
    /// Most retries.
    pub max_retries: u32,
    /// Delay before the first retry; doubles each time.
    pub base_delay_ms: u64,
    /// Longest delay.
    pub max_delay_ms: u64,
}

impl Default for RetrySettings {
    fn default() -> Self {
        RetrySettings { enabled: true, max_retries: 3, base_delay_ms: 2000, max_delay_ms: 60_000 }
    }
}

impl RetrySettings {
    /// The delay before retry number `attempt` (1-based).
    pub fn delay_for(&self, attempt: u32) -> Duration {
        let factor = 1u64 << attempt.saturating_sub(1).min(20);
        Duration::from_millis(self.base_delay_ms.saturating_mul(factor).min(self.max_delay_ms))
    }
}

/// Whether a failure is worth retrying: rate limits, overload, server errors
/// and broken connections; not bad requests or authentication failures.
pub fn is_retryable(error: &str) -> bool {
    let e = error.to_ascii_lowercase();
    const MARKERS: &[&str] = &[
        "429",
        "500",
        "502",
        "503",
        "504",
        "529",
        "rate limit",
        "rate_limit",
        "too many requests",
        "overloaded",
        "service unavailable",
        "server error",
        "internal error",
        "connection",
        "network",
        "timed out",
        "timeout",
        "stream ended",
        "terminated",
        "reset",
    ];
    MARKERS.iter().any(|m| e.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_and_cap() {
        let r = RetrySettings::default();
        assert_eq!(r.delay_for(1), Duration::from_millis(2000));
        assert_eq!(r.delay_for(3), Duration::from_millis(8000));
        assert_eq!(r.delay_for(30), Duration::from_millis(60_000));
    }

    #[test]
    fn classification() {
        assert!(is_retryable("429 Too Many Requests"));
        assert!(is_retryable("Overloaded"));
        assert!(!is_retryable("401 Unauthorized: invalid api key"));
        assert!(!is_retryable("400 Bad Request"));
    }
}
