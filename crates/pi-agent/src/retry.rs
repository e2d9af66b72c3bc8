//! Retrying failed model requests (the `retry` settings). A failure is
//! retried by its kind ([`pi_ai::Failure`]: the HTTP status, a connection
//! failure, a timeout, a cut stream), never by the words of its message, and
//! after the wait the server asked for (`Retry-After`) when it asked for one.

use std::time::Duration;

use pi_ai::{Failure, FailureKind};

/// The default of `retry.provider.maxRetryDelayMs`: the longest wait a
/// server may ask for before a retry, in milliseconds.
pub const DEFAULT_MAX_RETRY_DELAY_MS: u64 = 60_000;

/// HTTP statuses worth another attempt besides the 5xx ones: 408 Request
/// Timeout and 429 Too Many Requests.
const RETRYABLE_CLIENT_STATUSES: [u16; 2] = [408, 429];

/// The `retry` settings: enabled, attempts, base delay (doubling each time),
/// and the limits of the delays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetrySettings {
    /// Retry at all.
    pub enabled: bool,
    /// Most retries.
    pub max_retries: u32,
    /// Delay before the first retry; doubles each time.
    pub base_delay_ms: u64,
    /// Longest delay of the doubling backoff (`retry.maxAgentDelayMs`).
    pub max_delay_ms: u64,
    /// Longest wait a server may ask for with `Retry-After`
    /// (`retry.provider.maxRetryDelayMs`); a longer one fails at once. `0`:
    /// no limit.
    pub max_retry_delay_ms: u64,
}

impl Default for RetrySettings {
    fn default() -> Self {
        RetrySettings {
            enabled: true,
            max_retries: 3,
            base_delay_ms: 2000,
            max_delay_ms: 60_000,
            max_retry_delay_ms: DEFAULT_MAX_RETRY_DELAY_MS,
        }
    }
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryDecision {
    /// Try again after this delay.
    Retry(Duration),
    /// Give up: retrying is off, the retries are used up, or the failure is
    /// not one that another attempt can mend.
    GiveUp,
    /// Give up at once: the server asked to wait this long, longer than
    /// [`RetrySettings::max_retry_delay_ms`].
    WaitTooLong(Duration),
}

impl RetrySettings {
    /// The backoff delay before retry number `attempt` (1-based).
    pub fn delay_for(&self, attempt: u32) -> Duration {
        let factor = 1u64 << attempt.saturating_sub(1).min(20);
        Duration::from_millis(self.base_delay_ms.saturating_mul(factor).min(self.max_delay_ms))
    }

    /// What to do after a failure (`None`: of no known kind) when
    /// `retries_done` retries were made already.
    pub fn decide(&self, failure: Option<&Failure>, retries_done: u32) -> RetryDecision {
        if !self.enabled || retries_done >= self.max_retries {
            return RetryDecision::GiveUp;
        }
        let Some(failure) = failure.filter(|f| is_retryable(f)) else {
            return RetryDecision::GiveUp;
        };
        match failure.retry_after {
            Some(wait) if self.max_retry_delay_ms > 0 && wait > Duration::from_millis(self.max_retry_delay_ms) => {
                RetryDecision::WaitTooLong(wait)
            }
            Some(wait) => RetryDecision::Retry(wait),
            None => RetryDecision::Retry(self.delay_for(retries_done + 1)),
        }
    }
}

/// Whether another attempt may succeed: a 408, 429 or 5xx status (answered,
/// or reported inside the stream), a connection failure, a timeout, a cut
/// stream; whatever the server said with `x-should-retry`. Not other
/// statuses (a bad request, a refused key), an account out of quota or
/// credit, nor a malformed answer.
pub fn is_retryable(failure: &Failure) -> bool {
    match failure.kind {
        FailureKind::Connection | FailureKind::Timeout | FailureKind::StreamCut => true,
        FailureKind::Status(s) | FailureKind::Reported(Some(s)) => {
            RETRYABLE_CLIENT_STATUSES.contains(&s) || (500..600).contains(&s)
        }
        FailureKind::Advised { retry, .. } => retry,
        FailureKind::Reported(None) | FailureKind::Other => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(s: u16) -> Failure {
        Failure::new(FailureKind::Status(s))
    }

    #[test]
    fn delays_double_and_cap() {
        let r = RetrySettings::default();
        assert_eq!(r.delay_for(1), Duration::from_millis(2000));
        assert_eq!(r.delay_for(3), Duration::from_millis(8000));
        assert_eq!(r.delay_for(30), Duration::from_millis(60_000));
    }

    #[test]
    fn classification_by_kind() {
        for s in [408, 429, 500, 502, 503, 504, 529, 599] {
            assert!(is_retryable(&status(s)), "{s}");
            assert!(is_retryable(&Failure::new(FailureKind::Reported(Some(s)))), "{s}");
        }
        for s in [400, 401, 403, 404, 409, 413, 422, 600] {
            assert!(!is_retryable(&status(s)), "{s}");
        }
        assert!(is_retryable(&Failure::new(FailureKind::Connection)));
        assert!(is_retryable(&Failure::new(FailureKind::Timeout)));
        assert!(is_retryable(&Failure::new(FailureKind::StreamCut)));
        assert!(!is_retryable(&Failure::new(FailureKind::Reported(None))));
        assert!(!is_retryable(&Failure::new(FailureKind::Other)));
        assert!(!is_retryable(&Failure::new(FailureKind::Advised { status: Some(429), retry: false })));
        assert!(is_retryable(&Failure::new(FailureKind::Advised { status: Some(400), retry: true })));
    }

    #[test]
    fn decisions() {
        let r = RetrySettings::default();
        let wait = |s: u64| Failure { kind: FailureKind::Status(429), retry_after: Some(Duration::from_secs(s)) };
        assert_eq!(r.decide(Some(&status(503)), 0), RetryDecision::Retry(Duration::from_millis(2000)));
        assert_eq!(r.decide(Some(&status(503)), 2), RetryDecision::Retry(Duration::from_millis(8000)));
        assert_eq!(r.decide(Some(&status(503)), 3), RetryDecision::GiveUp, "retries used up");
        assert_eq!(r.decide(Some(&status(400)), 0), RetryDecision::GiveUp);
        assert_eq!(r.decide(None, 0), RetryDecision::GiveUp);
        // The server's wait replaces the backoff, up to the limit (60 s).
        assert_eq!(r.decide(Some(&wait(1)), 0), RetryDecision::Retry(Duration::from_secs(1)));
        assert_eq!(r.decide(Some(&wait(60)), 2), RetryDecision::Retry(Duration::from_secs(60)));
        assert_eq!(r.decide(Some(&wait(61)), 0), RetryDecision::WaitTooLong(Duration::from_secs(61)));
        assert_eq!(r.decide(Some(&wait(3600)), 3), RetryDecision::GiveUp, "no retry was left anyway");
        // 0: no limit.
        let unlimited = RetrySettings { max_retry_delay_ms: 0, ..r };
        assert_eq!(unlimited.decide(Some(&wait(3600)), 0), RetryDecision::Retry(Duration::from_secs(3600)));
        // A wait on a failure not worth retrying changes nothing.
        let refused = Failure { kind: FailureKind::Status(401), retry_after: Some(Duration::from_secs(1)) };
        assert_eq!(r.decide(Some(&refused), 0), RetryDecision::GiveUp);
        let off = RetrySettings { enabled: false, ..r };
        assert_eq!(off.decide(Some(&wait(1)), 0), RetryDecision::GiveUp);
    }
}
