//! The transcript: what happened, as entries built from the agent's events,
//! each drawn once per width and kept until it changes, so a long session
//! (or a tool output of a hundred thousand lines) costs only the lines on
//! screen per frame.

mod diff;
mod entry;
pub mod format;
mod history;
mod nav;
mod tools;

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use pi_agent::AgentEvent;
use pi_ai::{AssistantMessage, ContentBlock, Message, UserContent};
use ratatui::text::Line;

pub use crate::host::Level;
pub use entry::{BASH_DISPLAY_MAX_BYTES, BashState, Kind, ToolOutcome, ToolState};
pub use nav::Pos;

use crate::text;
use crate::theme::Theme;

/// Columns of padding left and right of entries.
pub const PAD_X: usize = 1;

/// What drawing depends on besides an entry itself.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    /// The theme.
    pub theme: &'a Theme,
    /// Columns available.
    pub width: usize,
    /// Tool output (and the header) expanded.
    pub expanded: bool,
    /// Thinking blocks shown.
    pub show_thinking: bool,
    /// The home folder, shown as `~`.
    pub home: Option<&'a Path>,
    /// The expand key as hints show it.
    pub expand_key: &'a str,
    /// Now (for running timers).
    pub now: Instant,
}

impl Ctx<'_> {
    /// Columns inside the entries' padding.
    pub fn inner_width(&self) -> usize {
        self.width.saturating_sub(2 * PAD_X).max(1)
    }
}

type CacheKey = (usize, bool, bool, u64, u64, bool);

/// An entry with its drawing cache.
#[derive(Debug, Clone)]
pub struct Entry {
    /// What it is.
    pub kind: Kind,
    /// Finished (nothing will change it but expansion and width).
    pub done: bool,
    rev: u64,
    cache: Option<(CacheKey, Vec<Line<'static>>)>,
}

impl Entry {
    fn new(kind: Kind, done: bool) -> Entry {
        Entry { kind, done, rev: 0, cache: None }
    }

    fn touch(&mut self) {
        self.rev += 1;
    }

    /// Whether drawing depends on the clock (a running timer).
    fn live(&self) -> bool {
        matches!(&self.kind, Kind::Tool(t) if t.result.is_none() && t.started.is_some())
    }
}

/// The entries of a session.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    entries: Vec<Entry>,
    tools: HashMap<String, usize>,
    streaming: Option<usize>,
    /// Changes whenever the theme does (every drawing is redone).
    pub theme_generation: u64,
    /// The extensions' custom message renderers, by `customType`.
    renderers: HashMap<String, crate::host::MessageRenderer>,
    /// The extensions' tool renderers, by tool name.
    tool_renderers: HashMap<String, crate::host::ToolRenderer>,
    /// The extensions' entry renderers, by `customType`.
    entry_renderers: HashMap<String, crate::host::MessageRenderer>,
}

