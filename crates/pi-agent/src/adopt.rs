//! Changing the agent's session (a new one, a switch, a fork or clone):
//! the session's conversation becomes the agent's.

use serde_json::json;

use crate::Agent;
use crate::session::Session;

impl Agent {
    /// Give the agent `session`: its context becomes the conversation and
    /// the tools see its id and file. With `record`, the current model and
    /// thinking level are written into it first (a session just made).
    pub fn adopt_session(&mut self, mut session: Session, record: bool) {
        if record {
            let (provider, model) = (self.model.provider.clone(), self.model.id.clone());
            let level = self.tool_ctx.session.reasoning_level.clone().unwrap_or_else(|| "off".into());
            let _ = session.append("model_change", json!({"provider": provider, "modelId": model}));
            let _ = session.append("thinking_level_change", json!({"thinkingLevel": level}));
        }
        self.messages = session.take_context().messages;
        self.tool_ctx.session.session_id = Some(session.id().to_string());
        self.tool_ctx.session.session_file = session.path().map(|p| p.to_string_lossy().into_owned());
        if let Ok(mut s) = self.session.lock() {
            *s = session;
        }
    }
}
