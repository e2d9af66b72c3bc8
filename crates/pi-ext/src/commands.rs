//! Commands extensions register (`pi.registerCommand`), the `input` event,
//! and the session extensions read and change (`ctx.sessionManager`,
//! `pi.appendEntry`, …).

use pi_agent::HookEvent;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::{ExtCommand, InputOutcome, SessionApi};
use crate::engine::CallEnv;
use crate::engine::protocol::{Entry, Hook};
use crate::{ExtensionError, LoadedExtensions};

impl LoadedExtensions {
    /// Let extensions read and change the session (reads are empty and
    /// changes ignored until this is called).
    pub fn bind_session(&self, api: Arc<dyn SessionApi>) {
        for e in &self.extensions {
            e.engine.bind_session(api.clone());
        }
    }

    /// The commands the extensions registered, in load order, then
    /// registration order (within one extension a name registered again
    /// replaces the first).
    pub fn commands(&self) -> Vec<ExtCommand> {
        let mut out = Vec::new();
        for e in &self.extensions {
            for c in e.engine.commands() {
                let Some(name) = c.get("name").and_then(Value::as_str) else { continue };
                let description = c.get("description").and_then(Value::as_str).map(str::to_string);
                let completions = c.get("completions").and_then(Value::as_bool) == Some(true);
                out.push(ExtCommand { name: name.to_string(), description, path: e.engine.path.clone(), completions });
            }
        }
        out
    }

    /// Run command `name` of the extension at `path` with `args` (the text
    /// after the name). `None`: no such command. A handler that fails is
    /// reported (event `command`).
    pub async fn run_command(&self, path: &str, name: &str, args: &str) -> Option<Vec<ExtensionError>> {
        let e = self.extensions.iter().find(|e| e.engine.path == path)?;
        if !e.engine.commands().iter().any(|c| c.get("name").and_then(Value::as_str) == Some(name)) {
            return None;
        }
        let payload = json!({"name": name, "args": args});
        Some(handler_errors(path, "command", &e.engine.invoke(Entry::Command, payload, &CallEnv::default()).await))
    }

    /// The suggestions of command `name` (of the extension at `path`) for
    /// an argument starting `prefix`: `(value, label, description)`; `None`
    /// when it has none or does not answer within
    /// [`COMPONENT_WAIT`](crate::engine::component::COMPONENT_WAIT) (an
    /// answer given as a promise is kept and shown from the next keystroke).
    /// Blocks: call it from the UI, never from an extension's engine thread.
    pub fn argument_completions(&self, path: &str, name: &str, prefix: &str) -> Option<Vec<(String, String, String)>> {
        let e = self.extensions.iter().find(|e| e.engine.path == path)?;
        let wait = crate::engine::component::COMPONENT_WAIT;
        let answer = e.engine.hook_blocking_within(Hook::Completions, name, json!({"prefix": prefix}), wait).ok()?;
        let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
        let items: Vec<_> = answer
            .as_array()?
            .iter()
            .filter(|i| i.get("value").is_some_and(Value::is_string))
            .map(|i| {
                let label = i.get("label").and_then(Value::as_str).map_or_else(|| text(i, "value"), str::to_string);
                (text(i, "value"), label, text(i, "description"))
            })
            .collect();
        (!items.is_empty()).then_some(items)
    }

    /// The custom message types these extensions draw: `(customType,
    /// extension path)`, in load order.
    pub fn message_renderers(&self) -> Vec<(String, String)> {
        self.extensions
            .iter()
            .flat_map(|e| e.engine.renderers().into_iter().map(|t| (t, e.engine.path.clone())))
            .collect()
    }

    /// The custom entry types these extensions draw: `(customType,
    /// extension path)`, in load order.
    pub fn entry_renderers(&self) -> Vec<(String, String)> {
        self.extensions
            .iter()
            .flat_map(|e| e.engine.entry_renderers().into_iter().map(|t| (t, e.engine.path.clone())))
            .collect()
    }

    /// Draw `entry` (a `custom` session entry, JSON) with the entry renderer
    /// of its type of the extension at `path`, at `width` (see
    /// [`LoadedExtensions::render_message`]).
    pub fn render_entry(&self, path: &str, entry: &Value, expanded: bool, width: u16) -> Option<Vec<String>> {
        self.render(path, entry, expanded, width, true)
    }

    /// Draw `message` (JSON, `role: "custom"`) with the renderer of its type
    /// of the extension at `path`, at `width`: its lines; `None` when it has
    /// none, draws nothing or does not answer within
    /// [`COMPONENT_WAIT`](crate::engine::component::COMPONENT_WAIT). Blocks:
    /// call it from the UI.
    pub fn render_message(&self, path: &str, message: &Value, expanded: bool, width: u16) -> Option<Vec<String>> {
        self.render(path, message, expanded, width, false)
    }

    /// [`LoadedExtensions::render_message`] (`entry`: with the entry renderer).
    fn render(&self, path: &str, value: &Value, expanded: bool, width: u16, entry: bool) -> Option<Vec<String>> {
        let custom_type = value.get("customType").and_then(Value::as_str)?;
        let payload = json!({"message": value, "expanded": expanded, "width": width, "entry": entry});
        self.draw(path, Hook::RenderMessage, custom_type, payload)
    }

