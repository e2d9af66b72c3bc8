//! Test helpers for pi: a scripted mock model server.
//!
//! [`MockServer::start`] listens on `127.0.0.1` (a random port) on its own
//! thread with its own tokio runtime, so plain `#[test]`s and `#[tokio::test]`s
//! can both use it, and a `pi` child process can talk to it. It speaks the
//! streaming protocols of
//!
//! * OpenAI Chat Completions: `POST …/chat/completions`
//! * OpenAI Responses: `POST …/responses`
//! * Anthropic Messages: `POST …/messages`
//! * Google Gemini (Generative AI and Vertex AI): `POST …:streamGenerateContent`,
//!   and a Google OAuth token endpoint, `POST …/token` (see [`gemini`])
//! * Amazon Bedrock ConverseStream: `POST …/model/{id}/converse-stream`, over
//!   HTTP/2 without TLS, as the AWS SDK sends it (see [`eventstream`] for the
//!   binary frames; `Turn::raw_frames` sends hand-made ones)
//! * Mistral: `POST /mistral/…/chat/completions` (see [`mistral`])
//! * GitHub Copilot's token exchange: `GET …/copilot_internal/v2/token`
//!   (answers scripted apart, see [`MockServer::push_copilot_tokens`])
//!
//! (chosen by the path's ending, so `/v1/messages` and `/v1/v1/messages` both
//! work). Azure OpenAI Responses posts to `…/responses?api-version=…` and gets
//! the Responses stream. Each request takes the next [`Turn`] of the script: text, thinking,
//! tool calls (arguments as JSON or raw text, so malformed JSON can be sent),
//! an HTTP error status with a body, a stream cut mid-way, a delay or a stall,
//! and hostile shapes (text and arguments in deltas of a few bytes, a raw SSE
//! body of any size).
//! Every request is recorded ([`MockServer::requests`]). When the script is
//! used up the server answers `400` with the error message
//! [`SCRIPT_EXHAUSTED`] (400, so that agents do not retry it).
//!
//! ```
//! use pi_test_support::{MockServer, Turn};
//! let server = MockServer::start(vec![Turn::text("hello")]);
//! let dir = std::env::temp_dir().join(format!("pi-mock-doc-{}", std::process::id()));
//! let path = server.write_models_json(&dir, "openai-completions");
//! assert!(std::fs::read_to_string(path).unwrap().contains(&server.base_url()));
//! # std::fs::remove_dir_all(&dir).ok();
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)] // test support: a failure here is a failed test
#![deny(missing_docs)]

mod copilot;
pub mod eventstream;
pub mod folders;
pub mod gemini;
mod h2;
mod json_lines;
pub mod mistral;
pub mod oauth;
mod scratch;
pub mod sources;
pub use copilot::{TOKEN_PATH as COPILOT_TOKEN_PATH, TokenAnswer};
pub use json_lines::{read_until, user_texts};
pub use scratch::Scratch;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The error message of the answer when no scripted turn is left.
pub const SCRIPT_EXHAUSTED: &str = "mock server: no scripted turn left";

/// The largest HTTP chunk of a streamed answer.
const HTTP_CHUNK_BYTES: usize = 16 * 1024;

/// Input tokens reported by every successful turn.
pub const USAGE_INPUT: u64 = 10;
/// Output tokens reported by every successful turn.
pub const USAGE_OUTPUT: u64 = 5;

/// Arguments of a scripted tool call.
#[derive(Clone, Debug, PartialEq)]
pub enum Args {
    /// Sent as `value.to_string()`.
    Json(Value),
    /// Sent exactly as given (may be malformed JSON).
    Raw(String),
}

impl Args {
    fn text(&self) -> String {
        match self {
            Args::Json(v) => v.to_string(),
            Args::Raw(s) => s.clone(),
        }
    }
}

/// One scripted tool call.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCallSpec {
    /// The tool name.
    pub name: String,
    /// The arguments.
    pub args: Args,
    /// The call id; defaults to `call_<turn>_<k>` (`toolu_<turn>_<k>` on Anthropic).
    pub id: Option<String>,
}

