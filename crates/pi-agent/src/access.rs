//! What front ends read and change of an [`Agent`]: its fields are the
//! crate's own, so every change goes through one of these methods (and can
//! keep what depends on it in step).

use std::sync::Arc;

use pi_ai::Model;
use pi_tools::ToolContext;

use crate::agent::{Agent, InputExpander, SharedSession};
use crate::queues::Queue;
use crate::{AgentMessage, Dispatcher, PromptSections, RunTicket};

impl Agent {
    /// The conversation so far (agent-only messages included).
    pub fn messages(&self) -> &[AgentMessage] {
        &self.messages
    }

    /// Add a message the session has recorded already to the conversation
    /// (a user's `!command` run while a run held the agent).
    pub fn push_recorded(&mut self, message: AgentMessage) {
        self.messages.push(message);
    }

    /// The system prompt sent with every request.
    pub fn system_prompt(&self) -> &str {
        &self.system_prompt
    }

    /// Set the system prompt (the extensions' view of it follows at the
    /// next request, or by [`Agent::publish_system_prompt`]).
    pub fn set_system_prompt(&mut self, prompt: String) {
        self.system_prompt = prompt;
    }

    /// Set the system prompt, returning the one it replaces.
    pub fn replace_system_prompt(&mut self, prompt: String) -> String {
        std::mem::replace(&mut self.system_prompt, prompt)
    }

    /// Show the extensions the system prompt as it is now (done before
    /// every request; copied only when it changed).
    pub fn publish_system_prompt(&self) {
        if let Ok(mut view) = self.prompt_view.lock()
            && *view != self.system_prompt
        {
            view.clone_from(&self.system_prompt);
        }
    }

    /// The system prompt as sections, when known.
    pub fn system_sections(&self) -> Option<&PromptSections> {
        self.system_sections.as_ref()
    }

    /// Set the system prompt's sections (recorded as system messages).
    pub fn set_system_sections(&mut self, sections: Option<PromptSections>) {
        self.system_sections = sections;
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Use another model from the next request on.
    pub fn set_model(&mut self, model: Model) {
        self.model = model;
    }

    /// The model's API key as resolved.
    pub fn api_key(&self) -> Option<&str> {
        self.api_key.as_deref()
    }

    /// Set the model's API key.
    pub fn set_api_key(&mut self, key: Option<String>) {
        self.api_key = key;
    }

    /// The thinking level, when the model reasons (`None`: off).
    pub fn thinking(&self) -> Option<&str> {
        self.thinking.as_deref()
    }

    /// Set the thinking level (`None`: off).
    pub fn set_thinking(&mut self, level: Option<String>) {
        self.thinking = level;
    }

    /// The `compaction` settings.
    pub fn compaction_settings(&self) -> &crate::compaction::CompactionSettings {
        &self.compaction
    }

    /// The tools and their handlers.
    pub fn dispatcher(&self) -> &Dispatcher {
        &self.dispatcher
    }

    /// The tools and their handlers, to change.
    pub fn dispatcher_mut(&mut self) -> &mut Dispatcher {
        &mut self.dispatcher
    }

    /// Folder, session facts and the mutation queue handed to tools.
    pub fn tool_ctx(&self) -> &ToolContext {
        &self.tool_ctx
    }

    /// The tools' context, to change.
    pub fn tool_ctx_mut(&mut self) -> &mut ToolContext {
        &mut self.tool_ctx
    }

    /// The ticket of the run a front end accepted: the next
    /// [`Agent::prompt_with_images`] takes it (an abort since ends that run).
    pub fn set_pending_run(&mut self, ticket: Option<RunTicket>) {
        self.pending_run = ticket;
    }

    /// Messages to inject after the current turn's tool calls (`steer`).
    pub fn steering(&self) -> &Queue {
        &self.steering
    }

    /// Messages to run after the current run ends (`follow_up`).
    pub fn follow_ups(&self) -> &Queue {
        &self.follow_ups
    }

    /// The session every message is recorded into.
    pub fn session(&self) -> &SharedSession {
        &self.session
    }

    /// Settings a controller changes while a run holds the agent.
    pub fn live(&self) -> &crate::live::LiveSettings {
        &self.live
    }

    /// Messages extensions sent, recorded before the next request.
    pub fn inbox(&self) -> &crate::Inbox {
        &self.inbox
    }

    /// The system prompt as extensions read it (`ctx.getSystemPrompt()`).
    pub fn prompt_view(&self) -> &Arc<std::sync::Mutex<String>> {
        &self.prompt_view
    }

    /// Expand user messages before they are sent (`/skill:name`, templates).
    pub fn set_expand_input(&mut self, f: Option<InputExpander>) {
        self.expand_input = f;
    }

    /// Take the expander of user messages out (a run without expansion puts it back after).
    pub fn take_expand_input(&mut self) -> Option<InputExpander> {
        self.expand_input.take()
    }

    /// The expander of user messages, when set.
    pub fn expand_input(&self) -> Option<&InputExpander> {
        self.expand_input.as_ref()
    }
}
