//! Nested calls: a running tool calls other tools (`ctx.executeTool()` of an
//! extension tool, codemode scripts). Requirement I5, `pi-behaviour.md` §6.3.
//!
//! A nested call takes the same path as a model call ([`crate::Dispatcher`],
//! reached through [`Pipeline`], so the tools below it need not know it): it is
//! resolved against the callable set, validated, seen by the `tool_call` and
//! `tool_result` handlers (with `parentToolCallId`) and emits the same events.
//! Its id is `<caller id>/<n>`, `n` counting from 1 per caller. Nested calls
//! never reach the transcript; the model-issued call keeps a bounded record of
//! them ([`NestedCalls`]).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use pi_tools::{ToolContext, ToolResult, UpdateFn};
use serde::Serialize;
use serde_json::Value;

use crate::tool::AgentTool;
use crate::tool_changes::ToolChanges;

/// At most this many nested calls are recorded per model-issued call; more are dropped.
pub const NESTED_MAX_CALLS: usize = 256;
/// A call's arguments larger than this (JSON bytes) are not recorded, only their size.
pub const NESTED_MAX_ARGUMENT_BYTES_PER_CALL: usize = 8 * 1024;
/// Arguments are recorded while the record's total stays within this many bytes.
pub const NESTED_MAX_ARGUMENT_BYTES_TOTAL: usize = 32 * 1024;
/// Error texts in the record are cut to this many characters.
pub const NESTED_MAX_ERROR_CHARS: usize = 500;

/// How a recorded nested call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NestedStatus {
    /// Still running (or never finished).
    Unfinished,
    /// Finished without error.
    Ok,
    /// Finished with an error result.
    Error,
}

/// One entry of the record: name, arguments, status, duration, error; never the result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NestedCallEntry {
    /// The nested call's id (`<parent>/<n>`).
    pub id: String,
    /// The tool called.
    pub name: String,
    /// How it ended.
    pub status: NestedStatus,
    /// Its arguments, unless they were too large to keep.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// Size of the arguments' JSON when they were left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments_bytes: Option<usize>,
    /// Milliseconds it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The error text (cut to [`NESTED_MAX_ERROR_CHARS`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The bounded record of the nested calls one model-issued call made
/// (`nestedCalls` on its tool result message).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NestedCalls {
    /// The calls, in start order.
    pub calls: Vec<NestedCallEntry>,
    /// False when a call was dropped, arguments were left out, or a call is unfinished.
    pub complete: bool,
}

#[derive(Default)]
struct Recorder {
    calls: Vec<NestedCallEntry>,
    dropped: bool,
    argument_bytes: usize,
}

impl Recorder {
    fn start(&mut self, id: &str, name: &str, args: &Value) -> Option<usize> {
        if self.calls.len() >= NESTED_MAX_CALLS {
            self.dropped = true;
            return None;
        }
        let bytes = serde_json::to_string(args).map(|s| s.len()).unwrap_or(0);
        let mut entry = NestedCallEntry {
            id: id.to_string(),
            name: name.to_string(),
            status: NestedStatus::Unfinished,
            arguments: None,
            arguments_bytes: None,
            duration_ms: None,
            error: None,
        };
        if bytes > NESTED_MAX_ARGUMENT_BYTES_PER_CALL || self.argument_bytes + bytes > NESTED_MAX_ARGUMENT_BYTES_TOTAL {
            entry.arguments_bytes = Some(bytes);
            self.dropped = true;
        } else {
            entry.arguments = Some(args.clone());
            self.argument_bytes += bytes;
        }
        self.calls.push(entry);
        Some(self.calls.len() - 1)
    }

    fn finish(&mut self, index: Option<usize>, result: &ToolResult, duration_ms: u64) {
        let Some(entry) = index.and_then(|i| self.calls.get_mut(i)) else { return };
        entry.status = if result.is_error { NestedStatus::Error } else { NestedStatus::Ok };
        entry.duration_ms = Some(duration_ms);
        if result.is_error {
            let text = result.text_content();
            if !text.is_empty() {
                entry.error = Some(text.chars().take(NESTED_MAX_ERROR_CHARS).collect());
            }
        }
    }

    fn snapshot(&self) -> Option<NestedCalls> {
        if self.calls.is_empty() && !self.dropped {
            return None;
        }
        let complete = !self.dropped && self.calls.iter().all(|c| c.status != NestedStatus::Unfinished);
        Some(NestedCalls { calls: self.calls.clone(), complete })
    }
}