impl ToolCallSpec {
    /// A call with JSON arguments.
    pub fn new(name: &str, args: Value) -> Self {
        ToolCallSpec { name: name.into(), args: Args::Json(args), id: None }
    }

    /// A call whose argument text is sent as is.
    pub fn raw(name: &str, args: &str) -> Self {
        ToolCallSpec { name: name.into(), args: Args::Raw(args.into()), id: None }
    }

    /// Set the call id.
    pub fn with_id(mut self, id: &str) -> Self {
        self.id = Some(id.into());
        self
    }
}

/// What the server does with one request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Turn {
    /// Reasoning text, streamed first.
    pub thinking: Option<String>,
    /// Answer text.
    pub text: Option<String>,
    /// Tool calls, after the text.
    pub tool_calls: Vec<ToolCallSpec>,
    /// Answer with this HTTP status and body instead of a stream.
    pub status: Option<(u16, String)>,
    /// Extra response headers (for `status` answers, e.g. `retry-after`).
    pub headers: Vec<(String, String)>,
    /// Close the connection after half of the events (no proper end).
    pub cut: bool,
    /// Send the first events, then stall until the client goes away.
    pub stall: bool,
    /// Wait this long before answering.
    pub delay: Duration,
    /// Send this raw SSE body instead of generated events.
    pub raw_sse: Option<String>,
    /// Stream text, thinking and tool arguments in deltas of at most this
    /// many bytes (cut at character boundaries) instead of two halves.
    pub delta_bytes: Option<usize>,
    /// Bedrock: send these event-stream bytes instead of generated frames.
    pub raw_frames: Option<Vec<u8>>,
}

impl Turn {
    /// Bedrock: answer with these event-stream bytes (see [`eventstream`]).
    pub fn raw_frames(bytes: Vec<u8>) -> Self {
        Turn { raw_frames: Some(bytes), ..Default::default() }
    }

    /// Answer with text.
    pub fn text(s: &str) -> Self {
        Turn { text: Some(s.into()), ..Default::default() }
    }

    /// Reason, then answer with text.
    pub fn thinking(thinking: &str, text: &str) -> Self {
        Turn { thinking: Some(thinking.into()), text: Some(text.into()), ..Default::default() }
    }

    /// Call one tool with JSON arguments.
    pub fn tool(name: &str, args: Value) -> Self {
        Turn::tools(vec![ToolCallSpec::new(name, args)])
    }

    /// Call one tool with raw argument text (may be malformed).
    pub fn tool_raw(name: &str, args: &str) -> Self {
        Turn::tools(vec![ToolCallSpec::raw(name, args)])
    }

    /// Call several tools in one turn.
    pub fn tools(calls: Vec<ToolCallSpec>) -> Self {
        Turn { tool_calls: calls, ..Default::default() }
    }

    /// Answer with an HTTP status and body.
    pub fn status(code: u16, body: &str) -> Self {
        Turn { status: Some((code, body.into())), ..Default::default() }
    }

    /// Answer with an HTTP status and the body `{"error":{"message":<message>}}`.
    pub fn error(code: u16, message: &str) -> Self {
        Turn::status(code, &json!({"error": {"message": message}}).to_string())
    }

    /// Send a raw SSE body (with `content-type: text/event-stream`).
    pub fn raw_sse(body: &str) -> Self {
        Turn { raw_sse: Some(body.into()), ..Default::default() }
    }

    /// Also stream this text (before the tool calls).
    pub fn with_text(mut self, s: &str) -> Self {
        self.text = Some(s.into());
        self
    }

    /// Add a response header.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Cut the stream mid-way: half the events, then the connection closes
    /// without the end of the chunked body.
    pub fn cut(mut self) -> Self {
        self.cut = true;
        self
    }

    /// Send the first events, then nothing until the client disconnects.
    pub fn stall(mut self) -> Self {
        self.stall = true;
        self
    }

    /// Wait before answering.
    pub fn delay(mut self, d: Duration) -> Self {
        self.delay = d;
        self
    }

