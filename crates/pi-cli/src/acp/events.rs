//! pi's events as ACP `session/update`s: text and thinking as message and
//! thought chunks; each tool call as a `tool_call` (pending when the model
//! names it, in progress when it runs) followed by `tool_call_update`s, its
//! streamed output as text, its end as `completed` or `failed` with the
//! result, or for `edit`/`write` the file's diff (read before the tool runs
//! and after it). The shapes follow the community adapter `pi-acp` over the
//! reference, so an editor sees the same story; what differs is listed in
//! docs/acp.md.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::text;

/// What is known of one tool call.
#[derive(Debug, Default)]
struct Call {
    status: &'static str,
    /// `edit`/`write`: the file's path and its text before the tool ran
    /// (`None` inside: there was no such file).
    before: Option<(String, Option<String>)>,
}

/// The translation state of one session.
#[derive(Debug, Default)]
pub(crate) struct Translator {
    cwd: PathBuf,
    calls: HashMap<String, Call>,
    /// Why the last answer stopped (`stop`, `length`, `error`, `aborted`…).
    pub last_stop: Option<String>,
    /// The last answer's error, if it failed.
    pub last_error: Option<String>,
}

/// A text chunk of `kind` (`agent_message_chunk`, `agent_thought_chunk`, `user_message_chunk`).
pub(crate) fn chunk(kind: &str, text: &str) -> Value {
    json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}})
}

/// The ACP kind of a pi tool.
pub(crate) fn tool_kind(tool: &str) -> &'static str {
    match tool {
        "read" | "ls" => "read",
        "write" | "edit" => "edit",
        "bash" => "execute",
        "grep" | "find" => "search",
        _ => "other",
    }
}

/// A tool call's title: the command for `bash`, else the tool's name.
fn title(tool: &str, args: &Value) -> String {
    match (tool, args["command"].as_str()) {
        ("bash", Some(command)) => command.to_string(),
        _ => tool.to_string(),
    }
}

impl Translator {
    /// The state of a session working in `cwd`.
    pub(crate) fn new(cwd: &Path) -> Self {
        Translator { cwd: cwd.to_path_buf(), ..Translator::default() }
    }

    /// The file a call's arguments name, as a location.
    fn locations(&self, args: &Value) -> Value {
        match args["path"].as_str().or_else(|| args["file_path"].as_str()) {
            Some(p) => json!([{"path": self.cwd.join(p).to_string_lossy()}]),
            None => json!([]),
        }
    }

    /// The updates for one pi event (none for most).
    pub(crate) fn updates(&mut self, ev: &Value) -> Vec<Value> {
        match ev["type"].as_str().unwrap_or_default() {
            "message_update" => self.message_update(&ev["assistantMessageEvent"]),
            "message_end" if ev["message"]["role"] == "assistant" => {
                self.last_stop = ev["message"]["stopReason"].as_str().map(str::to_string);
                self.last_error = ev["message"]["errorMessage"].as_str().map(str::to_string);
                Vec::new()
            }
            "tool_execution_start" => self.started(ev),
            "tool_execution_update" => self.progress(ev),
            "tool_execution_end" => self.ended(ev),
            "auto_retry_start" => {
                let said = match (ev["attempt"].as_u64(), ev["maxAttempts"].as_u64(), ev["delayMs"].as_u64()) {
                    (Some(a), Some(m), Some(d)) => text::acp_retrying(a, m, d),
                    _ => text::ACP_RETRYING.to_string(),
                };
                vec![chunk("agent_message_chunk", &said)]
            }
            "auto_retry_end" => vec![chunk("agent_message_chunk", text::ACP_RETRY_DONE)],
            "compaction_start" => vec![chunk("agent_message_chunk", text::ACP_COMPACTING)],
            "compaction_end" => vec![chunk("agent_message_chunk", text::ACP_COMPACTED)],
            _ => Vec::new(),
        }
    }

    fn message_update(&mut self, ame: &Value) -> Vec<Value> {
        match ame["type"].as_str().unwrap_or_default() {
            "text_delta" => vec![chunk("agent_message_chunk", ame["delta"].as_str().unwrap_or_default())],
            "thinking_delta" => vec![chunk("agent_thought_chunk", ame["delta"].as_str().unwrap_or_default())],
            "toolcall_start" => {
                let (Some(id), Some(tool)) = (ame["id"].as_str(), ame["toolName"].as_str()) else { return Vec::new() };
                self.seen(id, tool, &json!({}), "pending")
            }
            "toolcall_end" => {
                let call = &ame["toolCall"];
                let (Some(id), Some(tool)) = (call["id"].as_str(), call["name"].as_str()) else { return Vec::new() };
                let out = self.seen(id, tool, &call["arguments"], "pending");
                // The file as it is before the tool can run (it runs only once the answer ended).
                self.keep_before(id, tool, &call["arguments"]);
                out
            }
            _ => Vec::new(),
        }
    }

    /// A call named or started: a `tool_call` the first time, else an update.
    fn seen(&mut self, id: &str, tool: &str, args: &Value, status: &'static str) -> Vec<Value> {
        let known = self.calls.contains_key(id);
        let call = self.calls.entry(id.to_string()).or_insert_with(|| Call { status, before: None });
        if known && call.status == "in_progress" && status == "pending" {
            return Vec::new(); // never backwards
        }
        call.status = status;
        let mut v = json!({
            "sessionUpdate": if known { "tool_call_update" } else { "tool_call" },
            "toolCallId": id,
            "status": status,
            "locations": self.locations(args),
            "rawInput": args,
        });
        if !known || args.as_object().is_some_and(|o| !o.is_empty()) {
            v["title"] = json!(title(tool, args));
            v["kind"] = json!(tool_kind(tool));
        }
        vec![v]
    }

