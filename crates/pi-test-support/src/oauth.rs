//! A mock OAuth server for the logins and token refreshes: point pi at it
//! with `PI_TEST_OAUTH_ORIGIN` ([`MockOAuth::origin`]); every endpoint
//! `https://HOST/PATH` then arrives here as `/HOST/PATH`.
//!
//! Token endpoints (paths ending in `/token`, `/oauth/token` and
//! `/access_token`) answer with the configured [`TokenAnswer`]; GitHub's
//! device-code endpoint and the Copilot token endpoint answer fixed tokens;
//! OpenAI Codex's device login answers "pending" (403) to the first poll,
//! then a code.
//! Every request is recorded.

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// What a token endpoint answers.
#[derive(Clone, Debug)]
pub enum TokenAnswer {
    /// 200 with these tokens (`expires_in` seconds).
    Tokens {
        /// `access_token`.
        access: String,
        /// `refresh_token`.
        refresh: String,
        /// `expires_in`.
        expires_in: u64,
    },
    /// An error status and body.
    Fail(u16, String),
}

/// A request the server received.
#[derive(Clone, Debug)]
pub struct OAuthRequest {
    /// `POST`, `GET`.
    pub method: String,
    /// `/HOST/PATH?QUERY`.
    pub path: String,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body as text.
    pub body: String,
}

struct Shared {
    answer: TokenAnswer,
    delay: Duration,
    requests: Vec<OAuthRequest>,
}

/// A running mock OAuth server (stops answering when dropped).
pub struct MockOAuth {
    port: u16,
    shared: Arc<Mutex<Shared>>,
}

impl MockOAuth {
    /// Start on `127.0.0.1` (random port), answering token requests with `answer`.
    pub fn start(answer: TokenAnswer) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("mock oauth: bind");
        let port = listener.local_addr().expect("mock oauth: addr").port();
        let shared = Arc::new(Mutex::new(Shared { answer, delay: Duration::ZERO, requests: Vec::new() }));
        let st = shared.clone();
        std::thread::spawn(move || {
            for sock in listener.incoming().flatten() {
                let st = st.clone();
                std::thread::spawn(move || serve(sock, &st));
            }
        });
        Self { port, shared }
    }

    /// The value for `PI_TEST_OAUTH_ORIGIN`.
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Answer token requests after `d` (to overlap concurrent refreshes).
    pub fn set_delay(&self, d: Duration) {
        self.shared.lock().unwrap().delay = d;
    }

    /// Everything received so far.
    pub fn requests(&self) -> Vec<OAuthRequest> {
        self.shared.lock().unwrap().requests.clone()
    }
}

fn read_request(sock: &mut TcpStream) -> Option<OAuthRequest> {
    sock.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        let n = sock.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
        if let Some(p) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let mut lines = head.lines();
    let mut first = lines.next()?.split_whitespace();
    let (method, path) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    while data.len() < head_end + len {
        let n = sock.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        data.extend_from_slice(&buf[..n]);
    }
    let body = String::from_utf8_lossy(&data[head_end..]).into_owned();
    Some(OAuthRequest { method, path, headers, body })
}

fn serve(mut sock: TcpStream, shared: &Mutex<Shared>) {
    let Some(req) = read_request(&mut sock) else { return };
    let (answer, delay) = {
        let mut st = shared.lock().unwrap();
        st.requests.push(req.clone());
        (st.answer.clone(), st.delay)
    };
    let path = req.path.split('?').next().unwrap_or("").to_string();
    let polls = shared.lock().unwrap().requests.iter().filter(|r| r.path.ends_with("/deviceauth/token")).count();
    let (status, body) = if path.ends_with("/deviceauth/usercode") {
        (200, json!({"device_auth_id": "DA-1", "user_code": "CODE-42", "interval": "1"}))
    } else if path.ends_with("/deviceauth/token") && polls < 2 {
        (403, json!({"error": "authorization_pending"}))
    } else if path.ends_with("/deviceauth/token") {
        (200, json!({"authorization_code": "DEV-AUTH-CODE", "code_verifier": "DEV-VERIFIER"}))
    } else if path.ends_with("/login/device/code") {
        (
            200,
            json!({"device_code": "DEV", "user_code": "ABCD-1234", "verification_uri": "https://github.com/login/device", "interval": 1, "expires_in": 60}),
        )
    } else if path.ends_with("/copilot_internal/v2/token") {
        (200, json!({"token": "tid=copilot;exp=1", "expires_at": 4_000_000_000u64}))
    } else if path.ends_with("/login/oauth/access_token") {
        (200, json!({"access_token": "ghu_GITHUB", "token_type": "bearer"}))
    } else if path.ends_with("/token") {
        std::thread::sleep(delay);
        match answer {
            TokenAnswer::Tokens { access, refresh, expires_in } => {
                (200, json!({"access_token": access, "refresh_token": refresh, "expires_in": expires_in}))
            }
            TokenAnswer::Fail(status, body) => (status, Value::String(body)),
        }
    } else {
        (404, json!({"error": "not found"}))
    };
    let text = match body {
        Value::String(s) => s,
        v => v.to_string(),
    };
    let reply = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        text.len()
    );
    let _ = sock.write_all(reply.as_bytes());
}
