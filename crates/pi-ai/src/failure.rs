//! Why a request failed, in terms a retry policy can decide by: the HTTP
//! status, the kind of transport failure, and the wait the server asked for.
//! (The message text is for people; nothing should be decided by its words.)

use std::time::{Duration, SystemTime};

/// What ended a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The server answered with this HTTP error status.
    Status(u16),
    /// The server reported an error inside a stream it had accepted, with the
    /// HTTP status its error type stands for when it names one (Anthropic's
    /// `overloaded_error` is 529, OpenAI's `server_error` 500, a gateway's
    /// numeric `code` is taken as it is).
    Reported(Option<u16>),
    /// No answer: the connection was refused, the name did not resolve, the
    /// TLS handshake or the request failed before a status came back.
    Connection,
    /// The server stayed silent for longer than the read timeout.
    Timeout,
    /// The answer stopped part-way: the connection dropped in the middle of
    /// the body, or the stream ended without its final event.
    StreamCut,
    /// Anything else: a malformed answer, an invalid header, an unsupported
    /// API, a scripted failure.
    Other,
    /// An error (with the HTTP status it came with, when any) on whose retry
    /// the server or the error itself decided: an `x-should-retry: true` or
    /// `false` header (as the OpenAI and Anthropic clients obey it), or an
    /// account out of quota or credit ([`is_quota_error`]), never retried.
    Advised {
        /// The answer's status, or the one a reported error names.
        status: Option<u16>,
        /// Whether another attempt may succeed.
        retry: bool,
    },
}

/// The header by which a server says whether to retry (`true`/`false`).
pub const SHOULD_RETRY_HEADER: &str = "x-should-retry";

/// Words that mark an error as an account out of quota or credit, looked
/// for without regard to case in the error's text: the reference decides
/// these by the words (OpenAI's `insufficient_quota` code, Anthropic's
/// `billing_error` type, gateways' `quota exceeded`), so pi does too.
const QUOTA_WORDS: [&str; 3] = ["insufficient_quota", "billing", "quota exceeded"];

/// Whether an error's text says the account is out of quota or credit
/// (retrying cannot help; see [`QUOTA_WORDS`]).
pub fn is_quota_error(text: &str) -> bool {
    let lower = text.to_lowercase();
    QUOTA_WORDS.iter().any(|w| lower.contains(w))
}

impl FailureKind {
    /// This kind as the server or the error's words advise: a quota error is
    /// never retried, else an `x-should-retry` value decides; other kinds
    /// stay as they are.
    pub fn advised(self, should_retry: Option<bool>, text: &str) -> FailureKind {
        let status = match self {
            FailureKind::Status(s) => Some(s),
            FailureKind::Reported(s) => s,
            FailureKind::Advised { status, .. } => status,
            other => return other,
        };
        if is_quota_error(text) {
            return FailureKind::Advised { status, retry: false };
        }
        match should_retry {
            Some(retry) => FailureKind::Advised { status, retry },
            None => self,
        }
    }
}

/// A failed request's kind, and how long the server asked to wait before
/// trying again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What ended the request.
    pub kind: FailureKind,
    /// The server's `retry-after-ms` or `Retry-After` (seconds or an HTTP
    /// date), when an error answer carried one.
    pub retry_after: Option<Duration>,
}

impl Failure {
    /// A failure of this kind, without a requested wait.
    pub fn new(kind: FailureKind) -> Self {
        Failure { kind, retry_after: None }
    }

    /// The HTTP status the failure stands for: the answer's, or the one a
    /// reported error names.
    pub fn status(&self) -> Option<u16> {
        match self.kind {
            FailureKind::Status(s) | FailureKind::Reported(Some(s)) => Some(s),
            FailureKind::Advised { status, .. } => status,
            _ => None,
        }
    }
}

