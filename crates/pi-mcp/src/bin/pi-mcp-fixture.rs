//! A misbehaving MCP server for pi-mcp's tests (stdio, line-delimited
//! JSON-RPC). Its first argument picks the misbehaviour:
//! `ok` (tools `echo`, `big`, `fail`, `crash`, `slow`, `grow`), `hang` (never
//! answers `initialize`), `garbage` (prints non-JSON lines on stdout before
//! and between answers), `many` (1,000 tools), `http` (the `ok` tools over
//! streamable HTTP on 127.0.0.1, port printed first), `http401` (answers 401). `big` returns 5 MB; `crash`
//! exits mid-call; `slow` sends progress every 50 ms for 0.6 s; `grow` adds a
//! tool and sends `tools/list_changed`.
//!
//! Hand-written rather than on rmcp's server side: it must break the protocol
//! on purpose, and it keeps the `server` feature (and its schemars build) out
//! of the workspace.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

fn send(out: &mut impl Write, v: &Value) {
    let _ = writeln!(out, "{v}");
    let _ = out.flush();
}

fn tool(name: &str) -> Value {
    json!({"name": name, "description": format!("fixture tool {name}"), "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}})
}

fn tools(mode: &str, grown: bool) -> Vec<Value> {
    if mode == "many" {
        return (0..1000).map(|i| tool(&format!("t{i}"))).collect();
    }
    let mut t: Vec<Value> = ["echo", "big", "fail", "crash", "slow", "grow"].iter().map(|n| tool(n)).collect();
    if grown {
        t.push(tool("extra"));
    }
    t
}

fn text(s: impl Into<String>) -> Value {
    json!({"content": [{"type": "text", "text": s.into()}]})
}

fn call(out: &mut impl Write, id: &Value, params: &Value, grown: &mut bool) -> Value {
    let name = params["name"].as_str().unwrap_or("");
    let arg = params["arguments"]["text"].as_str().unwrap_or("");
    match name {
        "echo" => text(format!("echo: {arg}")),
        "extra" => text("extra"),
        "big" => text("x".repeat(5 * 1024 * 1024)),
        "fail" => json!({"content": [{"type": "text", "text": "it failed"}], "isError": true}),
        "crash" => std::process::exit(3),
        "slow" => {
            let token = params["_meta"]["progressToken"].clone();
            for i in 0..12 {
                std::thread::sleep(std::time::Duration::from_millis(50));
                let p = json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": i}});
                send(out, &p);
            }
            text("slow done")
        }
        "grow" => {
            *grown = true;
            send(out, &json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
            text("grown")
        }
        _ => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": format!("unknown tool {name}")}})
        }
    }
}

/// The answer to one message (`None`: a notification, or no answer on purpose).
fn answer(out: &mut impl Write, mode: &str, msg: &Value, grown: &mut bool) -> Option<Value> {
    let id = msg.get("id").cloned()?;
    let method = msg["method"].as_str().unwrap_or("");
    let result = match method {
        "initialize" if mode == "hang" => return None,
        "initialize" => json!({
            "protocolVersion": msg["params"]["protocolVersion"].clone(),
            "capabilities": {"tools": {"listChanged": true}},
            "serverInfo": {"name": "pi-mcp-fixture", "version": "1"},
            "instructions": "Fixture server.\nSecond line."
        }),
        "tools/list" => json!({"tools": tools(mode, *grown)}),
        "tools/call" => {
            let r = call(out, &id, &msg["params"], grown);
            if r.get("error").is_some() {
                return Some(r);
            }
            r
        }
        "ping" => json!({}),
        _ => {
            return Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "method not found"}}));
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// Streamable HTTP on 127.0.0.1 (the port is printed first): `POST /mcp`
/// answers with JSON; `http401` answers 401 to everything.
fn serve_http(mode: &str) {
    use std::io::Read;
    let Ok(listener) = std::net::TcpListener::bind("127.0.0.1:0") else { std::process::exit(2) };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    println!("{port}");
    let _ = std::io::stdout().flush();
    let mut grown = false;
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
        let reply = |status: &str, body: &str| {
            format!(
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
        };
        let response = if mode == "http401" {
            reply("401 Unauthorized", "{}")
        } else if !post {
            reply("405 Method Not Allowed", "")
        } else {
            let msg: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
            let mut sink = Vec::new();
            match answer(&mut sink, "ok", &msg, &mut grown) {
                Some(a) => reply("200 OK", &a.to_string()),
                None => reply("202 Accepted", ""),
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
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut grown = false;
    if mode == "garbage" {
        let _ = writeln!(out, "this is not JSON");
    }
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else { continue };
        if mode == "garbage" {
            let _ = writeln!(out, "garbage {{ between answers");
        }
        if let Some(a) = answer(&mut out, &mode, &msg, &mut grown) {
            send(&mut out, &a);
        }
    }
}
