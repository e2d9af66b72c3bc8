//! Choosing the model or the thinking level, the same from every front end
//! (RPC's `set_model`, `cycle_model`, `set_thinking_level`,
//! `cycle_thinking_level`; the terminal UI's model and thinking pickers):
//! the next request uses them, the level is clamped to what the model
//! supports, the session records `model_change` and
//! `thinking_level_change`, the extensions' `ctx.model` and
//! `ctx.thinkingLevel` follow, and their `thinking_level_select` and
//! `model_select` handlers hear of it (choosing the model in use is not
//! announced, as the reference).

use pi_agent::Agent;
use pi_config::ModelEntry;

use crate::ext_session::ExtSession;
use crate::model_json::model_json;
use crate::model_select;
use crate::session_event::SessionEvent;

/// How a model was chosen (the `model_select` event's `source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSource {
    /// Named (`set_model`, a picker).
    Set,
    /// The next of a list (`cycle_model`).
    Cycle,
}

impl ModelSource {
    fn as_str(self) -> &'static str {
        match self {
            ModelSource::Set => "set",
            ModelSource::Cycle => "cycle",
        }
    }
}

/// A model chosen, with the key its requests use.
#[derive(Debug, Clone)]
pub struct ModelChoice {
    /// The model.
    pub entry: ModelEntry,
    /// The API key its requests send (resolved by the front end, which
    /// knows its command line's key).
    pub key: Option<String>,
    /// How it was chosen.
    pub source: ModelSource,
}

/// Switch to `model` (when given) and to the `thinking` level (when given,
/// else the current one), clamped to what the model supports: the level in
/// use after, and what the extensions are to be told (`thinking_level_select`,
/// `model_select`), which the front end tells once it no longer holds the
/// session ([`crate::Runtime::tell`]), so a slow handler holds nothing up.
pub(crate) fn choose(
    agent: &mut Agent,
    ext: &ExtSession,
    model: Option<ModelChoice>,
    thinking: Option<String>,
) -> (String, Vec<SessionEvent>) {
    let thinking_before = agent.thinking().unwrap_or(crate::text::THINKING_OFF).to_string();
    let previous = model_json(agent.model());
    let previous_key = (agent.model().provider.clone(), agent.model().id.clone());
    if let Some(choice) = &model {
        let entry = &choice.entry;
        agent.set_api_key(choice.key.clone());
        agent.switch_model(model_select::ai_model(entry));
    }
    let entry = match &model {
        Some(choice) => Some(&choice.entry),
        None => ext.models.iter().find(|m| m.provider == agent.model().provider && m.id == agent.model().id),
    };
    let requested = thinking.unwrap_or_else(|| thinking_before.clone());
    let level = match entry {
        Some(e) => model_select::clamp_thinking_level(e, &requested).to_string(),
        // A model that is not configured (a custom id given with `--model`):
        // nothing to clamp to, a known level is taken as asked.
        None if crate::text::THINKING_LEVELS.contains(&requested.as_str()) => requested,
        None => crate::text::THINKING_OFF.to_string(),
    };
    if level != thinking_before {
        agent.switch_thinking(&level);
    }
    if let Ok(mut current) = ext.current.lock() {
        *current = (agent.model().clone(), level.clone());
    }
    let mut tell = Vec::new();
    if level != thinking_before {
        tell.push(SessionEvent::ThinkingLevelSelect { level: level.clone(), previous_level: thinking_before });
    }
    let changed = previous_key != (agent.model().provider.clone(), agent.model().id.clone());
    if let Some(choice) = model.filter(|_| changed) {
        let source = choice.source.as_str();
        tell.push(SessionEvent::ModelSelect { model: model_json(agent.model()), previous_model: previous, source });
    }
    (level, tell)
}