/// Parse a `Retry-After` value: a number of seconds (fractions allowed, as
/// the OpenAI and Anthropic clients read it) or an HTTP date, measured from
/// `now` (a date already past is no wait). `None` when it is neither.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return seconds_to_duration(seconds);
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Parse a `retry-after-ms` value (milliseconds, fractions allowed).
pub fn parse_retry_after_ms(value: &str) -> Option<Duration> {
    let ms = value.trim().parse::<f64>().ok()?;
    seconds_to_duration(ms / 1000.0)
}

/// A finite number of seconds as a wait: negative is none, too many to hold
/// is the longest there is. `NaN` and infinities are no value.
fn seconds_to_duration(seconds: f64) -> Option<Duration> {
    if !seconds.is_finite() {
        return None;
    }
    Some(Duration::try_from_secs_f64(seconds.max(0.0)).unwrap_or(Duration::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_as_seconds_or_a_date() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        let at = |v: &str| parse_retry_after(v, now);
        assert_eq!(at("1"), Some(Duration::from_secs(1)));
        assert_eq!(at(" 3600 "), Some(Duration::from_secs(3600)));
        assert_eq!(at("1.5"), Some(Duration::from_millis(1500)));
        assert_eq!(at("0"), Some(Duration::ZERO));
        assert_eq!(at("-5"), Some(Duration::ZERO));
        // The three date formats HTTP allows.
        assert_eq!(at("Sun, 06 Nov 1994 08:50:07 GMT"), Some(Duration::from_secs(30)));
        assert_eq!(at("Sunday, 06-Nov-94 08:50:07 GMT"), Some(Duration::from_secs(30)));
        assert_eq!(at("Sun Nov  6 08:50:07 1994"), Some(Duration::from_secs(30)));
        assert_eq!(at("Sun, 06 Nov 1994 08:00:00 GMT"), Some(Duration::ZERO), "a date already past");
        assert_eq!(at("soon"), None);
        assert_eq!(at(""), None);
        assert_eq!(at("1e300"), Some(Duration::MAX), "longer than anyone waits");
        assert_eq!(at("1e400"), None, "not a finite number");
        assert_eq!(at("NaN"), None);
        assert_eq!(parse_retry_after_ms("250"), Some(Duration::from_millis(250)));
        assert_eq!(parse_retry_after_ms("x"), None);
    }

    #[test]
    fn the_status_a_failure_stands_for() {
        assert_eq!(Failure::new(FailureKind::Status(429)).status(), Some(429));
        assert_eq!(Failure::new(FailureKind::Reported(Some(529))).status(), Some(529));
        assert_eq!(Failure::new(FailureKind::Reported(None)).status(), None);
        assert_eq!(Failure::new(FailureKind::StreamCut).status(), None);
        assert_eq!(Failure::new(FailureKind::Advised { status: Some(429), retry: false }).status(), Some(429));
    }

    #[test]
    fn quota_words_and_the_servers_say() {
        let q = FailureKind::Advised { status: Some(429), retry: false };
        assert_eq!(FailureKind::Status(429).advised(None, r#"{"code":"insufficient_quota"}"#), q);
        assert_eq!(FailureKind::Status(429).advised(Some(true), "BILLING problem"), q, "quota wins over the header");
        assert_eq!(FailureKind::Status(429).advised(None, "Quota exceeded for today"), q);
        assert_eq!(FailureKind::Status(429).advised(None, "You exceeded your current quota"), FailureKind::Status(429));
        assert_eq!(
            FailureKind::Status(429).advised(Some(false), "slow down"),
            FailureKind::Advised { status: Some(429), retry: false }
        );
        assert_eq!(
            FailureKind::Status(400).advised(Some(true), "bad"),
            FailureKind::Advised { status: Some(400), retry: true }
        );
        assert_eq!(
            FailureKind::Reported(None).advised(None, "billing"),
            FailureKind::Advised { status: None, retry: false }
        );
        assert_eq!(FailureKind::StreamCut.advised(Some(false), "billing"), FailureKind::StreamCut);
    }
}
