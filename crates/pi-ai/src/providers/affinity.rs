//! Session-affinity headers: how a request tells a server (or a gateway
//! routing to a replica with the prompt cache) which session it belongs to.

use crate::compat::SessionAffinityFormat;
use crate::model::{Model, StreamOptions};

/// OpenRouter, by provider id or host: gets the session headers by default,
/// in its own format.
const OPENROUTER: (&str, &str) = ("openrouter", "openrouter.ai");

/// The wire API a request is for (each names the headers its own way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Api {
    /// Chat Completions.
    Completions,
    /// Responses (always sends them).
    Responses,
    /// Anthropic Messages.
    Anthropic,
}

/// The session headers of a request (none without a session id, or where
/// the model's `compat` does not send them).
pub(crate) fn headers(model: &Model, options: &StreamOptions, api: Api) -> Vec<(&'static str, String)> {
    let Some(sid) = options.session_id.as_deref().filter(|s| !s.is_empty()) else { return Vec::new() };
    let c = &model.compat.session;
    let openrouter = model.provider == OPENROUTER.0 || model.base_url.contains(OPENROUTER.1);
    let send = api == Api::Responses || c.send_session_affinity_headers.unwrap_or(openrouter);
    if !send {
        return Vec::new();
    }
    let format = c.session_affinity_format.unwrap_or(if openrouter {
        SessionAffinityFormat::Openrouter
    } else {
        SessionAffinityFormat::Openai
    });
    let names: &[&'static str] = match (format, api) {
        (SessionAffinityFormat::Openrouter, _) => &["x-session-id"],
        (_, Api::Anthropic) => &["x-session-affinity"],
        (SessionAffinityFormat::OpenaiNosession, Api::Responses) => &["x-client-request-id"],
        (SessionAffinityFormat::OpenaiNosession, Api::Completions) => &["x-client-request-id", "x-session-affinity"],
        (_, Api::Responses) => &["session-id", "x-client-request-id"],
        (_, Api::Completions) => &["session_id", "x-client-request-id", "x-session-affinity"],
    };
    names.iter().map(|n| (*n, sid.to_string())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(model: &Model, api: Api) -> Vec<&'static str> {
        let options = StreamOptions { session_id: Some("s".into()), ..Default::default() };
        headers(model, &options, api).into_iter().map(|(n, _)| n).collect()
    }

    /// Each expectation as the reference sent it.
    #[test]
    fn headers_by_api_and_format() {
        let mut m = Model { provider: "p".into(), base_url: "http://127.0.0.1:1/v1".into(), ..Default::default() };
        assert!(names(&m, Api::Completions).is_empty());
        assert!(names(&m, Api::Anthropic).is_empty());
        assert_eq!(names(&m, Api::Responses), ["session-id", "x-client-request-id"]);
        m.compat.session.send_session_affinity_headers = Some(true);
        assert_eq!(names(&m, Api::Completions), ["session_id", "x-client-request-id", "x-session-affinity"]);
        assert_eq!(names(&m, Api::Anthropic), ["x-session-affinity"]);
        m.compat.session.session_affinity_format = Some(SessionAffinityFormat::OpenaiNosession);
        assert_eq!(names(&m, Api::Completions), ["x-client-request-id", "x-session-affinity"]);
        assert_eq!(names(&m, Api::Responses), ["x-client-request-id"]);
        m.compat.session.session_affinity_format = Some(SessionAffinityFormat::Openrouter);
        for api in [Api::Completions, Api::Responses, Api::Anthropic] {
            assert_eq!(names(&m, api), ["x-session-id"]);
        }
        let or = Model { provider: "openrouter".into(), ..Default::default() };
        assert_eq!(names(&or, Api::Completions), ["x-session-id"], "OpenRouter by default");
        let none = StreamOptions::default();
        assert!(headers(&or, &none, Api::Completions).is_empty(), "no session, no headers");
    }
}
