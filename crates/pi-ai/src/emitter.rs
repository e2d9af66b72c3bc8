//! The partial message of a response being streamed and the events that
//! change it. Every provider drives one [`Emitter`]; it keeps the message and
//! the events consistent (an event's `partial` is the message after it).

use std::collections::HashMap;

use serde_json::Value;
use tokio::sync::mpsc;

use crate::error::ProviderError;
use crate::event::AssistantMessageEvent;
use crate::failure::Failure;
use crate::json_args;
use crate::model::Model;
use crate::types::{AssistantMessage, ContentBlock, StopReason, ToolCall, Usage, now_ms};

/// Builds an [`AssistantMessage`] block by block and sends the matching events.
pub(crate) struct Emitter {
    tx: mpsc::Sender<AssistantMessageEvent>,
    /// The message so far.
    pub msg: AssistantMessage,
    prices: crate::model::ModelCost,
    /// Raw argument text of open tool calls, by content index.
    raw_args: HashMap<usize, String>,
    /// Content indexes whose block has been closed.
    ended: Vec<bool>,
    /// Raw length at the last partial parse, by content index.
    parsed_len: HashMap<usize, usize>,
    /// Whether `start` was sent.
    started: bool,
}

/// Partial tool arguments are re-parsed on every delta up to this size...
const PARTIAL_PARSE_ALWAYS: usize = 8 * 1024;
/// ...and beyond it only after growing by a quarter since the last parse,
/// which keeps the total work linear in the size of the arguments.
const PARTIAL_PARSE_GROWTH_DIVISOR: usize = 4;

impl Emitter {
    pub fn new(tx: mpsc::Sender<AssistantMessageEvent>, model: &Model) -> Self {
        Emitter {
            tx,
            msg: AssistantMessage {
                api: model.api.clone(),
                provider: model.provider.clone(),
                model: model.id.clone(),
                timestamp: now_ms(),
                ..Default::default()
            },
            prices: model.cost.clone(),
            raw_args: HashMap::new(),
            ended: Vec::new(),
            parsed_len: HashMap::new(),
            started: false,
        }
    }

    async fn send(&self, ev: AssistantMessageEvent) -> Result<(), ProviderError> {
        self.tx.send(ev).await.map_err(|_| ProviderError::ReceiverGone)
    }