    /// Ask the extension at `path` to draw (`hook` of `name`): its lines,
    /// `None` when it draws nothing or does not answer within
    /// [`COMPONENT_WAIT`](crate::engine::component::COMPONENT_WAIT).
    fn draw(&self, path: &str, hook: Hook, name: &str, payload: Value) -> Option<Vec<String>> {
        let e = self.extensions.iter().find(|e| e.engine.path == path)?;
        let wait = crate::engine::component::COMPONENT_WAIT;
        let answer = e.engine.hook_blocking_within(hook, name, payload, wait).ok()?;
        Some(answer.as_array()?.iter().map(|l| l.as_str().unwrap_or_default().to_string()).collect())
    }

    /// The MCP servers these extensions registered: `(name, config,
    /// extension path)`, in load order.
    pub fn mcp_servers(&self) -> Vec<(String, Value, String)> {
        let mut out = Vec::new();
        for e in &self.extensions {
            for r in e.engine.mcp_servers() {
                let name = r.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
                out.push((name, r.get("config").cloned().unwrap_or(Value::Null), e.engine.path.clone()));
            }
        }
        out
    }

    /// The tools these extensions draw (`renderCall`/`renderResult`):
    /// `(tool name, extension path)`, in load order.
    pub fn tool_renderers(&self) -> Vec<(String, String)> {
        self.extensions
            .iter()
            .flat_map(|e| e.engine.tool_renderers().into_iter().map(|t| (t, e.engine.path.clone())))
            .collect()
    }

    /// Draw one slot of tool `name`'s row with the extension at `path`
    /// (`request`: `{slot: "call" | "result", toolCallId, args, result,
    /// isPartial, expanded, isError, executionStarted, durationMs}`) at
    /// `width`: its lines; `None` when it has no renderer for the slot, it
    /// fails, or it does not answer within
    /// [`COMPONENT_WAIT`](crate::engine::component::COMPONENT_WAIT). Blocks:
    /// call it from the UI.
    pub fn render_tool(&self, path: &str, name: &str, mut request: Value, width: u16) -> Option<Vec<String>> {
        request["width"] = json!(width);
        self.draw(path, Hook::RenderTool, name, request)
    }

    /// The keyboard shortcuts these extensions registered: `(key,
    /// description, extension path)`, in load order.
    pub fn shortcuts(&self) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        for e in &self.extensions {
            for s in e.engine.shortcuts() {
                let key = s.get("key").and_then(Value::as_str).unwrap_or_default().to_string();
                let description = s.get("description").and_then(Value::as_str).unwrap_or_default().to_string();
                out.push((key, description, e.engine.path.clone()));
            }
        }
        out
    }

    /// Run the handler of shortcut `key` of the extension at `path`. `None`:
    /// no such shortcut. A handler that fails is reported (event `shortcut`).
    pub async fn run_shortcut(&self, path: &str, key: &str) -> Option<Vec<ExtensionError>> {
        let e = self.extensions.iter().find(|e| e.engine.path == path)?;
        if !e.engine.shortcuts().iter().any(|s| s.get("key").and_then(Value::as_str) == Some(key)) {
            return None;
        }
        let outcome = e.engine.invoke(Entry::Shortcut, json!({"key": key}), &CallEnv::default()).await;
        Some(handler_errors(path, "shortcut", &outcome))
    }

    /// The `input` handlers of these extensions on `text`/`images`,
    /// chained: each sees what the one before made of it; the first
    /// `handled` ends the chain.
    async fn input(&self, event: &mut Value, errors: &mut Vec<ExtensionError>) -> bool {
        for e in &self.extensions {
            if !e.engine.handles("input") {
                continue;
            }
            let report = |error: String| ExtensionError { path: e.engine.path.clone(), event: "input".into(), error };
            match e.engine.invoke(Entry::Input, event.clone(), &CallEnv::default()).await {
                Ok(v) => {
                    for err in v.get("errors").and_then(Value::as_array).into_iter().flatten() {
                        errors.push(report(err.as_str().unwrap_or_default().to_string()));
                    }
                    if v.get("action").and_then(Value::as_str) == Some("handled") {
                        return true;
                    }
                    if let Some(t) = v.get("text").and_then(Value::as_str) {
                        event["text"] = json!(t);
                    }
                    if let Some(images) = v.get("images").filter(|i| i.is_array()) {
                        event["images"] = images.clone();
                    }
                }
                Err(error) => errors.push(report(error.to_string())),
            }
        }
        false
    }
}