/// The user-visible text of a user message.
fn user_text(content: &UserContent) -> String {
    match content {
        UserContent::Text(t) => t.clone(),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .map(|b| match b {
                ContentBlock::Text { text } => text.clone(),
                ContentBlock::Image { mime_type, .. } => text::image_placeholder(mime_type),
                _ => String::new(),
            })
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

impl Transcript {
    /// An empty transcript.
    pub fn new() -> Transcript {
        Transcript::default()
    }

    /// Use these renderers for the extensions' messages shown from now on.
    pub fn set_renderers(&mut self, renderers: HashMap<String, crate::host::MessageRenderer>) {
        // Messages already shown (a continued session's) are drawn again with them.
        for e in &mut self.entries {
            if let Kind::Custom { custom_type, renderer, .. } = &mut e.kind {
                *renderer = renderers.get(custom_type.as_str()).cloned();
                e.cache = None;
            }
        }
        self.renderers = renderers;
    }

    /// Draw the extensions' `custom` entries appended from now on with these renderers.
    pub fn set_entry_renderers(&mut self, renderers: HashMap<String, crate::host::MessageRenderer>) {
        self.entry_renderers = renderers;
    }

    /// Draw the extensions' tools with these renderers from now on (rows
    /// already shown are drawn again).
    pub fn set_tool_renderers(&mut self, renderers: HashMap<String, crate::host::ToolRenderer>) {
        for e in &mut self.entries {
            if let Kind::Tool(t) = &mut e.kind {
                t.renderer = renderers.get(t.name.as_str()).cloned();
                e.cache = None;
            }
        }
        self.tool_renderers = renderers;
    }

    /// An extension's message (`role: "custom"`, as JSON) as an entry, when
    /// it is to be shown (`display: true`).
    pub(crate) fn custom_entry(&self, message: &serde_json::Value) -> Option<Kind> {
        if message.get("role").and_then(serde_json::Value::as_str) != Some("custom")
            || message.get("display").and_then(serde_json::Value::as_bool) != Some(true)
        {
            return None;
        }
        let custom_type = message.get("customType").and_then(serde_json::Value::as_str).unwrap_or_default();
        let text = match message.get("content") {
            Some(serde_json::Value::String(t)) => t.clone(),
            Some(other) => serde_json::from_value(other.clone()).map(|u| user_text(&u)).unwrap_or_default(),
            None => String::new(),
        };
        Some(Kind::Custom {
            custom_type: custom_type.to_string(),
            text,
            message: message.clone(),
            renderer: self.renderers.get(custom_type).cloned(),
        })
    }

    /// The entries.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forget everything (a new session).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.tools.clear();
        self.streaming = None;
    }

    /// Add a finished entry.
    pub fn push(&mut self, kind: Kind) {
        self.entries.push(Entry::new(kind, true));
    }

    /// Replace the first entry (a replaced header).
    pub fn replace_first(&mut self, kind: Kind) {
        if let Some(e) = self.entries.first_mut() {
            e.kind = kind;
            e.touch();
        }
    }

    /// Replace the last entry.
    pub fn replace_last(&mut self, kind: Kind) {
        if let Some(e) = self.entries.last_mut() {
            e.kind = kind;
            e.touch();
        }
    }

    /// Add a notice.
    pub fn notice(&mut self, level: Level, text: impl Into<String>) {
        self.push(Kind::Notice(level, text.into()));
    }

    /// Whether the last answer was aborted (and says so).
    pub fn last_answer_aborted(&self) -> bool {
        self.entries.iter().rev().find_map(|e| match &e.kind {
            Kind::Assistant(m) => Some(m.stop_reason == pi_ai::StopReason::Aborted),
            _ => None,
        }) == Some(true)
    }

    /// The last assistant answer's text (for `/copy`).
    pub fn last_answer(&self) -> Option<String> {
        self.entries.iter().rev().find_map(|e| match &e.kind {
            Kind::Assistant(m) if !m.text().trim().is_empty() => Some(m.text()),
            _ => None,
        })
    }

    fn tool_entry(&mut self, id: &str, name: &str, args: &serde_json::Value) -> usize {
        if let Some(i) = self.tools.get(id) {
            return *i;
        }
        let mut state = ToolState::new(id, name, args.clone());
        state.renderer = self.tool_renderers.get(name).cloned();
        self.entries.push(Entry::new(Kind::Tool(Box::new(state)), false));
        let i = self.entries.len() - 1;
        self.tools.insert(id.to_string(), i);
        i
    }

    fn with_tool(&mut self, id: &str, f: impl FnOnce(&mut ToolState)) {
        if let Some(&i) = self.tools.get(id)
            && let Some(e) = self.entries.get_mut(i)
            && let Kind::Tool(t) = &mut e.kind
        {
            f(t);
            e.touch();
        }
    }

    /// Show the streaming (or final) answer and its tool calls.
    fn assistant(&mut self, m: &AssistantMessage, done: bool) {
        let i = match self.streaming {
            Some(i) => i,
            None => {
                self.entries.push(Entry::new(Kind::Assistant(Box::new(m.clone())), done));
                self.entries.len() - 1
            }
        };
        if let Some(e) = self.entries.get_mut(i) {
            e.kind = Kind::Assistant(Box::new(m.clone()));
            e.done = done;
            e.touch();
        }
        self.streaming = if done { None } else { Some(i) };
        for b in &m.content {
            if let ContentBlock::ToolCall(call) = b
                && let pi_ai::ToolCallBlock { id, name, arguments, .. } = &**call
                && !id.is_empty()
            {
                let t = self.tool_entry(id, name, arguments);
                if let Some(e) = self.entries.get_mut(t)
                    && let Kind::Tool(state) = &mut e.kind
                    && state.result.is_none()
                {
                    state.args = arguments.clone();
                    e.touch();
                }
            }
        }
    }

    /// Apply an agent event.
    pub fn apply(&mut self, ev: &AgentEvent) {
        match ev {
            AgentEvent::MessageStart { message: Message::User(u) } => {
                self.push(Kind::User(user_text(&u.content)));
            }
            AgentEvent::MessageStart { message: Message::Assistant(m) } => {
                self.streaming = None;
                self.assistant(m, false);
            }
            AgentEvent::MessageUpdate { assistant_message_event, .. } => {
                let m = assistant_message_event.message().clone();
                self.assistant(&m, false);
            }
            AgentEvent::MessageEnd { message: Message::Assistant(m) } => self.assistant(m, true),
            AgentEvent::AgentMessageEnd { message } => {
                if let Some(kind) = self.custom_entry(message) {
                    self.push(kind);
                }
            }
            AgentEvent::EntryAppended { entry }
                if entry.get("type").and_then(serde_json::Value::as_str) == Some("custom") =>
            {
                let custom_type = entry.get("customType").and_then(serde_json::Value::as_str).unwrap_or_default();
                if let Some(renderer) = self.entry_renderers.get(custom_type).cloned() {
                    self.push(Kind::Entry { entry: entry.clone(), renderer });
                }
            }
            AgentEvent::ToolExecutionStart { tool_call_id, tool_name, args, parent_tool_call_id: None } => {
                self.tool_entry(tool_call_id, tool_name, args);
                self.with_tool(tool_call_id, |t| t.started = Some(Instant::now()));
            }
            AgentEvent::ToolExecutionUpdate { tool_call_id, partial_result, parent_tool_call_id: None, .. } => {
                let p = ToolOutcome {
                    content: partial_result.content.clone(),
                    details: partial_result.details.clone(),
                    is_error: false,
                };
                self.with_tool(tool_call_id, |t| t.partial = Some(p));
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                tool_name,
                result,
                is_error,
                duration_ms,
                parent_tool_call_id: None,
            } => {
                let i = self.tool_entry(tool_call_id, tool_name, &serde_json::Value::Null);
                let r = ToolOutcome {
                    content: result.content.clone(),
                    details: result.details.clone(),
                    is_error: *is_error,
                };
                self.with_tool(tool_call_id, |t| {
                    t.result = Some(r);
                    t.partial = None;
                    t.ended = Some(Instant::now());
                    t.duration_ms = *duration_ms;
                });
                if let Some(e) = self.entries.get_mut(i) {
                    e.done = true;
                }
            }
            AgentEvent::AutoRetryEnd { success: false, attempt, final_error } => self.notice(
                Level::Error,
                text::retry_failed(*attempt, &crate::sanitize::clean_line(final_error.as_deref().unwrap_or(""))),
            ),
            AgentEvent::CompactionEnd { reason, result, aborted, error_message, .. } => {
                self.compaction_end(reason, result.as_ref(), *aborted, error_message.as_deref());
            }
            AgentEvent::ExtensionError { extension_path, event, error } => {
                self.notice(Level::Error, text::extension_error(extension_path, event, error));
            }
            AgentEvent::AgentEnd { .. } => {
                // Calls that never ran (an aborted or failed answer) are final too.
                for e in &mut self.entries {
                    if let Kind::Tool(t) = &e.kind
                        && t.result.is_none()
                        && !e.done
                    {
                        e.done = true;
                        e.touch();
                    }
                }
                self.streaming = None;
            }
            _ => {}
        }
    }

    fn compaction_end(&mut self, reason: &str, result: Option<&serde_json::Value>, aborted: bool, error: Option<&str>) {
        if aborted {
            let (level, t) = if reason == "manual" {
                (Level::Error, text::COMPACTION_CANCELLED)
            } else {
                (Level::Info, text::AUTO_COMPACTION_CANCELLED)
            };
            self.notice(level, t);
        } else if let Some(r) = result {
            let summary = r["summary"].as_str().unwrap_or_default().to_string();
            let tokens_before = r["tokensBefore"].as_u64().unwrap_or(0);
            self.push(Kind::Compaction { summary, tokens_before });
        } else if let Some(e) = error {
            self.notice(Level::Error, crate::sanitize::clean(e));
        }
    }

    /// Start a user command's entry; its index.
    pub fn begin_bash(&mut self, command: &str, excluded: bool) -> usize {
        let state = BashState { command: command.to_string(), excluded, ..Default::default() };
        self.entries.push(Entry::new(Kind::Bash(Box::new(state)), false));
        self.entries.len() - 1
    }

    /// Change a user command's entry.
    pub fn update_bash(&mut self, i: usize, f: impl FnOnce(&mut BashState)) {
        if let Some(e) = self.entries.get_mut(i)
            && let Kind::Bash(b) = &mut e.kind
        {
            f(b);
            if b.output.len() > BASH_DISPLAY_MAX_BYTES {
                let cut = b.output.len() - BASH_DISPLAY_MAX_BYTES;
                let cut = (cut..b.output.len()).find(|i| b.output.is_char_boundary(*i)).unwrap_or(b.output.len());
                b.output.drain(..cut);
            }
            e.done = b.done;
            e.touch();
        }
    }

    /// The lines of entry `i`, drawn or from the cache.
    pub fn entry_lines(&mut self, i: usize, ctx: &Ctx<'_>) -> &[Line<'static>] {
        let key = (ctx.width, ctx.expanded, ctx.show_thinking, self.theme_generation, self.entries[i].rev, i == 0);
        let e = &mut self.entries[i];
        let fresh = e.live() || e.cache.as_ref().is_none_or(|(k, _)| *k != key);
        if fresh {
            let lines = entry::render(&e.kind, i == 0, ctx);
            e.cache = Some((key, lines));
        }
        e.cache.as_ref().map(|(_, l)| l.as_slice()).unwrap_or(&[])
    }

    /// Total lines at this width.
    pub fn height(&mut self, ctx: &Ctx<'_>) -> usize {
        (0..self.entries.len()).map(|i| self.entry_lines(i, ctx).len()).sum()
    }

    /// `count` lines from line `start` (fewer at the end).
    pub fn window(&mut self, ctx: &Ctx<'_>, start: usize, count: usize) -> Vec<Line<'static>> {
        let mut out = Vec::with_capacity(count);
        let mut at = 0;
        for i in 0..self.entries.len() {
            if out.len() >= count {
                break;
            }
            let lines = self.entry_lines(i, ctx);
            let end = at + lines.len();
            if end > start {
                let from = start.saturating_sub(at);
                let take = (count - out.len()).min(lines.len() - from);
                out.extend(lines[from..from + take].iter().cloned());
            }
            at = end;
        }
        out
    }

    /// Lines containing `query` (case-insensitive), as line numbers.
    pub fn search(&mut self, ctx: &Ctx<'_>, query: &str) -> Vec<usize> {
        let q = query.to_lowercase();
        if q.is_empty() {
            return Vec::new();
        }
        let mut at = 0;
        let mut out = Vec::new();
        for i in 0..self.entries.len() {
            for (k, l) in self.entry_lines(i, ctx).iter().enumerate() {
                if crate::lines::plain(l).to_lowercase().contains(&q) {
                    out.push(at + k);
                }
            }
            at += self.entry_lines(i, ctx).len();
        }
        out
    }

    /// How many leading entries are finished (regular mode prints them for good).
    pub fn finished_prefix(&self) -> usize {
        self.entries.iter().position(|e| !e.done).unwrap_or(self.entries.len())
    }
}

#[cfg(test)]
mod tests;