/// State shared by every nested call under one model-issued call.
#[derive(Default)]
pub(crate) struct NestedScope {
    recorder: Mutex<Recorder>,
    /// Serialises nested calls to sequential tools.
    queue: tokio::sync::Mutex<()>,
    /// The summed usage of every nested result at every depth (each result
    /// reports only its own, so nothing is counted twice).
    usage: Mutex<Option<pi_ai::Usage>>,
}

impl NestedScope {
    pub(crate) fn snapshot(&self) -> Option<NestedCalls> {
        self.recorder.lock().ok().and_then(|r| r.snapshot())
    }

    pub(crate) fn usage(&self) -> Option<pi_ai::Usage> {
        self.usage.lock().ok().and_then(|u| u.clone())
    }

    fn add_usage(&self, result: &ToolResult) {
        let Some(u) = result.usage.as_ref().and_then(|u| serde_json::from_value::<pi_ai::Usage>(u.clone()).ok()) else {
            return;
        };
        if let Ok(mut total) = self.usage.lock() {
            *total = Some(match total.take() {
                Some(t) => t.combine(&u),
                None => u,
            });
        }
    }
}

/// What `executeTool` resolves to: never an error, failures are error results.
#[derive(Debug, Clone)]
pub struct NestedOutcome {
    /// The nested call's id (`<parent>/<n>`).
    pub id: String,
    /// The tool called.
    pub name: String,
    /// The arguments as the caller passed them.
    pub arguments: Value,
    /// The result.
    pub result: ToolResult,
    /// Whether the result is an error.
    pub is_error: bool,
    /// Milliseconds, when the tool ran (absent when lookup, validation or a handler stopped it).
    pub duration_ms: Option<u64>,
}

/// One nested call as the pipeline takes it.
pub(crate) struct NestedCall<'a> {
    /// The call's id (`<parent>/<n>`).
    pub id: String,
    /// The tool called.
    pub name: String,
    /// The arguments as the caller passed them.
    pub args: Value,
    /// The id of the calling tool call.
    pub parent: &'a str,
    /// What the callee runs with (the caller's, or with an abort signal of its own).
    pub ctx: &'a ToolContext,
    /// The scope of the model-issued call every nested call counts against.
    pub scope: Arc<NestedScope>,
    /// Whether the caller holds the sequential queue.
    pub holds_queue: bool,
    /// Also receives the callee's partial results.
    pub on_update: Option<UpdateFn>,
}

/// How a nested call ended.
pub(crate) struct NestedRun {
    /// The result.
    pub result: ToolResult,
    /// Milliseconds from start to end (`None` when it was refused before its tool ran).
    pub duration_ms: Option<u64>,
    /// Whether the tool ran.
    pub ran: bool,
}

/// The one pipeline ([`crate::Dispatcher`]) as nested calls use it.
pub(crate) trait Pipeline: Send + Sync {
    /// The tools a nested call may reach, in registration order.
    fn nested_tools(&self) -> Vec<Arc<dyn AgentTool>>;
    /// The session's tool set.
    fn tool_changes(&self) -> &ToolChanges;
    /// Whether the registered tool `name` must run alone.
    fn is_sequential(&self, name: &str) -> bool;
    /// Preflight and run a nested call.
    fn call_nested<'a>(&'a self, call: NestedCall<'a>) -> BoxFuture<'a, NestedRun>;
}

/// Handed to a running tool (in its [`crate::Invocation`]) so it can call other tools.
pub struct NestedCaller<'a> {
    pub(crate) pipeline: &'a dyn Pipeline,
    pub(crate) parent: &'a str,
    pub(crate) ctx: &'a ToolContext,
    pub(crate) scope: Arc<NestedScope>,
    pub(crate) next: AtomicU32,
    pub(crate) holds_queue: bool,
}

impl<'a> NestedCaller<'a> {
    /// The id of the calling tool call.
    pub fn parent_id(&self) -> &str {
        self.parent
    }

    /// The tools a nested call may reach (`ctx.tools`): codemode and deferred
    /// tools and the active direct tools, in registration order.
    pub fn callable(&self) -> Vec<Arc<dyn AgentTool>> {
        self.pipeline.nested_tools()
    }

