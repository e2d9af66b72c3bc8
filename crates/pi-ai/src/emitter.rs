//! The partial message of a response being streamed and the events that
//! change it. Every provider drives one [`Emitter`]; it keeps the message and
//! the events consistent. The message is shared with the events
//! ([`PartialMessage`]), so an event costs as much as its delta, never a copy
//! of the message: streaming stays linear in the size of the response.

use std::collections::HashMap;

use serde_json::Value;
use tokio::sync::mpsc;

use crate::error::ProviderError;
use crate::event::{AssistantMessageEvent, PartialMessage};
use crate::failure::Failure;
use crate::json_args;
use crate::limits::{PARTIAL_PARSE_ALWAYS, PARTIAL_PARSE_GROWTH_DIVISOR};
use crate::model::Model;
use crate::types::{AssistantMessage, ContentBlock, StopReason, ToolCall, Usage, now_ms};

/// Builds an [`AssistantMessage`] block by block and sends the matching events.
pub(crate) struct Emitter {
    tx: mpsc::Sender<AssistantMessageEvent>,
    /// The message so far, shared with the events.
    msg: PartialMessage,
    prices: crate::model::ModelCost,
    /// The kind of each block, by content index.
    kinds: Vec<BlockKind>,
    /// Content indexes whose block has been closed.
    ended: Vec<bool>,
    /// Raw argument text of open tool calls, by content index.
    raw_args: HashMap<usize, String>,
    /// Raw length at the last partial parse, by content index.
    parsed_len: HashMap<usize, usize>,
    /// Whether `start` was sent.
    started: bool,
    /// The request's hooks that hear the answer, when any do.
    hooks: Option<crate::hooks::SharedHooks>,
    /// The names of the request's tools, when a call's name must be matched
    /// to them without regard to case (see [`Emitter::local_tool_name`]).
    tool_names: Vec<String>,
}

impl Emitter {
    pub fn new(tx: mpsc::Sender<AssistantMessageEvent>, model: &Model) -> Self {
        Emitter {
            tx,
            msg: PartialMessage::new(AssistantMessage {
                api: crate::intern::intern(&model.api),
                provider: crate::intern::intern(&model.provider),
                model: crate::intern::intern(&model.id),
                timestamp: now_ms(),
                ..Default::default()
            }),
            prices: model.cost.clone(),
            kinds: Vec::new(),
            ended: Vec::new(),
            raw_args: HashMap::new(),
            parsed_len: HashMap::new(),
            started: false,
            hooks: None,
            tool_names: Vec::new(),
        }
    }