    /// Send `start` (once): when the server has accepted the request.
    pub async fn start(&mut self) -> Result<(), ProviderError> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        self.send(AssistantMessageEvent::Start { partial: self.msg.clone() }).await
    }

    /// Set the usage and price it with the model's costs.
    pub fn set_usage(&mut self, mut usage: Usage) {
        usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write;
        let p = &self.prices;
        usage.cost.input = usage.input as f64 * p.input / 1e6;
        usage.cost.output = usage.output as f64 * p.output / 1e6;
        usage.cost.cache_read = usage.cache_read as f64 * p.cache_read / 1e6;
        usage.cost.cache_write = usage.cache_write as f64 * p.cache_write / 1e6;
        usage.cost.total = usage.cost.input + usage.cost.output + usage.cost.cache_read + usage.cost.cache_write;
        usage.cost.total_from_provider.get_or_insert(false);
        self.msg.usage = usage;
    }

    fn push(&mut self, block: ContentBlock) -> usize {
        self.msg.content.push(block);
        self.ended.push(false);
        self.msg.content.len() - 1
    }

    /// Whether the block at `index` is still open.
    pub fn is_open(&self, index: usize) -> bool {
        self.ended.get(index).is_some_and(|e| !e)
    }

    /// The index of the last block if it is an open block of the same kind.
    pub fn open_last(&self, kind: BlockKind) -> Option<usize> {
        let i = self.msg.content.len().checked_sub(1)?;
        (self.is_open(i) && BlockKind::of(&self.msg.content[i]) == kind).then_some(i)
    }

    pub async fn text_start(&mut self) -> Result<usize, ProviderError> {
        let i = self.push(ContentBlock::text(""));
        self.send(AssistantMessageEvent::TextStart { content_index: i, partial: self.msg.clone() }).await?;
        Ok(i)
    }

    pub async fn text_delta(&mut self, i: usize, delta: &str) -> Result<(), ProviderError> {
        if delta.is_empty() {
            return Ok(());
        }
        if let Some(ContentBlock::Text { text }) = self.msg.content.get_mut(i) {
            text.push_str(delta);
        }
        self.send(AssistantMessageEvent::TextDelta {
            content_index: i,
            delta: delta.to_string(),
            partial: self.msg.clone(),
        })
        .await
    }

    pub async fn thinking_start(&mut self, signature: Option<String>) -> Result<usize, ProviderError> {
        let i = self.push(ContentBlock::Thinking { thinking: String::new(), signature });
        self.send(AssistantMessageEvent::ThinkingStart { content_index: i, partial: self.msg.clone() }).await?;
        Ok(i)
    }

    pub async fn thinking_delta(&mut self, i: usize, delta: &str) -> Result<(), ProviderError> {
        if delta.is_empty() {
            return Ok(());
        }
        if let Some(ContentBlock::Thinking { thinking, .. }) = self.msg.content.get_mut(i) {
            thinking.push_str(delta);
        }
        self.send(AssistantMessageEvent::ThinkingDelta {
            content_index: i,
            delta: delta.to_string(),
            partial: self.msg.clone(),
        })
        .await
    }

    /// Replace or extend a thinking block's signature (no event).
    pub fn thinking_signature(&mut self, i: usize, sig: &str, append: bool) {
        if let Some(ContentBlock::Thinking { signature, .. }) = self.msg.content.get_mut(i) {
            match signature {
                Some(s) if append => s.push_str(sig),
                _ => *signature = Some(sig.to_string()),
            }
        }
    }

    pub async fn toolcall_start(&mut self, id: &str, name: &str) -> Result<usize, ProviderError> {
        let i = self.push(ContentBlock::tool_call(id, name, Value::Object(Default::default())));
        self.raw_args.insert(i, String::new());
        self.send(AssistantMessageEvent::ToolcallStart { content_index: i, partial: self.msg.clone() }).await?;
        Ok(i)
    }

    /// Fill in a tool call's id or name that arrived after its start.
    pub fn toolcall_identity(&mut self, i: usize, new_id: Option<&str>, new_name: Option<&str>) {
        if let Some(ContentBlock::ToolCall { id, name, .. }) = self.msg.content.get_mut(i) {
            if let Some(n) = new_id.filter(|s| !s.is_empty()) {
                *id = n.to_string();
            }
            if let Some(n) = new_name.filter(|s| !s.is_empty()) {
                *name = n.to_string();
            }
        }
    }

    pub async fn toolcall_delta(&mut self, i: usize, delta: &str) -> Result<(), ProviderError> {
        if delta.is_empty() {
            return Ok(());
        }
        let raw = self.raw_args.entry(i).or_default();
        raw.push_str(delta);
        let last = self.parsed_len.get(&i).copied().unwrap_or(0);
        if raw.len() <= PARTIAL_PARSE_ALWAYS || raw.len() >= last + last / PARTIAL_PARSE_GROWTH_DIVISOR {
            self.parsed_len.insert(i, raw.len());
            let partial_args = json_args::parse_partial(raw);
            if let (Some(v), Some(ContentBlock::ToolCall { arguments, .. })) =
                (partial_args, self.msg.content.get_mut(i))
            {
                *arguments = v;
            }
        }
        self.send(AssistantMessageEvent::ToolcallDelta {
            content_index: i,
            delta: delta.to_string(),
            partial: self.msg.clone(),
        })
        .await
    }

    /// Replace a tool call's raw arguments with the provider's final text (no event).
    pub fn toolcall_set_raw(&mut self, i: usize, raw: &str) {
        self.raw_args.insert(i, raw.to_string());
    }

    /// The raw argument text received so far.
    pub fn toolcall_raw(&self, i: usize) -> &str {
        self.raw_args.get(&i).map(String::as_str).unwrap_or("")
    }

    /// Close the block at `i`, sending its `*_end` event (once).
    pub async fn end(&mut self, i: usize) -> Result<(), ProviderError> {
        if !self.is_open(i) {
            return Ok(());
        }
        self.ended[i] = true;
        let ev = match &mut self.msg.content[i] {
            ContentBlock::Text { text } => AssistantMessageEvent::TextEnd {
                content_index: i,
                content: text.clone(),
                partial: AssistantMessage::default(),
            },
            ContentBlock::Thinking { thinking, .. } => AssistantMessageEvent::ThinkingEnd {
                content_index: i,
                content: thinking.clone(),
                partial: AssistantMessage::default(),
            },
            ContentBlock::ToolCall { id, name, arguments, arguments_error } => {
                let raw = self.raw_args.remove(&i).unwrap_or_default();
                let (args, err) = json_args::parse_tool_arguments(&raw);
                *arguments = args;
                *arguments_error = err;
                AssistantMessageEvent::ToolcallEnd {
                    content_index: i,
                    tool_call: ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                        arguments: arguments.clone(),
                        arguments_error: arguments_error.clone(),
                    },
                    partial: AssistantMessage::default(),
                }
            }
            ContentBlock::Image { .. } => return Ok(()),
        };
        let ev = with_partial(ev, self.msg.clone());
        self.send(ev).await
    }

    /// Close every open block, in content order.
    pub async fn end_all(&mut self) -> Result<(), ProviderError> {
        for i in 0..self.msg.content.len() {
            self.end(i).await?;
        }
        Ok(())
    }

    /// Whether the message has a tool call.
    pub fn has_tool_calls(&self) -> bool {
        self.msg.content.iter().any(|b| matches!(b, ContentBlock::ToolCall { .. }))
    }

    /// Send the final `done` event.
    pub async fn done(&mut self, reason: StopReason) {
        self.msg.stop_reason = reason;
        let _ = self.send(AssistantMessageEvent::Done { reason, message: self.msg.clone() }).await;
    }

    /// Send an `error` event with the message as it stands, without waiting
    /// (for callers outside a runtime).
    pub fn try_error(&self) -> Result<(), ProviderError> {
        self.tx
            .try_send(AssistantMessageEvent::Error { reason: self.msg.stop_reason, error: self.msg.clone() })
            .map_err(|_| ProviderError::ReceiverGone)
    }

    /// Send the final `error` event.
    pub async fn error(&mut self, reason: StopReason, message: String, failure: Option<Failure>) {
        self.msg.stop_reason = reason;
        self.msg.error_message = Some(message);
        self.msg.failure = failure;
        let _ = self.send(AssistantMessageEvent::Error { reason, error: self.msg.clone() }).await;
    }
}

fn with_partial(ev: AssistantMessageEvent, msg: AssistantMessage) -> AssistantMessageEvent {
    use AssistantMessageEvent::*;
    match ev {
        TextEnd { content_index, content, .. } => TextEnd { content_index, content, partial: msg },
        ThinkingEnd { content_index, content, .. } => ThinkingEnd { content_index, content, partial: msg },
        ToolcallEnd { content_index, tool_call, .. } => ToolcallEnd { content_index, tool_call, partial: msg },
        other => other,
    }
}

/// The kind of a content block, for "append to the open block" decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlockKind {
    Text,
    Thinking,
    ToolCall,
    Image,
}

impl BlockKind {
    fn of(b: &ContentBlock) -> Self {
        match b {
            ContentBlock::Text { .. } => BlockKind::Text,
            ContentBlock::Thinking { .. } => BlockKind::Thinking,
            ContentBlock::ToolCall { .. } => BlockKind::ToolCall,
            ContentBlock::Image { .. } => BlockKind::Image,
        }
    }
}