    fn started(&mut self, ev: &Value) -> Vec<Value> {
        let id = ev["toolCallId"].as_str().unwrap_or_default();
        let tool = ev["toolName"].as_str().unwrap_or_default();
        let args = &ev["args"];
        let out = self.seen(id, tool, args, "in_progress");
        self.keep_before(id, tool, args);
        if tool == "bash" {
            // As the adapter over the reference: the command's output shows as a terminal.
            let mut out = out;
            if let Some(first) = out.first_mut() {
                first["content"] = json!([{"type": "terminal", "terminalId": id}]);
                first["_meta"] = json!({"terminal_info": {"terminal_id": id, "cwd": self.cwd.to_string_lossy()}});
            }
            return out;
        }
        out
    }

    /// For `edit` and `write`: the file's text before the tool runs (read
    /// once, when the model has named the call).
    fn keep_before(&mut self, id: &str, tool: &str, args: &Value) {
        if !matches!(tool, "edit" | "write") {
            return;
        }
        let Some(path) = args["path"].as_str() else { return };
        let full = self.cwd.join(path);
        if let Some(c) = self.calls.get_mut(id).filter(|c| c.before.is_none()) {
            c.before = Some((path.to_string(), std::fs::read_to_string(full).ok()));
        }
    }

    fn progress(&mut self, ev: &Value) -> Vec<Value> {
        let id = ev["toolCallId"].as_str().unwrap_or_default();
        let tool = ev["toolName"].as_str().unwrap_or_default();
        let mut v = json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "in_progress"});
        match tool {
            "edit" | "write" => {}
            "bash" => {
                v["_meta"] = json!({"terminal_output": {"terminal_id": id, "data": result_text(&ev["partialResult"])}});
            }
            _ => {
                v["content"] = json!([{"type": "content", "content": {"type": "text", "text": result_text(&ev["partialResult"])}}]);
                v["rawOutput"] = ev["partialResult"].clone();
            }
        }
        vec![v]
    }

    fn ended(&mut self, ev: &Value) -> Vec<Value> {
        let id = ev["toolCallId"].as_str().unwrap_or_default();
        let tool = ev["toolName"].as_str().unwrap_or_default();
        let failed = ev["isError"] == true;
        let status = if failed { "failed" } else { "completed" };
        let before = self.calls.get_mut(id).and_then(|c| {
            c.status = status;
            c.before.take()
        });
        let result = &ev["result"];
        let mut v = json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": status});
        if tool == "bash" {
            let code = result["details"]["exitCode"].as_i64().unwrap_or(if failed { 1 } else { 0 });
            v["_meta"] = json!({
                "terminal_output": {"terminal_id": id, "data": result_text(result)},
                "terminal_exit": {"terminal_id": id, "exit_code": code, "signal": null},
            });
            return vec![v];
        }
        if let (false, Some((path, old))) = (failed, before) {
            let new = std::fs::read_to_string(self.cwd.join(&path)).ok();
            if let Some(new) = new.filter(|n| old.as_ref() != Some(n)) {
                v["content"] = json!([{"type": "diff", "path": path, "oldText": old, "newText": new}]);
                return vec![v];
            }
        }
        v["content"] = json!([{"type": "content", "content": {"type": "text", "text": result_text(result)}}]);
        v["rawOutput"] = result.clone();
        vec![v]
    }
}

/// A tool result's text: its text blocks joined.
pub(crate) fn result_text(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The updates that replay a stored conversation (`get_messages`), for
/// `session/load`: prompts, answers, thinking and each tool call with its
/// result.
pub(crate) fn replay(messages: &[Value], cwd: &Path) -> Vec<Value> {
    let mut t = Translator::new(cwd);
    let mut out = Vec::new();
    for m in messages {
        match m["role"].as_str().unwrap_or_default() {
            "user" => out.push(chunk("user_message_chunk", &content_text(&m["content"]))),
            "assistant" => {
                for b in m["content"].as_array().into_iter().flatten() {
                    match b["type"].as_str().unwrap_or_default() {
                        "text" => out.push(chunk("agent_message_chunk", b["text"].as_str().unwrap_or_default())),
                        "thinking" => {
                            out.push(chunk("agent_thought_chunk", b["thinking"].as_str().unwrap_or_default()))
                        }
                        "toolCall" => {
                            let (id, tool) =
                                (b["id"].as_str().unwrap_or_default(), b["name"].as_str().unwrap_or_default());
                            out.extend(t.seen(id, tool, &b["arguments"], "pending"));
                        }
                        _ => {}
                    }
                }
            }
            "toolResult" => {
                let status = if m["isError"] == true { "failed" } else { "completed" };
                out.push(json!({
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": m["toolCallId"],
                    "status": status,
                    "content": [{"type": "content", "content": {"type": "text", "text": content_text(&m["content"])}}],
                }));
            }
            _ => {}
        }
    }
    out
}

/// A message's text (a string, or its text blocks joined).
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        _ => result_text(&json!({"content": content})),
    }
}

#[cfg(test)]
mod tests;
