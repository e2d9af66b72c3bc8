//! The hand-written MCP server of pi-mcp's tests (stdio, line-delimited
//! JSON-RPC), for what rmcp's server side (`pi-mcp-rmcp-fixture`) cannot be
//! made to do: break the protocol, write objects in an order of its own, or
//! fail below it. Its first argument picks the behaviour:
//! `ok` (the tool `echo`), `garbage` (prints non-JSON lines on stdout before
//! and between answers), `resources` (resources whose keys are in the
//! server's own order: two pages, an MCP App's resource, templates, text,
//! text-typed and binary blobs), `listfail` (offers resources but fails to
//! list them), `family` (starts a grandchild), `stubborn` (a grandchild, and
//! ignores SIGTERM and its closed stdin; both write their and the
//! grandchild's pids to the file `PI_FIXTURE_PIDS` names), and over
//! streamable HTTP on 127.0.0.1 (the port is printed first): `http503`
//! (answers 503 `busy`) and `httpflaky` (503 `busy` to the first request of
//! each method, then the `resources` answers as server-sent events).

use std::io::{BufRead, Write};

use serde_json::{Value, json};

fn send(out: &mut impl Write, v: &Value) {
    let _ = writeln!(out, "{v}");
    let _ = out.flush();
}

fn tool(name: &str) -> Value {
    json!({"name": name, "description": format!("fixture tool {name}"), "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}})
}

fn text(s: impl Into<String>) -> Value {
    json!({"content": [{"type": "text", "text": s.into()}]})
}

fn call(id: &Value, params: &Value) -> Value {
    match params["name"].as_str().unwrap_or("") {
        "echo" => text(format!("echo: {}", params["arguments"]["text"].as_str().unwrap_or(""))),
        name => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": format!("unknown tool {name}")}})
        }
    }
}

/// The answer to one message (`None`: a notification, or no answer on purpose).
fn answer(mode: &str, msg: &Value) -> Option<Value> {
    let id = msg.get("id").cloned()?;
    let method = msg["method"].as_str().unwrap_or("");
    let result = match method {
        "initialize" => json!({
            "protocolVersion": msg["params"]["protocolVersion"].clone(),
            "capabilities": if matches!(mode, "resources" | "listfail") {
                json!({"tools": {"listChanged": true}, "resources": {}})
            } else {
                json!({"tools": {"listChanged": true}})
            },
            "serverInfo": {"name": "pi-mcp-fixture", "version": "1"},
            "instructions": "Fixture server.\nSecond line."
        }),
        "tools/list" => {
            // "slow": a server that takes its time to list its tools.
            if mode == "slow" {
                std::thread::sleep(std::time::Duration::from_millis(800));
            }
            json!({"tools": [tool("echo")]})
        }
        "tools/call" => {
            let r = call(&id, &msg["params"]);
            if r.get("error").is_some() {
                return Some(r);
            }
            r
        }
        "ping" => json!({}),
        "resources/list" | "resources/templates/list" | "resources/read" if mode == "resources" => {
            match resources(method, &msg["params"]) {
                Ok(r) => r,
                Err(e) => {
                    return Some(
                        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": e.to_string()}}),
                    );
                }
            }
        }
        "resources/list" if mode == "listfail" => {
            return Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "cannot list"}}));
        }
        _ => {
            return Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "method not found"}}));
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// A resource request the fixture refuses; `Display` is the JSON-RPC error's message.
#[derive(Debug, thiserror::Error)]
enum Refusal {
    /// A listing cursor the fixture did not hand out.
    #[error("bad cursor {0}")]
    BadCursor(String),
    /// A URI the fixture does not have.
    #[error("Resource {0} not found")]
    NotFound(String),
}

/// The `resources` mode's answers (keys in an order of their own, as servers write them).
fn resources(method: &str, params: &Value) -> Result<Value, Refusal> {
    Ok(match (method, params["cursor"].as_str(), params["uri"].as_str()) {
        ("resources/list", None, _) => json!({"resources": [
            {"uri": "fx://a.txt", "mimeType": "text/plain", "name": "a", "icons": [{"src": "fx://icon"}]},
            {"uri": "fx://b.bin", "name": "b", "size": 3}
        ], "nextCursor": "p2"}),
        ("resources/list", Some("p2"), _) => json!({"resources": [
            {"name": "c", "uri": "fx://c.png", "mimeType": "image/png"},
            {"uri": "ui://app", "name": "app"}
        ]}),
        ("resources/list", Some(c), _) => return Err(Refusal::BadCursor(c.to_string())),
        ("resources/templates/list", _, _) => {
            json!({"resourceTemplates": [{"name": "t", "uriTemplate": "fx://t/{id}"}]})
        }
        (_, _, Some("fx://a.txt")) => {
            json!({"contents": [{"uri": "fx://a.txt", "mimeType": "text/plain", "text": "alpha"}]})
        }
        (_, _, Some("fx://j.json")) => {
            json!({"contents": [{"uri": "fx://j.json", "mimeType": "application/json", "blob": "eyJrIjoxfQ=="}]})
        }
        (_, _, Some("fx://b.bin")) => json!({"contents": [{"uri": "fx://b.bin", "blob": "AAEC"}]}),
        (_, _, Some("fx://c.png")) => {
            json!({"contents": [{"uri": "fx://c.png", "mimeType": "image/png", "blob": "iVBORw0KGgo="}]})
        }
        (_, _, uri) => return Err(Refusal::NotFound(uri.unwrap_or("").to_string())),
    })
}

