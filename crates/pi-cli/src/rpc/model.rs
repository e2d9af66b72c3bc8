//! RPC model and thinking-level commands: `set_model`, `cycle_model`
//! (through the `--models` scope when given), `get_available_models`,
//! `set_thinking_level`, `cycle_thinking_level`,
//! `get_available_thinking_levels`. A change reaches the next request, is
//! recorded in the session (`model_change`, `thinking_level_change`) and a
//! level is clamped to what the model supports.

use serde_json::{Value, json};

use pi_runtime::model_change::{ModelChoice, ModelSource};
use pi_runtime::{Command, Op, Outcome};

use super::{Server, respond};
use pi_runtime::model_json::model_json;
use pi_runtime::model_select;

/// The levels a model supports, lowest first.
fn levels(entry: Option<&pi_config::ModelEntry>) -> Vec<&'static str> {
    match entry {
        Some(e) => model_select::supported_thinking_levels(e).to_vec(),
        None => vec!["off"],
    }
}

impl Server {
    fn entry_of(&self, model: &pi_ai::Model) -> Option<&pi_config::ModelEntry> {
        self.setup.models.iter().find(|m| m.provider == model.provider && m.id == model.id)
    }

    /// `get_available_models`.
    pub(super) fn available_models(&self) -> Value {
        let list: Vec<Value> = model_select::available(&self.setup.models)
            .into_iter()
            .map(|m| model_json(&model_select::ai_model(m)))
            .collect();
        json!({"models": list})
    }

    /// `get_available_thinking_levels`.
    pub(super) fn thinking_levels(&self) -> Value {
        let model = self.current.lock().map(|c| c.0.clone()).unwrap_or_default();
        json!({"levels": levels(self.entry_of(&model))})
    }

    /// The models `cycle_model` goes through: the `--models` scope, else
    /// every model with a key.
    fn cycle_pool(&self) -> (Vec<pi_config::ModelEntry>, bool) {
        let available = model_select::available(&self.setup.models);
        if let Some(patterns) = &self.setup.scope {
            let scoped: Vec<pi_config::ModelEntry> = available
                .iter()
                .filter(|m| patterns.iter().any(|p| model_select::find(std::slice::from_ref(*m), p, None).is_some()))
                .map(|m| (*m).clone())
                .collect();
            if !scoped.is_empty() {
                return (scoped, true);
            }
        }
        (available.into_iter().cloned().collect(), false)
    }

    /// The four model and thinking commands.
    pub(super) fn model_command(&self, id: Option<Value>, cmd: Command) {
        let kind = cmd.kind().to_string();
        let (model, thinking) = self.current.lock().map(|c| c.clone()).unwrap_or_default();
        // String error: the response's `error` text (the reference's words).
        let target: Result<Option<(pi_config::ModelEntry, bool)>, String> = match &cmd {
            Command::SetModel { provider, model_id } => {
                match self.setup.models.iter().find(|m| &m.provider == provider && &m.id == model_id) {
                    Some(m) => Ok(Some((m.clone(), false))),
                    None => Err(pi_runtime::text::model_not_found(provider, model_id)),
                }
            }
            Command::CycleModel => {
                let (pool, scoped) = self.cycle_pool();
                if pool.len() < 2 {
                    return respond(&id, &kind, Ok(Some(Value::Null)));
                }
                let at = pool.iter().position(|m| m.provider == model.provider && m.id == model.id);
                let next = at.map(|i| (i + 1) % pool.len()).unwrap_or(0);
                Ok(Some((pool[next].clone(), scoped)))
            }
            _ => Ok(None),
        };
        let target = match target {
            Ok(t) => t,
            Err(e) => return respond(&id, &kind, Err(e)),
        };
        let entry = target.as_ref().map(|(e, _)| e.clone()).or_else(|| self.entry_of(&model).cloned());
        let supported = levels(entry.as_ref());
        let requested = match &cmd {
            // A known level (the command names anything else), clamped below.
            Command::SetThinkingLevel { level } => level.clone(),
            Command::CycleThinkingLevel => {
                if supported.len() < 2 {
                    return respond(&id, &kind, Ok(Some(Value::Null)));
                }
                let at = supported.iter().position(|l| *l == thinking).unwrap_or(0);
                supported[(at + 1) % supported.len()].to_string()
            }
            _ => thinking.clone(),
        };
        let (runtime, current, ext) = (self.runtime.clone(), self.current.clone(), self.setup.ext.clone());
        // The extensions hear of the change (and their handlers finish)
        // before the answer, as the reference's do, once the session is
        // released (other commands need not wait for the handlers).
        tokio::spawn(async move {
            let mut rt = runtime.lock().await;
            let scoped = target.as_ref().is_some_and(|(_, scoped)| *scoped);
            let model = match target {
                Some((entry, _)) => {
                    let key = match model_select::api_key_for(&entry, None) {
                        Ok(key) => key.or_else(|| rt.agent().api_key().map(String::from)),
                        Err(e) => return respond(&id, &kind, Err(e.to_string())),
                    };
                    let source = if kind == "cycle_model" { ModelSource::Cycle } else { ModelSource::Set };
                    Some(Box::new(ModelChoice { entry, key, source }))
                }
                None => None,
            };
            let chose_model = model.is_some();
            let (level, tell) = match rt.apply(Op::Choose { model, thinking: Some(requested) }).await {
                Ok(Outcome::Chosen { thinking, tell }) => (thinking, tell),
                _ => (pi_runtime::text::THINKING_OFF.to_string(), Vec::new()),
            };
            let agent = rt.agent();
            if let Ok(mut c) = current.lock() {
                *c = (agent.model().clone(), level.clone());
            }
            let answer = match kind.as_str() {
                "set_model" => Some(model_json(agent.model())),
                "cycle_model" if chose_model => {
                    Some(json!({"model": model_json(agent.model()), "thinkingLevel": level, "isScoped": scoped}))
                }
                "cycle_thinking_level" => Some(json!({"level": level})),
                _ => None,
            };
            drop(rt);
            for event in &tell {
                ext.notify(event).await;
            }
            respond(&id, &kind, Ok(answer));
        });
    }
}