    /// Stream text, thinking and tool arguments in deltas of at most `n`
    /// bytes (one event each), as a model streaming token by token does.
    pub fn in_deltas_of(mut self, n: usize) -> Self {
        self.delta_bytes = Some(n.max(1));
        self
    }

    /// The pieces `s` is streamed in.
    pub(crate) fn pieces(&self, s: &str) -> Vec<String> {
        match self.delta_bytes {
            Some(n) => pieces_of(s, n),
            None => halves(s),
        }
    }
}

/// A request the server received.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedRequest {
    /// `POST`, ...
    pub method: String,
    /// The path with its query.
    pub path: String,
    /// Headers in arrival order, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`Null` when it is not JSON; a zstd body,
    /// `content-encoding: zstd`, is decoded first).
    pub body: Value,
    /// The body as text.
    pub raw_body: String,
}

impl RecordedRequest {
    /// The first value of a header (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct State {
    turns: VecDeque<Turn>,
    requests: Vec<RecordedRequest>,
    served: usize,
    copilot: copilot::TokenScript,
}

/// A running mock model server; stops when dropped.
pub struct MockServer {
    port: u16,
    state: Arc<Mutex<State>>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

fn lock(m: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl MockServer {
    /// Start a server on `127.0.0.1` with a random port, on its own thread.
    ///
    /// # Panics
    /// When no local port can be bound or no thread started (a broken test
    /// machine).
    pub fn start(script: Vec<Turn>) -> MockServer {
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("mock server: bind 127.0.0.1:0");
        std_listener.set_nonblocking(true).expect("mock server: set_nonblocking");
        let port = std_listener.local_addr().expect("mock server: local_addr").port();
        let state = Arc::new(Mutex::new(State { turns: script.into(), ..Default::default() }));
        let (tx, mut rx) = tokio::sync::oneshot::channel::<()>();
        let st = state.clone();
        let thread = std::thread::Builder::new()
            .name(format!("pi-mock-server-{port}"))
            .spawn(move || {
                let rt =
                    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("mock server: runtime");
                rt.block_on(async move {
                    let Ok(listener) = TcpListener::from_std(std_listener) else {
                        return;
                    };
                    loop {
                        tokio::select! {
                            _ = &mut rx => break,
                            acc = listener.accept() => {
                                if let Ok((sock, _)) = acc {
                                    tokio::spawn(handle(sock, st.clone()));
                                }
                            }
                        }
                    }
                });
            })
            .expect("mock server: thread");
        MockServer { port, state, shutdown: Some(tx), thread: Some(thread) }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// Add turns to the end of the script.
    pub fn push(&self, turns: Vec<Turn>) {
        lock(&self.state).turns.extend(turns);
    }

    /// How many scripted turns are left.
    pub fn remaining(&self) -> usize {
        lock(&self.state).turns.len()
    }

    /// Wait until at least `n` requests arrived; false on timeout.
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        let end = Instant::now() + timeout;
        while Instant::now() < end {
            if lock(&self.state).requests.len() >= n {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        lock(&self.state).requests.len() >= n
    }

    /// Write `<agent_dir>/models.json` declaring provider `mock` with model
    /// `mock-1` on this server (`baseUrl` `<base_url>/v1`, `apiKey` `x`), and
    /// return its path. `api` is `openai-completions`, `openai-responses`,
    /// `anthropic-messages`, `azure-openai-responses` or `mistral-conversations`
    /// (whose `baseUrl` is `<base_url>/mistral`, see [`mistral`]). (Anthropic clients append `/v1/messages`, so they
    /// post to `/v1/v1/messages`, as the reference does with this file; the
    /// server accepts it.)
    ///
    /// # Panics
    /// When the file cannot be written.
    pub fn write_models_json(&self, agent_dir: &Path, api: &str) -> PathBuf {
        self.write_models_json_with(agent_dir, api, json!({}))
    }

    /// Like [`write_models_json`](Self::write_models_json), merging `model_extra`
    /// (e.g. `{"reasoning": true, "input": ["text","image"]}`) into the model entry.
    ///
    /// # Panics
    /// When the file cannot be written.
    pub fn write_models_json_with(&self, agent_dir: &Path, api: &str, model_extra: Value) -> PathBuf {
        let mut model = json!({"id": "mock-1"});
        if let (Some(m), Some(extra)) = (model.as_object_mut(), model_extra.as_object()) {
            for (k, v) in extra {
                m.insert(k.clone(), v.clone());
            }
        }
        let base = if api == "mistral-conversations" { mistral::BASE_PATH } else { "/v1" };
        let doc = json!({"providers": {"mock": {
            "baseUrl": format!("{}{base}", self.base_url()),
            "api": api,
            "apiKey": "x",
            "models": [model],
        }}});
        std::fs::create_dir_all(agent_dir).expect("mock server: create agent dir");
        let path = agent_dir.join("models.json");
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap_or_default())
            .expect("mock server: write models.json");
        path
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Read one HTTP/1.1 request: (method, path, headers, body).
async fn read_request(sock: &mut TcpStream) -> Option<(String, String, Vec<(String, String)>, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    let head_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split_whitespace();
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = buf[head_end + 4..].to_vec();
    let get = |name: &str| headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        // Read to the terminating chunk, then decode.
        while !body.windows(5).any(|w| w == b"0\r\n\r\n") {
            let n = sock.read(&mut tmp).await.ok()?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&tmp[..n]);
        }
        body = decode_chunked(&body);
    } else {
        let len: usize = get("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
        while body.len() < len {
            let n = sock.read(&mut tmp).await.ok()?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&tmp[..n]);
        }
        body.truncate(len);
    }
    Some((method, path, headers, body))
}

fn decode_chunked(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(p) = data.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&data[..p]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16).unwrap_or(0);
        data = &data[p + 2..];
        if size == 0 || data.len() < size {
            break;
        }
        out.extend_from_slice(&data[..size]);
        data = data.get(size + 2..).unwrap_or(&[]);
    }
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Api {
    Completions,
    Mistral,
    Responses,
    Anthropic,
    Gemini,
}

async fn handle(mut sock: TcpStream, state: Arc<Mutex<State>>) {
    if h2::starts_with_preface(&sock).await {
        return h2::serve(sock, state).await;
    }
    let Some((method, path, headers, body)) = read_request(&mut sock).await else {
        return;
    };
    let zstd = headers.iter().any(|(k, v)| k == "content-encoding" && v.trim().eq_ignore_ascii_case("zstd"));
    let body = if zstd { decode_zstd(&body).unwrap_or(body) } else { body };
    let raw_body = String::from_utf8_lossy(&body).into_owned();
    if copilot::is_exchange(&method, &path) {
        let (code, answer) = {
            let mut st = lock(&state);
            st.requests.push(RecordedRequest { method, path, headers, body: Value::Null, raw_body });
            st.copilot.next()
        };
        write_plain(&mut sock, code, &[], &answer).await;
        return;
    }
    let (turn, index) = {
        let mut st = lock(&state);
        st.requests.push(RecordedRequest {
            method,
            path: path.clone(),
            headers,
            body: serde_json::from_str(&raw_body).unwrap_or(Value::Null),
            raw_body,
        });
        let i = st.served;
        st.served += 1;
        (st.turns.pop_front(), i)
    };
    let route = path.split('?').next().unwrap_or("");
    let api = if mistral::is_mistral(route) {
        Api::Mistral
    } else if route.ends_with("/chat/completions") {
        Api::Completions
    } else if route.ends_with("/responses") {
        Api::Responses
    } else if route.ends_with("/messages") {
        Api::Anthropic
    } else if gemini::is_stream_path(route) {
        Api::Gemini
    } else if gemini::is_token_path(route) {
        // A token, unless the script's next turn is an error answer (then that one).
        let (code, body) = match turn {
            Some(Turn { status: Some(answer), .. }) => answer,
            other => {
                if let Some(t) = other {
                    lock(&state).turns.push_front(t);
                }
                (200, gemini::token_answer(index))
            }
        };
        write_plain(&mut sock, code, &[], &body).await;
        return;
    } else {
        let body = json!({"error": {"message": format!("mock server: unknown path {path}")}});
        write_plain(&mut sock, 404, &[], &body.to_string()).await;
        return;
    };
    let Some(turn) = turn else {
        let body = json!({"error": {"message": SCRIPT_EXHAUSTED}});
        write_plain(&mut sock, 400, &[], &body.to_string()).await;
        return;
    };
    if !turn.delay.is_zero() {
        tokio::time::sleep(turn.delay).await;
    }
    if let Some((code, body)) = &turn.status {
        write_plain(&mut sock, *code, &turn.headers, body).await;
        return;
    }
    let events = match &turn.raw_sse {
        Some(raw) => vec![raw.clone()],
        None => match api {
            Api::Completions => completions_events(&turn, index),
            Api::Mistral => mistral::events(&turn, index),
            Api::Responses => responses_events(&turn, index),
            Api::Anthropic => anthropic_events(&turn, index),
            Api::Gemini => gemini::events(&turn, index),
        },
    };
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
    if sock.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    let upto = if turn.cut || turn.stall { events.len().div_ceil(2).max(1).min(events.len()) } else { events.len() };
    // Events go out in HTTP chunks of at most HTTP_CHUNK_BYTES: small ones
    // together (a stream of tiny deltas would otherwise cost one write each),
    // a long one in several pieces, as a server flushing while it generates
    // sends it (the client sees each chunk as it comes).
    let mut batch: Vec<u8> = Vec::new();
    for (k, ev) in events[..upto].iter().enumerate() {
        batch.extend_from_slice(ev.as_bytes());
        let last = k + 1 == upto;
        if batch.len() < HTTP_CHUNK_BYTES && !last {
            continue;
        }
        let mut out = Vec::with_capacity(batch.len() + batch.len() / HTTP_CHUNK_BYTES * 12 + 12);
        for piece in batch.chunks(HTTP_CHUNK_BYTES) {
            out.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
            out.extend_from_slice(piece);
            out.extend_from_slice(b"\r\n");
        }
        batch.clear();
        if sock.write_all(&out).await.is_err() {
            return;
        }
        let _ = sock.flush().await;
    }
    if turn.stall {
        // Wait for the client to go away.
        let mut tmp = [0u8; 1024];
        while let Ok(n) = sock.read(&mut tmp).await {
            if n == 0 {
                break;
            }
        }
        return;
    }
    if turn.cut {
        let _ = sock.shutdown().await;
        return;
    }
    let _ = sock.write_all(b"0\r\n\r\n").await;
    let _ = sock.shutdown().await;
}

async fn write_plain(sock: &mut TcpStream, code: u16, headers: &[(String, String)], body: &str) {
    let mut head = format!(
        "HTTP/1.1 {code} {}\r\ncontent-type: {}\r\ncontent-length: {}\r\nconnection: close\r\n",
        reason(code),
        if body.trim_start().starts_with('{') { "application/json" } else { "text/plain" },
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = sock.write_all(head.as_bytes()).await;
    let _ = sock.write_all(body.as_bytes()).await;
    let _ = sock.shutdown().await;
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

/// Split text in two at a character boundary (to exercise delta assembly).
fn halves(s: &str) -> Vec<String> {
    let n = s.chars().count();
    if n < 2 {
        return vec![s.to_string()];
    }
    let cut = s.char_indices().nth(n / 2).map(|(i, _)| i).unwrap_or(s.len());
    vec![s[..cut].to_string(), s[cut..].to_string()]
}

/// Split text into pieces of at most `n` bytes at character boundaries (a
/// character longer than `n` is a piece of its own); `""` is one empty piece.
fn pieces_of(s: &str, n: usize) -> Vec<String> {
    let mut out = Vec::with_capacity(s.len() / n.max(1) + 1);
    let mut start = 0;
    while start < s.len() {
        let mut end = (start + n.max(1)).min(s.len());
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        if end == start {
            end = start + s[start..].chars().next().map_or(1, char::len_utf8);
        }
        out.push(s[start..end].to_string());
        start = end;
    }
    if out.is_empty() {
        out.push(String::new());
    }
    out
}

fn data(v: &Value) -> String {
    format!("data: {v}\n\n")
}

fn named(event: &str, v: &Value) -> String {
    format!("event: {event}\ndata: {v}\n\n")
}

fn completions_events(turn: &Turn, index: usize) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        data(&json!({"id": format!("chatcmpl-{index}"), "object": "chat.completion.chunk", "created": 0,
            "model": "mock-1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
    };
    let mut out = Vec::new();
    if let Some(t) = &turn.thinking {
        for p in turn.pieces(t) {
            out.push(chunk(json!({"role": "assistant", "reasoning_content": p}), Value::Null));
        }
    }
    if let Some(t) = &turn.text {
        for p in turn.pieces(t) {
            out.push(chunk(json!({"role": "assistant", "content": p}), Value::Null));
        }
    }
    for (k, c) in turn.tool_calls.iter().enumerate() {
        let id = c.id.clone().unwrap_or_else(|| format!("call_{index}_{k}"));
        let mut parts = turn.pieces(&c.args.text()).into_iter();
        let first = parts.next().unwrap_or_default();
        out.push(chunk(
            json!({"role": "assistant", "tool_calls": [{"index": k, "id": id, "type": "function",
                "function": {"name": c.name, "arguments": first}}]}),
            Value::Null,
        ));
        for p in parts {
            out.push(chunk(json!({"tool_calls": [{"index": k, "function": {"arguments": p}}]}), Value::Null));
        }
    }
    let finish = if turn.tool_calls.is_empty() { "stop" } else { "tool_calls" };
    out.push(chunk(json!({}), json!(finish)));
    out.push(data(&json!({"id": format!("chatcmpl-{index}"), "object": "chat.completion.chunk",
        "created": 0, "model": "mock-1", "choices": [],
        "usage": {"prompt_tokens": USAGE_INPUT, "completion_tokens": USAGE_OUTPUT,
            "total_tokens": USAGE_INPUT + USAGE_OUTPUT}})));
    out.push("data: [DONE]\n\n".to_string());
    out
}

fn anthropic_events(turn: &Turn, index: usize) -> Vec<String> {
    let mut out = vec![named(
        "message_start",
        &json!({"type": "message_start", "message": {"id": format!("msg_{index}"), "type": "message",
            "role": "assistant", "model": "mock-1", "content": [], "stop_reason": null,
            "usage": {"input_tokens": USAGE_INPUT, "output_tokens": 1}}}),
    )];
    let mut block = 0;
    let mut simple = |out: &mut Vec<String>, kind: &str, delta_kind: &str, field: &str, text: &str| {
        out.push(named(
            "content_block_start",
            &json!({"type": "content_block_start", "index": block,
            "content_block": {"type": kind, field: ""}}),
        ));
        for p in turn.pieces(text) {
            out.push(named(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": block,
                "delta": {"type": delta_kind, field: p}}),
            ));
        }
        if kind == "thinking" {
            out.push(named(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": block,
                "delta": {"type": "signature_delta", "signature": format!("sig_{index}")}}),
            ));
        }
        out.push(named("content_block_stop", &json!({"type": "content_block_stop", "index": block})));
        block += 1;
    };
    if let Some(t) = &turn.thinking {
        simple(&mut out, "thinking", "thinking_delta", "thinking", t);
    }
    if let Some(t) = &turn.text {
        simple(&mut out, "text", "text_delta", "text", t);
    }
    for (k, c) in turn.tool_calls.iter().enumerate() {
        let id = c.id.clone().unwrap_or_else(|| format!("toolu_{index}_{k}"));
        out.push(named(
            "content_block_start",
            &json!({"type": "content_block_start", "index": block,
            "content_block": {"type": "tool_use", "id": id, "name": c.name, "input": {}}}),
        ));
        for p in turn.pieces(&c.args.text()) {
            out.push(named(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": block,
                "delta": {"type": "input_json_delta", "partial_json": p}}),
            ));
        }
        out.push(named("content_block_stop", &json!({"type": "content_block_stop", "index": block})));
        block += 1;
    }
    let stop = if turn.tool_calls.is_empty() { "end_turn" } else { "tool_use" };
    out.push(named(
        "message_delta",
        &json!({"type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": USAGE_OUTPUT}}),
    ));
    out.push(named("message_stop", &json!({"type": "message_stop"})));
    out
}

