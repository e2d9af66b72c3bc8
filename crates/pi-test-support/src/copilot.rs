//! GitHub Copilot's token exchange on the mock server:
//! `GET …/copilot_internal/v2/token` answers with the next scripted
//! [`TokenAnswer`] (a fresh token valid for half an hour when none is left)
//! and is recorded like any request, without taking a model [`crate::Turn`].

use std::collections::VecDeque;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::json;

use crate::{MockServer, lock};

/// The path of the exchange (what `pi_ai::copilot::TOKEN_URL` ends with).
pub const TOKEN_PATH: &str = "/copilot_internal/v2/token";
/// How long a default token lives, in seconds.
const DEFAULT_LIFETIME_SECS: i64 = 1800;

/// One answer of the exchange.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenAnswer {
    /// `{token, expires_at}`: `token` is `tid=<tid>;exp=…;proxy-ep=proxy.<host>`
    /// and expires `lifetime_secs` from now (negative: already expired).
    Token {
        /// The token's `tid` field, to tell answers apart.
        tid: String,
        /// Seconds until `expires_at`.
        lifetime_secs: i64,
    },
    /// An error status with this body.
    Status(u16, String),
    /// A 200 with this body as it is (for malformed answers).
    Raw(String),
}

impl TokenAnswer {
    /// A token valid for `lifetime_secs` (negative: already expired).
    pub fn token(tid: &str, lifetime_secs: i64) -> Self {
        TokenAnswer::Token { tid: tid.to_string(), lifetime_secs }
    }

    /// The status and body of this answer.
    fn render(&self, host: &str) -> (u16, String) {
        match self {
            TokenAnswer::Token { tid, lifetime_secs } => {
                let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
                let expires_at = now + lifetime_secs;
                let token = format!("tid={tid};exp={expires_at};proxy-ep=proxy.{host};st=dotcom");
                (200, json!({"token": token, "expires_at": expires_at, "refresh_in": 1500}).to_string())
            }
            TokenAnswer::Status(code, body) => (*code, body.clone()),
            TokenAnswer::Raw(body) => (200, body.clone()),
        }
    }
}

/// The scripted answers of the exchange.
#[derive(Default)]
pub(crate) struct TokenScript(VecDeque<TokenAnswer>);

impl TokenScript {
    /// The status and body for the next exchange.
    pub(crate) fn next(&mut self) -> (u16, String) {
        let answer = self.0.pop_front().unwrap_or_else(|| TokenAnswer::token("mock", DEFAULT_LIFETIME_SECS));
        answer.render("mock.githubcopilot.test")
    }
}

/// Whether a request is a token exchange.
pub(crate) fn is_exchange(method: &str, path: &str) -> bool {
    method == "GET" && path.split('?').next().is_some_and(|p| p.ends_with(TOKEN_PATH))
}

impl MockServer {
    /// Queue answers of the Copilot token exchange.
    pub fn push_copilot_tokens(&self, answers: Vec<TokenAnswer>) {
        lock(&self.state).copilot.0.extend(answers);
    }

    /// The exchange URL of this server (for `PI_TEST_COPILOT_TOKEN_URL`).
    pub fn copilot_token_url(&self) -> String {
        format!("{}{TOKEN_PATH}", self.base_url())
    }

    /// How many token exchanges the server has answered.
    pub fn copilot_exchanges(&self) -> usize {
        lock(&self.state).requests.iter().filter(|r| is_exchange(&r.method, &r.path)).count()
    }
}
