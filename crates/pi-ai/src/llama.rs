//! The llama.cpp router's model API (`llama serve` without a model): list
//! the models it knows with their state, read a model's properties, load
//! and unload a model. Every answer is read in bounded memory
//! ([`ROUTER_BODY_LIMIT`]); the key, when any, goes as `Authorization: Bearer`.

use serde_json::Value;

/// The most bytes read from one router answer.
pub const ROUTER_BODY_LIMIT: usize = 4 * 1024 * 1024;

/// What went wrong talking to the router.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RouterError {
    /// No connection (refused, timed out, bad URL).
    #[error(
        "llama.cpp router at {url} is unreachable ({reason}). Start `llama serve` or set the URL with /login llama.cpp or LLAMA_BASE_URL."
    )]
    Unreachable {
        /// The router's URL.
        url: String,
        /// The transport's words.
        reason: String,
    },
    /// The router answered with an error status.
    #[error("llama.cpp returned HTTP {status}: {message}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The router's error message (or the start of its body).
        message: String,
    },
    /// The answer was not what the router API sends.
    #[error("llama.cpp sent an answer pi cannot read: {0}. Is the server in router mode (started without --model)?")]
    BadAnswer(String),
}

/// One model of the router's list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouterModel {
    /// The model's ID (what chat requests name).
    pub id: String,
    /// `loaded`, `sleeping`, `unloaded`, `loading`, `downloading`, …
    pub status: String,
    /// Where the router found it (`preset`, `cache`, …), when it says.
    pub source: Option<String>,
    /// The last load failed.
    pub failed: bool,
    /// The arguments the router starts it with (`-c 32768`, …).
    pub args: Vec<String>,
}

impl RouterModel {
    /// Loaded or sleeping: chat requests can use it now.
    pub fn usable(&self) -> bool {
        self.status == "loaded" || self.status == "sleeping"
    }
}

/// The router's model list (`GET {server}/models`).
pub async fn list_models(server: &str, key: Option<&str>) -> Result<Vec<RouterModel>, RouterError> {
    let answer = get(server, "/models", key).await?;
    parse_models(&answer)
}

/// A model's properties (`GET {server}/props?model=ID&autoload=false`).
pub async fn props(server: &str, key: Option<&str>, model: &str) -> Result<Value, RouterError> {
    let query = format!("/props?model={}&autoload=false", urlencode(model));
    get(server, &query, key).await
}

/// Ask the router to load `model` (`POST {server}/models/load`).
pub async fn load(server: &str, key: Option<&str>, model: &str) -> Result<(), RouterError> {
    post(server, "/models/load", key, model).await
}

/// Ask the router to unload `model` (`POST {server}/models/unload`).
pub async fn unload(server: &str, key: Option<&str>, model: &str) -> Result<(), RouterError> {
    post(server, "/models/unload", key, model).await
}

/// The models of a `GET /models` answer (`{"data": [{"id", "status": {"value"}}]}`);
/// entries without an ID or a state are skipped.
pub fn parse_models(answer: &Value) -> Result<Vec<RouterModel>, RouterError> {
    let Some(list) = answer.get("data").and_then(Value::as_array) else {
        return Err(RouterError::BadAnswer("no `data` list of models".into()));
    };
    Ok(list
        .iter()
        .filter_map(|m| {
            let status = m.get("status")?;
            Some(RouterModel {
                id: m.get("id")?.as_str()?.to_string(),
                status: status.get("value")?.as_str()?.to_string(),
                source: m.get("source").and_then(Value::as_str).map(String::from),
                failed: status.get("failed").and_then(Value::as_bool).unwrap_or(false),
                args: status
                    .get("args")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect())
                    .unwrap_or_default(),
            })
        })
        .collect())
}

fn urlencode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn request(builder: reqwest::RequestBuilder, key: Option<&str>) -> reqwest::RequestBuilder {
    match key {
        Some(k) => builder.bearer_auth(k),
        None => builder,
    }
}

async fn get(server: &str, path: &str, key: Option<&str>) -> Result<Value, RouterError> {
    let url = format!("{}{path}", server.trim_end_matches('/'));
    let client = crate::http::client().map_err(|e| unreachable(server, &e.to_string()))?;
    let resp = request(client.get(&url), key).send().await.map_err(|e| unreachable(server, &e.to_string()))?;
    read(server, resp).await
}

async fn post(server: &str, path: &str, key: Option<&str>, model: &str) -> Result<(), RouterError> {
    let url = format!("{}{path}", server.trim_end_matches('/'));
    let client = crate::http::client().map_err(|e| unreachable(server, &e.to_string()))?;
    let body = serde_json::json!({ "model": model }).to_string();
    let builder = client.post(&url).header("content-type", "application/json").body(body);
    let resp = request(builder, key).send().await.map_err(|e| unreachable(server, &e.to_string()))?;
    read(server, resp).await.map(|_| ())
}

fn unreachable(server: &str, reason: &str) -> RouterError {
    RouterError::Unreachable { url: server.to_string(), reason: reason.to_string() }
}

async fn read(server: &str, mut resp: reqwest::Response) -> Result<Value, RouterError> {
    let status = resp.status();
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| unreachable(server, &e.to_string()))? {
        if body.len() + chunk.len() > ROUTER_BODY_LIMIT {
            return Err(RouterError::BadAnswer(format!("the answer is longer than {ROUTER_BODY_LIMIT} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    let value: Option<Value> = serde_json::from_slice(&body).ok();
    if !status.is_success() {
        let message = value
            .as_ref()
            .and_then(|v| v.pointer("/error/message").or_else(|| v.get("error")))
            .and_then(Value::as_str)
            .map(String::from)
            .unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned());
        return Err(RouterError::Status { status: status.as_u16(), message });
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    value.ok_or_else(|| RouterError::BadAnswer("the answer is not JSON".into()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn reads_the_model_list_and_skips_bad_entries() {
        let v: Value = serde_json::from_str(
            r#"{"data":[{"id":"a","status":{"value":"loaded"}},{"id":"b","status":{"value":"unloaded","failed":true},"source":"preset"},{"id":3},{"status":{"value":"loaded"}}]}"#,
        )
        .unwrap();
        let m = parse_models(&v).unwrap();
        assert_eq!(m.len(), 2);
        assert!(m[0].usable() && !m[1].usable());
        assert_eq!((m[1].source.as_deref(), m[1].failed), (Some("preset"), true));
        assert!(matches!(parse_models(&serde_json::json!({"models": []})), Err(RouterError::BadAnswer(_))));
    }

    #[test]
    fn encodes_model_ids_in_queries() {
        assert_eq!(urlencode("org/m:Q4 K"), "org%2Fm%3AQ4%20K");
    }

    #[tokio::test]
    async fn an_unreachable_router_says_how_to_fix_it() {
        let e = list_models("http://127.0.0.1:1", None).await.unwrap_err();
        assert!(matches!(e, RouterError::Unreachable { .. }));
        assert!(e.to_string().contains("LLAMA_BASE_URL"), "{e}");
    }
}