fn responses_events(turn: &Turn, index: usize) -> Vec<String> {
    let rid = format!("resp_{index}");
    let mut out = vec![named(
        "response.created",
        &json!({"type": "response.created", "response": {"id": rid, "status": "in_progress", "output": []}}),
    )];
    let mut items = Vec::new();
    let mut oi = 0;
    if let Some(t) = &turn.thinking {
        let id = format!("rs_{index}");
        out.push(named(
            "response.output_item.added",
            &json!({"type": "response.output_item.added",
            "output_index": oi, "item": {"type": "reasoning", "id": id, "summary": []}}),
        ));
        out.push(named(
            "response.reasoning_summary_part.added",
            &json!({"type": "response.reasoning_summary_part.added",
            "item_id": id, "output_index": oi, "summary_index": 0, "part": {"type": "summary_text", "text": ""}}),
        ));
        for p in turn.pieces(t) {
            out.push(named(
                "response.reasoning_summary_text.delta",
                &json!({"type": "response.reasoning_summary_text.delta",
                "item_id": id, "output_index": oi, "summary_index": 0, "delta": p}),
            ));
        }
        let item = json!({"type": "reasoning", "id": id, "summary": [{"type": "summary_text", "text": t}],
            "encrypted_content": format!("enc_{index}")});
        out.push(named(
            "response.output_item.done",
            &json!({"type": "response.output_item.done",
            "output_index": oi, "item": item}),
        ));
        items.push(item);
        oi += 1;
    }
    if let Some(t) = &turn.text {
        let id = format!("msg_{index}");
        out.push(named(
            "response.output_item.added",
            &json!({"type": "response.output_item.added",
            "output_index": oi, "item": {"type": "message", "id": id, "role": "assistant",
            "status": "in_progress", "content": []}}),
        ));
        out.push(named(
            "response.content_part.added",
            &json!({"type": "response.content_part.added",
            "item_id": id, "output_index": oi, "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []}}),
        ));
        for p in turn.pieces(t) {
            out.push(named(
                "response.output_text.delta",
                &json!({"type": "response.output_text.delta",
                "item_id": id, "output_index": oi, "content_index": 0, "delta": p}),
            ));
        }
        out.push(named(
            "response.output_text.done",
            &json!({"type": "response.output_text.done",
            "item_id": id, "output_index": oi, "content_index": 0, "text": t}),
        ));
        let item = json!({"type": "message", "id": id, "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": t, "annotations": []}]});
        out.push(named(
            "response.output_item.done",
            &json!({"type": "response.output_item.done",
            "output_index": oi, "item": item}),
        ));
        items.push(item);
        oi += 1;
    }
    for (k, c) in turn.tool_calls.iter().enumerate() {
        let id = format!("fc_{index}_{k}");
        let call_id = c.id.clone().unwrap_or_else(|| format!("call_{index}_{k}"));
        let args = c.args.text();
        out.push(named(
            "response.output_item.added",
            &json!({"type": "response.output_item.added",
            "output_index": oi, "item": {"type": "function_call", "id": id, "call_id": call_id,
            "name": c.name, "arguments": "", "status": "in_progress"}}),
        ));
        for p in turn.pieces(&args) {
            out.push(named(
                "response.function_call_arguments.delta",
                &json!({"type": "response.function_call_arguments.delta",
                "item_id": id, "output_index": oi, "delta": p}),
            ));
        }
        out.push(named(
            "response.function_call_arguments.done",
            &json!({"type": "response.function_call_arguments.done",
            "item_id": id, "output_index": oi, "arguments": args}),
        ));
        let item = json!({"type": "function_call", "id": id, "call_id": call_id, "name": c.name,
            "arguments": args, "status": "completed"});
        out.push(named(
            "response.output_item.done",
            &json!({"type": "response.output_item.done",
            "output_index": oi, "item": item}),
        ));
        items.push(item);
        oi += 1;
    }
    out.push(named(
        "response.completed",
        &json!({"type": "response.completed", "response": {
        "id": rid, "status": "completed", "output": items,
        "usage": {"input_tokens": USAGE_INPUT, "output_tokens": USAGE_OUTPUT,
            "total_tokens": USAGE_INPUT + USAGE_OUTPUT}}}),
    ));
    out
}

