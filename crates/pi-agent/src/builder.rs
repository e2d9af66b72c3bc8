//! Building an agent. What is fixed for an agent's life is given once, here,
//! before it runs: the session it records into, how it finds credentials,
//! the history it resumes, how it retries and compacts, and the callbacks
//! its front end listens with. What may change while it runs (the model,
//! the thinking level, the system prompt, the key) has its own methods on
//! [`Agent`]. Parts made beside the agent (the extensions' view of the
//! session) take its handles from [`AgentBuilder::agent`] before it is built.

use std::sync::Arc;

use pi_ai::Model;
use pi_tools::ToolContext;

use crate::agent::{Agent, EventSink, PromptBuilder, RecordFn, SessionErrorFn, SharedSession};
use crate::{AgentMessage, Dispatcher, RetrySettings};

/// An agent being built ([`Agent::builder`]); [`AgentBuilder::build`] ends it.
pub struct AgentBuilder {
    agent: Agent,
}

impl Agent {
    /// Start building an agent for `model` with `system_prompt`, its tools
    /// and handlers (`dispatcher`), the tools' context and the event sink.
    pub fn builder(
        model: Model,
        system_prompt: String,
        dispatcher: Dispatcher,
        tool_ctx: ToolContext,
        sink: EventSink,
    ) -> AgentBuilder {
        AgentBuilder { agent: Agent::new(model, system_prompt, dispatcher, tool_ctx, sink) }
    }
}

impl AgentBuilder {
    /// Record into `session` (an in-memory one by default). Its
    /// conversation is not taken: give it with [`AgentBuilder::messages`].
    pub fn session(mut self, session: SharedSession) -> Self {
        self.agent.session = session;
        self
    }

    /// Start from this conversation (a resumed session's history).
    pub fn messages(mut self, messages: Vec<AgentMessage>) -> Self {
        self.agent.messages = messages;
        self
    }

    /// Resolve the key again before each request (refreshing OAuth tokens).
    pub fn credentials(mut self, credentials: crate::CredentialSource) -> Self {
        self.agent.credentials = Some(credentials);
        self
    }

    /// How failed requests are retried.
    pub fn retry(mut self, retry: RetrySettings) -> Self {
        self.agent.retry = retry;
        self
    }

    /// The `compaction` settings (whether it is on now is a live setting).
    pub fn compaction(mut self, settings: crate::compaction::CompactionSettings) -> Self {
        self.agent.compaction = settings;
        self
    }

    /// Rebuild the system prompt with this when the tool set changes.
    pub fn prompt_builder(mut self, builder: PromptBuilder) -> Self {
        self.agent.prompt_builder = Some(builder);
        self
    }

    /// Be told about every message the agent records.
    pub fn on_record(mut self, f: RecordFn) -> Self {
        self.agent.on_record = Some(f);
        self
    }

    /// Be told when the session file cannot be written.
    pub fn on_session_error(mut self, f: SessionErrorFn) -> Self {
        self.agent.on_session_error = Some(f);
        self
    }

    /// Be told when a run has settled, before `agent_settled` handlers run.
    pub fn on_settled(mut self, f: Arc<dyn Fn() + Send + Sync>) -> Self {
        self.agent.on_settled = Some(f);
        self
    }

    /// The agent as built so far: its handles (session, queues, inbox,
    /// abort, live settings, prompt view) and its dispatcher, for the parts
    /// made beside it.
    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    /// The agent as built so far, for what may also change while it runs
    /// (the system prompt and its sections, the input expander, the key).
    pub fn agent_mut(&mut self) -> &mut Agent {
        &mut self.agent
    }

    /// The agent, ready to run.
    pub fn build(self) -> Agent {
        self.agent
    }
}