/// `family` and `stubborn`: start a grandchild (this binary, `sleeper`) and
/// note both pids; `stubborn` also ignores SIGTERM and outlives its stdin.
fn start_family(mode: &str) {
    if mode == "stubborn" {
        #[allow(unsafe_code)]
        // SAFETY: setting a signal's disposition to "ignore" touches no memory of ours.
        unsafe {
            libc::signal(libc::SIGTERM, libc::SIG_IGN);
        }
    }
    let Ok(exe) = std::env::current_exe() else { return };
    let Ok(grandchild) = std::process::Command::new(exe)
        .arg(if mode == "stubborn" { "stubborn-sleeper" } else { "sleeper" })
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
    else {
        return;
    };
    if let Some(path) = std::env::var_os("PI_FIXTURE_PIDS") {
        let _ = std::fs::write(path, format!("{} {}\n", std::process::id(), grandchild.id()));
    }
}

/// A grandchild: sleeps until killed (`stubborn-sleeper` ignores SIGTERM).
fn sleeper(stubborn: bool) -> ! {
    if stubborn {
        #[allow(unsafe_code)]
        // SAFETY: as in start_family.
        unsafe {
            libc::signal(libc::SIGTERM, libc::SIG_IGN);
        }
    }
    loop {
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
}

/// Streamable HTTP on 127.0.0.1 (the port is printed first): `POST /mcp`
/// answers with one server-sent event.
fn serve_http(mode: &str) {
    use std::io::Read;
    let Ok(listener) = std::net::TcpListener::bind("127.0.0.1:0") else { std::process::exit(2) };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    println!("{port}");
    let _ = std::io::stdout().flush();
    let mut tried: Vec<String> = Vec::new();
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let mut buf = Vec::new();
        let mut chunk = [0u8; 8192];
        let (head_end, length) = loop {
            let Ok(n) = stream.read(&mut chunk) else { break (0, 0) };
            if n == 0 {
                break (0, 0);
            }
            buf.extend_from_slice(&chunk[..n]);
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..i]).to_ascii_lowercase();
                let len = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0);
                break (i + 4, len);
            }
        };
        while buf.len() < head_end + length {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        let post = buf.starts_with(b"POST");
        let body = buf.get(head_end..).unwrap_or(&[]);
        let reply = |status: &str, kind: &str, body: &str| {
            format!(
                "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
        };
        let msg: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let method = msg["method"].as_str().unwrap_or("").to_string();
        let first_try = msg.get("id").is_some() && !tried.contains(&method);
        if first_try {
            tried.push(method.clone());
        }
        let response = if !post {
            reply("405 Method Not Allowed", "text/plain", "")
        } else if mode == "http503" || first_try {
            reply("503 Service Unavailable", "text/plain", "busy\n")
        } else {
            match answer("resources", &msg) {
                Some(a) => reply("200 OK", "text/event-stream", &format!("event: message\ndata: {a}\n\n")),
                None => reply("202 Accepted", "text/plain", ""),
            }
        };
        let _ = stream.write_all(response.as_bytes());
    }
}

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "ok".into());
    if mode.starts_with("http") {
        return serve_http(&mode);
    }
    if mode.ends_with("sleeper") {
        sleeper(mode == "stubborn-sleeper");
    }
    if matches!(mode.as_str(), "family" | "stubborn") {
        start_family(&mode);
    }
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    if mode == "garbage" {
        let _ = writeln!(out, "this is not JSON");
    }
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else { continue };
        if mode == "garbage" {
            let _ = writeln!(out, "garbage {{ between answers");
        }
        if let Some(a) = answer(&mode, &msg) {
            send(&mut out, &a);
        }
    }
    if mode == "stubborn" {
        sleeper(true);
    }
}