/// Run the `input` handlers of every extension, in load order, on a
/// message from `source` (`"interactive"`, `"rpc"`, `"extension"`) with
/// `streaming_behavior` (`"steer"`, `"followUp"`) while a run goes on.
/// Failing handlers are returned for reporting; the message goes on.
pub async fn run_input(
    all: &[Arc<LoadedExtensions>],
    text: &str,
    images: Vec<Value>,
    source: &str,
    streaming_behavior: Option<&str>,
) -> (InputOutcome, Vec<ExtensionError>) {
    let mut event = HookEvent::Input { text, source, images, streaming_behavior }.to_value();
    let mut errors = Vec::new();
    for l in all {
        if l.input(&mut event, &mut errors).await {
            return (InputOutcome::Handled, errors);
        }
    }
    let text = event.get("text").and_then(Value::as_str).unwrap_or(text).to_string();
    let images = event.get("images").and_then(Value::as_array).cloned().unwrap_or_default();
    (InputOutcome::Continue { text, images }, errors)
}

/// What the `before_agent_start` handlers asked for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BeforeAgentStart {
    /// The system prompt for this run, when a handler replaced it (chained).
    pub system_prompt: Option<String>,
    /// Custom messages to add to the run (`{customType, content, display, details}`).
    pub messages: Vec<Value>,
    /// Failing handlers, to report.
    pub errors: Vec<ExtensionError>,
    /// `systemPromptOptions` as the handlers left it (they change it in place).
    pub options: Value,
}

/// The failures of one handler call (its reported `errors`, or the call's
/// own failure) as extension errors of `event`.
pub(crate) fn handler_errors(
    path: &str,
    event: &str,
    outcome: &Result<Value, crate::engine::error::EngineError>,
) -> Vec<ExtensionError> {
    let report = |error: String| ExtensionError { path: path.to_string(), event: event.into(), error };
    match outcome {
        Ok(v) => v
            .get("errors")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|e| report(e.as_str().unwrap_or_default().to_string()))
            .collect(),
        Err(e) => vec![report(e.to_string())],
    }
}

/// What starts a run, as `before_agent_start` describes it.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOpening {
    /// A user's prompt (as the agent will send it).
    User(String),
    /// A custom message (`pi.sendMessage` with `triggerTurn`), as JSON.
    Custom(Value),
}

/// Run the `before_agent_start` handlers of every extension, in load order,
/// before a run that `opening` starts with `system_prompt`; `options` is the
/// structured `systemPromptOptions` they may change in place.
pub async fn run_before_agent_start(
    all: &[Arc<LoadedExtensions>],
    opening: RunOpening,
    system_prompt: &str,
    options: Value,
) -> BeforeAgentStart {
    let mut out = BeforeAgentStart::default();
    let mut event = match opening {
        RunOpening::User(prompt) => HookEvent::BeforeAgentStartUser {
            message_type: "user",
            prompt: &prompt,
            images: [],
            system_prompt,
            system_prompt_options: options,
        }
        .to_value(),
        RunOpening::Custom(message) => HookEvent::BeforeAgentStartCustom {
            message_type: "custom",
            message,
            system_prompt,
            system_prompt_options: options,
        }
        .to_value(),
    };
    for l in all {
        for e in &l.extensions {
            if !e.engine.handles("before_agent_start") {
                continue;
            }
            let report = |error: String| ExtensionError {
                path: e.engine.path.clone(),
                event: "before_agent_start".into(),
                error,
            };
            match e.engine.invoke(Entry::BeforeAgentStart, event.clone(), &CallEnv::default()).await {
                Ok(v) => {
                    for err in v.get("errors").and_then(Value::as_array).into_iter().flatten() {
                        out.errors.push(report(err.as_str().unwrap_or_default().to_string()));
                    }
                    out.messages.extend(v.get("messages").and_then(Value::as_array).cloned().unwrap_or_default());
                    if let Some(p) = v.get("systemPrompt").and_then(Value::as_str)
                        && p != event["systemPrompt"]
                    {
                        event["systemPrompt"] = json!(p);
                        out.system_prompt = Some(p.to_string());
                    }
                    if let Some(o) = v.get("systemPromptOptions").filter(|o| o.is_object()) {
                        event["systemPromptOptions"] = o.clone();
                    }
                }
                Err(error) => out.errors.push(report(error.to_string())),
            }
        }
    }
    out.options = event["systemPromptOptions"].take();
    out
}

/// The names commands are invoked by: a name registered by one extension
/// only is itself; a name several extensions registered gets `:1`, `:2`, …
/// in load order (as the reference).
pub fn command_names(commands: &[ExtCommand]) -> Vec<String> {
    let mut seen: Vec<(&str, usize)> = Vec::new();
    commands
        .iter()
        .map(|c| {
            let total = commands.iter().filter(|o| o.name == c.name).count();
            if total == 1 {
                return c.name.clone();
            }
            let n = match seen.iter_mut().find(|(name, _)| *name == c.name) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    seen.push((&c.name, 1));
                    1
                }
            };
            format!("{}:{n}", c.name)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(name: &str, path: &str) -> ExtCommand {
        ExtCommand { name: name.into(), description: None, path: path.into(), completions: false }
    }

    #[test]
    fn names_several_extensions_share_get_numbers_in_load_order() {
        let list = [cmd("review", "/a.ts"), cmd("deploy", "/a.ts"), cmd("review", "/b.ts"), cmd("review", "/c.ts")];
        assert_eq!(command_names(&list), ["review:1", "deploy", "review:2", "review:3"]);
        assert!(command_names(&[]).is_empty());
    }
}
