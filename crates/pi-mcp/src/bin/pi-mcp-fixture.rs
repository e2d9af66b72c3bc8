//! A misbehaving MCP server for pi-mcp's tests (stdio, line-delimited
//! JSON-RPC). Its first argument picks the misbehaviour:
//! `ok` (tools `echo`, `big`, `fail`, `crash`, `slow`, `grow`), `hang` (never
//! answers `initialize`), `garbage` (prints non-JSON lines on stdout before
//! and between answers), `many` (1,000 tools). `big` returns 5 MB; `crash`
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
        _ => return json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": format!("unknown tool {name}")}}),
    }
}

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "ok".into());
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut grown = false;
    if mode == "garbage" {
        let _ = writeln!(out, "this is not JSON");
    }
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else { continue };
        let Some(id) = msg.get("id").cloned() else { continue };
        let method = msg["method"].as_str().unwrap_or("");
        if mode == "garbage" {
            let _ = writeln!(out, "garbage {{ between answers");
        }
        let result = match method {
            "initialize" if mode == "hang" => continue,
            "initialize" => json!({
                "protocolVersion": msg["params"]["protocolVersion"].clone(),
                "capabilities": {"tools": {"listChanged": true}},
                "serverInfo": {"name": "pi-mcp-fixture", "version": "1"},
                "instructions": "Fixture server.\nSecond line."
            }),
            "tools/list" => json!({"tools": tools(&mode, grown)}),
            "tools/call" => {
                let r = call(&mut out, &id, &msg["params"], &mut grown);
                if r.get("error").is_some() {
                    send(&mut out, &r);
                    continue;
                }
                r
            }
            "ping" => json!({}),
            _ => {
                send(&mut out, &json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "method not found"}}));
                continue;
            }
        };
        send(&mut out, &json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }
}