/// `bin` (the `pi` under test) run in `work` with a scratch `home` and
/// temp folder `tmp`, and none of the caller's pi settings or API keys
/// (`PI_CODING_AGENT_DIR`, `PI_CODING_AGENT_SESSION_DIR`, `OPENAI_API_KEY`,
/// `ANTHROPIC_API_KEY` removed).
pub fn isolated_pi(bin: &str, home: &Path, work: &Path, tmp: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(bin);
    c.current_dir(work)
        .env("HOME", home)
        .env("TMPDIR", tmp)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        // A llama.cpp router's URL configures that provider.
        .env_remove("LLAMA_BASE_URL");
    // Any provider credential of the caller would make that provider's models available.
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(credential_var) {
            c.env_remove(&name);
        }
    }
    c
}

/// Whether an environment variable may give a provider credentials (keys,
/// tokens, cloud accounts).
fn credential_var(name: &str) -> bool {
    const PREFIXES: [&str; 5] = ["AWS_", "GOOGLE_", "GCLOUD_", "CLOUDFLARE_", "AZURE_"];
    name.ends_with("_API_KEY") || name.ends_with("_TOKEN") || PREFIXES.iter().any(|p| name.starts_with(p))
}

/// A zstd frame's contents (`None` when it is not one).
fn decode_zstd(body: &[u8]) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::new();
    ruzstd::decoding::StreamingDecoder::new(body).ok()?.read_to_end(&mut out).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_bodies_decode() {
        assert_eq!(decode_chunked(b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"), b"abcde");
    }

    #[test]
    fn pieces_split_on_char_boundaries() {
        assert_eq!(pieces_of("abcdefg", 3), vec!["abc", "def", "g"]);
        assert_eq!(pieces_of("héllo", 2), vec!["h", "é", "ll", "o"]);
        assert_eq!(pieces_of("é", 1), vec!["é"]);
        assert_eq!(pieces_of("", 4), vec![""]);
        let t = Turn::text("0123456789").in_deltas_of(4);
        assert_eq!(completions_events(&t, 0).len(), 3 + 3);
    }

    #[test]
    fn halves_split_on_char_boundaries() {
        assert_eq!(halves("héllo"), vec!["hé", "llo"]);
        assert_eq!(halves("x"), vec!["x"]);
        assert_eq!(halves(""), vec![""]);
    }

    #[test]
    fn records_requests_and_answers_over_plain_tcp() {
        use std::io::{Read, Write};
        let server = MockServer::start(vec![Turn::text("hi"), Turn::error(500, "boom")]);
        let send = |path: &str| {
            let mut s = std::net::TcpStream::connect(("127.0.0.1", server.port())).unwrap();
            let body = r#"{"model":"m"}"#;
            write!(s, "POST {path} HTTP/1.1\r\nHost: x\r\nX-Test: yes\r\ncontent-length: {}\r\n\r\n{body}", body.len())
                .unwrap();
            let mut out = String::new();
            s.read_to_string(&mut out).unwrap();
            out
        };
        let a = send("/v1/chat/completions");
        assert!(a.starts_with("HTTP/1.1 200 OK"), "{a}");
        assert!(a.contains(r#""content":"h""#) && a.contains("data: [DONE]"), "{a}");
        let b = send("/v1/chat/completions");
        assert!(b.starts_with("HTTP/1.1 500"), "{b}");
        assert!(b.ends_with(r#"{"error":{"message":"boom"}}"#), "{b}");
        let c = send("/v1/messages");
        assert!(c.starts_with("HTTP/1.1 400") && c.contains(SCRIPT_EXHAUSTED), "{c}");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 3);
        assert_eq!(reqs[0].header("x-test"), Some("yes"));
        assert_eq!(reqs[0].body, json!({"model": "m"}));
        assert_eq!(reqs[2].path, "/v1/messages");
    }
}