    /// The session's tool set (every registered tool, the active names, and
    /// changes to apply before the next request), for tools that search or
    /// load other tools (`tool_search`).
    pub fn tool_changes(&self) -> &ToolChanges {
        self.pipeline.tool_changes()
    }

    /// Call `name` with `args` through the one pipeline. `on_update` receives
    /// the callee's partial results. The caller's abort signal applies.
    pub fn call(&self, name: &str, args: Value, on_update: Option<UpdateFn>) -> BoxFuture<'_, NestedOutcome> {
        self.call_with_abort(name, args, on_update, None)
    }

    /// [`NestedCaller::call`] with its own abort signal (a script's, so the
    /// calls still running when the script ends can be cancelled); `None`:
    /// the caller's.
    pub fn call_with_abort(
        &self,
        name: &str,
        args: Value,
        on_update: Option<UpdateFn>,
        abort: Option<tokio_util::sync::CancellationToken>,
    ) -> BoxFuture<'_, NestedOutcome> {
        let name = name.to_string();
        Box::pin(async move {
            let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
            let id = format!("{}/{}", self.parent, n);
            let index = self.scope.recorder.lock().ok().and_then(|mut r| r.start(&id, &name, &args));
            let exclusive = !self.holds_queue && self.pipeline.is_sequential(&name);
            let _guard = if exclusive { Some(self.scope.queue.lock().await) } else { None };
            let own;
            let ctx = match abort {
                Some(token) => {
                    own = ToolContext { abort: token, ..self.ctx.clone() };
                    &own
                }
                None => self.ctx,
            };
            let call = NestedCall {
                id: id.clone(),
                name: name.clone(),
                args: args.clone(),
                parent: self.parent,
                ctx,
                scope: self.scope.clone(),
                holds_queue: self.holds_queue || exclusive,
                on_update,
            };
            let NestedRun { result, duration_ms, ran } = self.pipeline.call_nested(call).await;
            if let Ok(mut r) = self.scope.recorder.lock() {
                r.finish(index, &result, duration_ms.unwrap_or(0));
            }
            self.scope.add_usage(&result);
            NestedOutcome {
                id,
                name,
                arguments: args,
                is_error: result.is_error,
                duration_ms: duration_ms.filter(|_| ran),
                result,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_limits() {
        let mut r = Recorder::default();
        assert!(r.snapshot().is_none());
        let small = serde_json::json!({"a": 1});
        let i = r.start("p/1", "read", &small);
        r.finish(i, &ToolResult::success("x"), 3);
        let snap = r.snapshot().unwrap();
        assert!(snap.complete);
        assert_eq!(snap.calls[0].status, NestedStatus::Ok);
        assert_eq!(snap.calls[0].arguments, Some(small.clone()));

        let big = serde_json::json!({"s": "x".repeat(9000)});
        let j = r.start("p/2", "write", &big);
        assert_eq!(r.calls[1].arguments, None);
        assert_eq!(r.calls[1].arguments_bytes, Some(9008));
        r.finish(j, &ToolResult::error("e".repeat(600)), 1);
        let snap = r.snapshot().unwrap();
        assert!(!snap.complete);
        assert_eq!(snap.calls[1].error.as_ref().unwrap().len(), NESTED_MAX_ERROR_CHARS);
    }

    #[test]
    fn total_budget_and_call_cap() {
        let mut r = Recorder::default();
        let arg = serde_json::json!({"s": "y".repeat(7000)});
        for k in 0..5 {
            let i = r.start(&format!("p/{k}"), "t", &arg);
            r.finish(i, &ToolResult::success(""), 0);
        }
        // 4 * 7008 fits in 32 KiB, the fifth does not.
        assert!(r.calls[..4].iter().all(|c| c.arguments.is_some()));
        assert!(r.calls[4].arguments.is_none());
        for k in 5..300 {
            r.start(&format!("p/{k}"), "t", &serde_json::json!({}));
        }
        assert_eq!(r.calls.len(), NESTED_MAX_CALLS);
        let snap = r.snapshot().unwrap();
        assert!(!snap.complete);
    }

    #[test]
    fn unfinished_is_incomplete() {
        let mut r = Recorder::default();
        r.start("p/1", "t", &serde_json::json!({}));
        let snap = r.snapshot().unwrap();
        assert!(!snap.complete);
        assert_eq!(serde_json::to_value(&snap).unwrap()["calls"][0]["status"], "unfinished");
    }
}
