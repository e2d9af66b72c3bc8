//! The script's calls as the result's `details.calls` records them (name,
//! argument preview, status, duration, error; never results), and what a
//! tool call resolves to in the script.

use std::sync::Mutex;
use std::time::Instant;

use pi_agent::NestedOutcome;
use serde_json::{Value, json};

use super::error::CallError;
use crate::js;
use crate::text::{self, ARGS_PREVIEW_CHARS, ERROR_PREVIEW_CHARS};

/// How a recorded call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Running,
    Ok,
    Error,
    Cancelled,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Ok => "ok",
            Status::Error => "error",
            Status::Cancelled => "cancelled",
        }
    }
}

struct Record {
    id: String,
    name: String,
    args: String,
    status: Status,
    started: Instant,
    duration_ms: Option<f64>,
    error: Option<String>,
}

/// `text` cut to `max` characters (UTF-16 units) with `...`.
pub(crate) fn preview(text: &str, max: usize) -> String {
    if js::len16(text) <= max {
        return text.to_string();
    }
    format!("{}...", &text[..js::head_index(text, max - 3)])
}

/// The calls of one script.
#[derive(Default)]
pub(crate) struct Calls(Mutex<Vec<Record>>);

impl Calls {
    fn with<R>(&self, f: impl FnOnce(&mut Vec<Record>) -> R) -> R {
        let mut g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut g)
    }

    /// A tool call starts; returns its index.
    pub(crate) fn start(&self, id: String, name: &str, args: Option<&Value>) -> usize {
        let args = args.map(|a| preview(&js::stringify(a), ARGS_PREVIEW_CHARS)).unwrap_or_default();
        self.start_with(id, name, args)
    }

    /// A call starts with `args` shown as given (a model call shows its model).
    pub(crate) fn start_with(&self, id: String, name: &str, args: String) -> usize {
        self.with(|r| {
            r.push(Record {
                id,
                name: name.to_string(),
                args,
                status: Status::Running,
                started: Instant::now(),
                duration_ms: None,
                error: None,
            });
            r.len() - 1
        })
    }

    /// A call ended (`id`: its final id, when known).
    pub(crate) fn finish(&self, at: usize, id: Option<String>, status: Status, error: Option<&str>) {
        self.with(|r| {
            // A call cut off by the end of its script stays cancelled.
            if let Some(rec) = r.get_mut(at).filter(|rec| rec.status == Status::Running) {
                if let Some(id) = id {
                    rec.id = id;
                }
                rec.status = status;
                rec.duration_ms = Some(rec.started.elapsed().as_secs_f64() * 1000.0);
                rec.error = error.map(|e| preview(e, ERROR_PREVIEW_CHARS));
            }
        });
    }

    /// Calls still running when the script ended were cancelled.
    pub(crate) fn cancel_running(&self) {
        self.with(|r| {
            for rec in r.iter_mut().filter(|rec| rec.status == Status::Running) {
                rec.status = Status::Cancelled;
            }
        });
    }

    /// `{calls: [...]}` for the result's details.
    pub(crate) fn details(&self) -> Value {
        let calls: Vec<Value> = self.with(|r| {
            r.iter()
                .map(|c| {
                    let mut v = json!({"id": c.id, "name": c.name, "args": c.args, "status": c.status.as_str()});
                    if let Some(d) = c.duration_ms {
                        v["durationMs"] = json!(d);
                    }
                    if let Some(e) = &c.error {
                        v["error"] = json!(e);
                    }
                    v
                })
                .collect()
        });
        json!({ "calls": calls })
    }

    /// `No tool calls were made.` or the calls with their status.
    pub(crate) fn summary(&self) -> String {
        self.with(|r| {
            if r.is_empty() {
                return text::NO_CALLS.to_string();
            }
            let list: Vec<String> = r.iter().map(|c| format!("{} ({})", c.name, c.status.as_str())).collect();
            text::calls_before_failure(&list.join(", "))
        })
    }
}

/// What a finished tool call resolves to in the script: a tool with an
/// output schema resolves to its structured value (also when it failed but
/// returned one), any other to its text; a failure rejects with its text.
pub(crate) fn script_value(has_output_schema: bool, outcome: &NestedOutcome) -> Result<Value, CallError> {
    if has_output_schema
        && let Some(v) = &outcome.result.structured
        && !is_error_marker(v)
    {
        return Ok(v.clone());
    }
    let text = outcome.result.text_content();
    if outcome.is_error {
        return Err(if text.is_empty() {
            CallError::ToolFailedSilently(outcome.name.clone())
        } else {
            CallError::Tool(text)
        });
    }
    Ok(Value::String(text))
}

/// bash's structured value after a timeout (`{error: "timeout:<n>"}`) is not
/// its output schema's shape: scripts get the failure's text, as with the reference.
fn is_error_marker(v: &Value) -> bool {
    v.as_object().is_some_and(|o| o.len() == 1 && o.contains_key("error"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previews_and_records() {
        assert_eq!(preview("abcdef", 5), "ab...");
        assert_eq!(preview("abc", 5), "abc");
        let calls = Calls::default();
        assert_eq!(calls.summary(), "No tool calls were made.");
        let a = calls.start("p/?".into(), "read", Some(&json!({"path": "a"})));
        let _b = calls.start("p/?".into(), "bash", None);
        calls.finish(a, Some("p/1".into()), Status::Ok, None);
        calls.cancel_running();
        let d = calls.details();
        assert_eq!(d["calls"][0]["id"], "p/1");
        assert_eq!(d["calls"][0]["args"], r#"{"path":"a"}"#);
        assert_eq!(d["calls"][1]["status"], "cancelled");
        assert!(d["calls"][1].get("durationMs").is_none());
        assert_eq!(
            calls.summary(),
            "Tool calls made before the failure (they are not undone): read (ok), bash (cancelled)"
        );
    }
}