    /// Note the names of the request's tools.
    pub(crate) fn know_tools<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) {
        self.tool_names = names.into_iter().map(str::to_string).collect();
    }

    /// The request's tool a call names, spelled as the tool spells it when
    /// [`Emitter::know_tools`] was told the names (Anthropic answers a
    /// subscription request in Claude Code's spelling); else, or when no
    /// tool matches, the name as it came.
    pub(crate) fn local_tool_name(&self, name: &str) -> String {
        if self.tool_names.iter().any(|t| t == name) {
            return name.to_string();
        }
        self.tool_names.iter().find(|t| t.eq_ignore_ascii_case(name)).cloned().unwrap_or_else(|| name.to_string())
    }

    /// Let `hooks` hear the answer (its status and headers, its stream events).
    pub(crate) fn hear_with(&mut self, hooks: Option<crate::hooks::SharedHooks>) {
        use crate::hooks::point;
        self.hooks = hooks.filter(|h| h.0.wants(point::RESPONSE) || h.0.wants(point::STREAM_EVENT));
    }

    /// Hand the answer's status and headers to the hooks that want them.
    pub(crate) async fn response(&self, status: u16, headers: &reqwest::header::HeaderMap) {
        if let Some(h) = self.hooks.as_ref().and_then(|h| h.at(crate::hooks::point::RESPONSE)) {
            h.response(status, crate::http::header_object(headers)).await;
        }
    }

    /// Hand one parsed stream event to the hooks that want it.
    pub(crate) async fn raw(&self, data: &Value) {
        if let Some(h) = self.hooks.as_ref().and_then(|h| h.at(crate::hooks::point::STREAM_EVENT)) {
            h.stream_event(data.clone()).await;
        }
    }

    async fn send(&self, ev: AssistantMessageEvent) -> Result<(), ProviderError> {
        self.tx.send(ev).await.map_err(|_| ProviderError::ReceiverGone)
    }

    /// A copy of the message so far.
    #[cfg(test)]
    pub fn message(&self) -> AssistantMessage {
        self.msg.snapshot()
    }

    /// Send `start` (once): when the server has accepted the request.
    pub async fn start(&mut self) -> Result<(), ProviderError> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        // A copy, not the shared message: nothing is streamed yet (so it is
        // cheap), and `start` keeps showing the message as it began.
        self.send(AssistantMessageEvent::Start { partial: self.msg.snapshot().into() }).await
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
        self.msg.write(|m| *m.usage = usage);
    }

    /// Set the provider's response id (`only_first`: unless one is set).
    pub fn set_response_id(&mut self, id: &str, only_first: bool) {
        self.msg.write(|m| {
            if !(only_first && m.response_id.is_some()) {
                m.response_id = Some(id.into());
            }
        });
    }

    /// Note the model the provider named, unless it is the one asked for
    /// or one was noted already.
    pub fn set_response_model(&mut self, name: &str) {
        self.msg.write(|m| {
            if !name.is_empty() && name != &*m.model && m.response_model.is_none() {
                m.response_model = Some(name.into());
            }
        });
    }

    /// Set the provider's own stop reason.
    pub fn set_raw_stop_reason(&mut self, reason: &str) {
        self.msg.write(|m| m.raw_stop_reason = Some(crate::intern::intern(reason)));
    }

    fn push(&mut self, block: ContentBlock) -> usize {
        self.kinds.push(BlockKind::of(&block));
        self.ended.push(false);
        self.msg.write(|m| m.content.push(block));
        self.kinds.len() - 1
    }

    /// Whether the block at `index` is still open.
    pub fn is_open(&self, index: usize) -> bool {
        self.ended.get(index).is_some_and(|e| !e)
    }

    /// The index of the last block if it is an open block of the same kind.
    pub fn open_last(&self, kind: BlockKind) -> Option<usize> {
        let i = self.kinds.len().checked_sub(1)?;
        (self.is_open(i) && self.kinds[i] == kind).then_some(i)
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
        self.msg.write(|m| {
            if let Some(ContentBlock::Text { text }) = m.content.get_mut(i) {
                text.push_str(delta);
            }
        });
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
        self.msg.write(|m| {
            if let Some(ContentBlock::Thinking { thinking, .. }) = m.content.get_mut(i) {
                thinking.push_str(delta);
            }
        });
        self.send(AssistantMessageEvent::ThinkingDelta {
            content_index: i,
            delta: delta.to_string(),
            partial: self.msg.clone(),
        })
        .await
    }

    /// Replace or extend a thinking block's signature (no event).
    pub fn thinking_signature(&mut self, i: usize, sig: &str, append: bool) {
        self.msg.write(|m| {
            if let Some(ContentBlock::Thinking { signature, .. }) = m.content.get_mut(i) {
                match signature {
                    Some(s) if append => s.push_str(sig),
                    _ => *signature = Some(sig.to_string()),
                }
            }
        });
    }

    pub async fn toolcall_start(&mut self, id: &str, name: &str) -> Result<usize, ProviderError> {
        let i = self.push(ContentBlock::tool_call(id, name, Value::Object(Default::default())));
        self.raw_args.insert(i, String::new());
        self.send(AssistantMessageEvent::ToolcallStart { content_index: i, partial: self.msg.clone() }).await?;
        Ok(i)
    }

    /// Set a tool call's reasoning signature (Google's `thoughtSignature`; no event).
    pub fn toolcall_signature(&mut self, i: usize, sig: &str) {
        self.msg.write(|m| {
            if let Some(ContentBlock::ToolCall(c)) = m.content.get_mut(i) {
                c.thought_signature = Some(sig.into());
            }
        });
    }

    /// Fill in a tool call's id or name that arrived after its start.
    pub fn toolcall_identity(&mut self, i: usize, new_id: Option<&str>, new_name: Option<&str>) {
        let new_id = new_id.filter(|s| !s.is_empty());
        let new_name = new_name.filter(|s| !s.is_empty());
        if new_id.is_none() && new_name.is_none() {
            return;
        }
        self.msg.write(|m| {
            if let Some(ContentBlock::ToolCall(c)) = m.content.get_mut(i) {
                if let Some(n) = new_id {
                    c.id = n.to_string();
                }
                if let Some(n) = new_name {
                    c.name = crate::intern::intern(n);
                }
            }
        });
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
            if let Some(v) = json_args::parse_partial(raw) {
                self.msg.write(|m| {
                    if let Some(ContentBlock::ToolCall(c)) = m.content.get_mut(i) {
                        c.arguments = v;
                    }
                });
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
        // Parsed outside the lock (the reader may be waiting for it).
        let parsed = (self.kinds[i] == BlockKind::ToolCall)
            .then(|| json_args::parse_tool_arguments(&self.raw_args.remove(&i).unwrap_or_default()));
        let partial = self.msg.clone();
        let ev = self.msg.write(|m| match m.content.get_mut(i)? {
            ContentBlock::Text { text } => {
                Some(AssistantMessageEvent::TextEnd { content_index: i, content: text.clone(), partial })
            }
            ContentBlock::Thinking { thinking, .. } => {
                Some(AssistantMessageEvent::ThinkingEnd { content_index: i, content: thinking.clone(), partial })
            }
            ContentBlock::ToolCall(c) => {
                let (args, err) = parsed.unwrap_or_default();
                c.arguments = args;
                c.arguments_error = err.map(crate::ThinStr::from);
                Some(AssistantMessageEvent::ToolcallEnd {
                    content_index: i,
                    tool_call: ToolCall {
                        id: c.id.clone(),
                        name: c.name.to_string(),
                        arguments: c.arguments.clone(),
                        arguments_error: c.arguments_error.as_deref().map(String::from),
                    },
                    partial,
                })
            }
            ContentBlock::Image { .. } => None,
        });
        match ev {
            Some(ev) => self.send(ev).await,
            None => Ok(()),
        }
    }

    /// Close every open block, in content order.
    pub async fn end_all(&mut self) -> Result<(), ProviderError> {
        for i in 0..self.kinds.len() {
            self.end(i).await?;
        }
        Ok(())
    }

    /// Whether the message has a tool call.
    pub fn has_tool_calls(&self) -> bool {
        self.kinds.contains(&BlockKind::ToolCall)
    }

    /// Send the final `done` event.
    pub async fn done(&mut self, reason: StopReason) {
        let message = self.msg.write(|m| {
            m.stop_reason = reason;
            m.clone()
        });
        let _ = self.send(AssistantMessageEvent::Done { reason, message }).await;
    }

    /// Send an `error` event with this message, without waiting (for
    /// callers outside a runtime).
    pub fn try_error(&self, message: &str) -> Result<(), ProviderError> {
        let error = self.msg.write(|m| {
            m.stop_reason = StopReason::Error;
            m.error_message = Some(message.into());
            m.clone()
        });
        self.tx
            .try_send(AssistantMessageEvent::Error { reason: StopReason::Error, error })
            .map_err(|_| ProviderError::ReceiverGone)
    }

    /// Send the final `error` event.
    pub async fn error(&mut self, reason: StopReason, message: String, failure: Option<Failure>) {
        let error = self.msg.write(|m| {
            m.stop_reason = reason;
            m.error_message = Some(message.into());
            m.failure = failure.map(Box::new);
            m.clone()
        });
        let _ = self.send(AssistantMessageEvent::Error { reason, error }).await;
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
            ContentBlock::ToolCall(_) => BlockKind::ToolCall,
            ContentBlock::Image { .. } => BlockKind::Image,
        }
    }
}
