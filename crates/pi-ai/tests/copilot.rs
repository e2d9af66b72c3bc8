//! GitHub Copilot's token exchange against the mock server: the request
//! GitHub gets, the cache, an expired token exchanged again, failures.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use pi_ai::copilot::{self, TokenError};
use pi_test_support::{MockServer, TokenAnswer};

#[tokio::test]
async fn the_exchange_sends_the_github_token_and_the_editor_headers() {
    let server = MockServer::start(vec![]);
    let token = copilot::exchange_at(&server.copilot_token_url(), "ghu_one", None).await.unwrap();
    assert!(token.token.starts_with("tid=mock;"), "{token:?}");
    assert_eq!(token.base_url, "https://api.mock.githubcopilot.test");
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    // 30 minutes, less the 5-minute margin.
    let left = token.expires_ms.saturating_sub(now_ms);
    assert!((24 * 60_000..=25 * 60_000).contains(&left), "{left}");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("GET", "/copilot_internal/v2/token"));
    assert_eq!(r.header("authorization"), Some("Bearer ghu_one"));
    assert_eq!(r.header("accept"), Some("application/json"));
    assert_eq!(r.header("user-agent"), Some("GitHubCopilotChat/0.35.0"));
    assert_eq!(r.header("editor-version"), Some("vscode/1.107.0"));
    assert_eq!(r.header("editor-plugin-version"), Some("copilot-chat/0.35.0"));
    assert_eq!(r.header("copilot-integration-id"), Some("vscode-chat"));
}

#[tokio::test]
async fn a_token_is_cached_until_it_expires() {
    let server = MockServer::start(vec![]);
    let url = server.copilot_token_url();
    server.push_copilot_tokens(vec![TokenAnswer::token("first", 1800), TokenAnswer::token("second", 1800)]);
    let a = copilot::cached_token_at(&url, "ghu_cache", None).await.unwrap();
    let b = copilot::cached_token_at(&url, "ghu_cache", None).await.unwrap();
    assert_eq!(a, b);
    assert!(a.token.starts_with("tid=first;"));
    assert_eq!(server.copilot_exchanges(), 1, "the second call is served from the cache");
    // Another GitHub token is another account.
    let c = copilot::cached_token_at(&url, "ghu_other", None).await.unwrap();
    assert!(c.token.starts_with("tid=second;"));
    assert_eq!(server.copilot_exchanges(), 2);
}

#[tokio::test]
async fn an_expired_token_is_exchanged_again() {
    let server = MockServer::start(vec![]);
    let url = server.copilot_token_url();
    // Four minutes left is inside the five-minute margin: expired at once.
    server.push_copilot_tokens(vec![TokenAnswer::token("short", 240), TokenAnswer::token("renewed", 1800)]);
    let a = copilot::cached_token_at(&url, "ghu_expiring", None).await.unwrap();
    assert!(a.token.starts_with("tid=short;"));
    let b = copilot::cached_token_at(&url, "ghu_expiring", None).await.unwrap();
    assert!(b.token.starts_with("tid=renewed;"), "{b:?}");
    let c = copilot::cached_token_at(&url, "ghu_expiring", None).await.unwrap();
    assert_eq!(b, c);
    assert_eq!(server.copilot_exchanges(), 2);
}

#[tokio::test]
async fn a_failed_exchange_says_why_and_what_to_do() {
    let server = MockServer::start(vec![]);
    let url = server.copilot_token_url();
    server.push_copilot_tokens(vec![
        TokenAnswer::Status(401, r#"{"message":"Bad credentials"}"#.into()),
        TokenAnswer::Raw("<html>".into()),
        TokenAnswer::Raw(r#"{"token":"t"}"#.into()),
        TokenAnswer::token("ok", 1800),
    ]);
    let err = copilot::cached_token_at(&url, "ghu_bad", None).await.unwrap_err();
    assert_eq!(
        err,
        TokenError::Status {
            status: 401,
            reason: "Unauthorized".into(),
            body: r#"{"message":"Bad credentials"}"#.into()
        }
    );
    assert_eq!(
        err.message(),
        r#"OAuth refresh failed for github-copilot: 401 Unauthorized: {"message":"Bad credentials"}. Sign in again with /login github-copilot."#
    );
    let err = copilot::cached_token_at(&url, "ghu_bad", None).await.unwrap_err();
    assert_eq!(err.to_string(), "Invalid Copilot token response");
    let err = copilot::cached_token_at(&url, "ghu_bad", None).await.unwrap_err();
    assert_eq!(err.to_string(), "Invalid Copilot token response fields");
    // Nothing failed was kept: the next call exchanges and succeeds.
    assert!(copilot::cached_token_at(&url, "ghu_bad", None).await.unwrap().token.starts_with("tid=ok;"));
    assert_eq!(server.copilot_exchanges(), 4);

    // No server at all.
    let port = server.port();
    drop(server);
    let err = copilot::exchange_at(&format!("http://127.0.0.1:{port}/copilot_internal/v2/token"), "ghu_x", None)
        .await
        .unwrap_err();
    assert!(matches!(err, TokenError::Transport(_)), "{err:?}");
    assert!(
        err.message().starts_with("OAuth refresh failed for github-copilot: Connection error."),
        "{}",
        err.message()
    );
}
