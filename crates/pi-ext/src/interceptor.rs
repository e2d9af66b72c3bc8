//! One extension's handlers as an [`Interceptor`]: `tool_call`,
//! `tool_result`, `user_bash`, compaction, and the lifecycle events the
//! agent hands on (`agent_start`, `turn_end`, `context`, …).

use pi_agent::HookEvent;
use std::sync::Arc;

use futures::future::BoxFuture;
use pi_agent::{
    Interceptor, Observed, ResultPatch, ToolCallDecision, ToolCallEvent, ToolResultEvent, UserBashAnswer, UserBashEvent,
};
use serde_json::Value;

use crate::convert;
use crate::engine::protocol::Entry;
use crate::engine::{CallEnv, Engine};

/// The handlers of one extension, in registration order.
pub(crate) struct ExtInterceptor {
    pub(crate) engine: Arc<Engine>,
}

impl Interceptor for ExtInterceptor {
    fn source(&self) -> &str {
        &self.engine.path
    }

    fn on_tool_call<'a>(
        &'a self,
        ev: &'a mut ToolCallEvent,
    ) -> BoxFuture<'a, Result<Option<ToolCallDecision>, pi_agent::HandlerError>> {
        Box::pin(async move {
            if !self.engine.handles("tool_call") {
                return Ok(None);
            }
            let event = HookEvent::ToolCall {
                tool_name: &ev.tool_name,
                tool_call_id: &ev.tool_call_id,
                input: &ev.input,
                parent_tool_call_id: ev.parent_tool_call_id.as_deref(),
            }
            .to_value();
            let out =
                self.engine.invoke(Entry::ToolCall, event, &CallEnv::default()).await.map_err(|e| e.to_string())?;
            if let Some(error) = out.get("error").and_then(Value::as_str) {
                return Err(error.into());
            }
            if let Some(input) = out.get("input") {
                ev.input = input.clone();
            }
            if out.get("block").and_then(Value::as_bool) == Some(true) {
                return Ok(Some(ToolCallDecision {
                    block: true,
                    reason: out.get("reason").and_then(Value::as_str).map(str::to_string),
                    terminate: out.get("terminate").and_then(Value::as_bool) == Some(true),
                }));
            }
            Ok(None)
        })
    }

    fn on_tool_result<'a>(
        &'a self,
        ev: &'a ToolResultEvent,
    ) -> BoxFuture<'a, Result<Option<ResultPatch>, pi_agent::HandlerError>> {
        Box::pin(async move {
            if !self.engine.handles("tool_result") {
                return Ok(None);
            }
            let event = HookEvent::ToolResult {
                tool_name: &ev.tool_name,
                tool_call_id: &ev.tool_call_id,
                input: &ev.input,
                content: &ev.content,
                details: ev.details.as_ref(),
                structured_content: ev.structured_content.as_ref(),
                is_error: ev.is_error,
                usage: ev.usage.as_ref(),
                parent_tool_call_id: ev.parent_tool_call_id.as_deref(),
            }
            .to_value();
            let out =
                self.engine.invoke(Entry::ToolResult, event, &CallEnv::default()).await.map_err(|e| e.to_string())?;
            let patch = ResultPatch {
                content: out.get("content").map(|c| convert::content(Some(c))),
                details: (out.get("hasDetails").and_then(Value::as_bool) == Some(true))
                    .then(|| out.get("details").cloned().filter(|d| !d.is_null())),
                is_error: out.get("isError").and_then(Value::as_bool),
                errors: out
                    .get("errors")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(|e| e.as_str().map(str::to_string)).collect())
                    .unwrap_or_default(),
            };
            Ok(Some(patch))
        })
    }

    fn on_user_bash<'a>(
        &'a self,
        ev: &'a UserBashEvent,
        ctx: &'a pi_tools::ToolContext,
    ) -> BoxFuture<'a, UserBashAnswer> {
        Box::pin(async move {
            if !self.engine.handles("user_bash") {
                return UserBashAnswer::default();
            }
            let event = HookEvent::UserBash {
                command: &ev.command,
                exclude_from_context: ev.exclude_from_context,
                cwd: ev.cwd.to_string_lossy().into_owned(),
            }
            .to_value();
            let env = CallEnv { nested: None, tool_ctx: Some(ctx) };
            match self.engine.invoke(Entry::UserBash, event, &env).await {
                Ok(out) => convert::user_bash_answer(&out),
                Err(e) => UserBashAnswer { result: None, errors: vec![e.to_string()] },
            }
        })
    }

    fn on_before_compact<'a>(
        &'a self,
        event: &'a Value,
    ) -> BoxFuture<'a, Result<Option<pi_agent::compaction::CompactionHook>, pi_agent::HandlerError>> {
        Box::pin(async move {
            if !self.engine.handles("session_before_compact") {
                return Ok(None);
            }
            let out = self
                .engine
                .invoke(Entry::BeforeCompact, event.clone(), &CallEnv::default())
                .await
                .map_err(|e| e.to_string())?;
            if let Some(e) = out.get("errors").and_then(Value::as_array).and_then(|a| a.first()) {
                return Err(e.as_str().unwrap_or_default().into());
            }
            if out.get("cancel").and_then(Value::as_bool) == Some(true) {
                return Ok(Some(pi_agent::compaction::CompactionHook::Cancel));
            }
            Ok(out.get("compaction").cloned().map(pi_agent::compaction::CompactionHook::Supply))
        })
    }

    fn on_compact<'a>(&'a self, event: &'a Value) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if self.engine.handles("session_compact") {
                let _ = self
                    .engine
                    .invoke(Entry::Event("session_compact".into()), event.clone(), &CallEnv::default())
                    .await;
            }
        })
    }

    fn listens(&self, event: &str) -> bool {
        self.engine.handles(event)
    }

    fn observe<'a>(&'a self, event: &'a str, payload: Value) -> BoxFuture<'a, Observed> {
        Box::pin(async move {
            match self.engine.invoke(Entry::Event(event.to_string()), payload, &CallEnv::default()).await {
                Ok(out) => Observed {
                    value: out.get("value").cloned(),
                    errors: out
                        .get("errors")
                        .and_then(Value::as_array)
                        .map(|a| a.iter().filter_map(|e| e.as_str().map(str::to_string)).collect())
                        .unwrap_or_default(),
                },
                Err(e) => Observed { value: None, errors: vec![e.to_string()] },
            }
        })
    }

    fn observe_later(&self, event: &str, payload: Value) {
        self.engine.post(Entry::Event(event.to_string()), payload);
    }
}
