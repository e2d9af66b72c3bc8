//! The model stage: what `--model`/`--provider` name (reported with the other
//! start-up diagnostics), then the model of the run (the command line's, the
//! `defaultProvider`/`defaultModel` settings', a provider's default model
//! among those with a key, or the reference's `unknown` stand-in), its key
//! (a missing one refuses prompts, not the start) and its thinking level
//! (clamped to what the model supports).

use pi_config::{ModelEntry, Settings};

use super::report::Stop;
use crate::cli_args::{CliArgs, Diagnostic};
use crate::text;
use pi_runtime::model_select::{self, Chosen};

/// The model the command line names, with its `:<level>` suffix.
pub(crate) type FromCli = Option<(ModelEntry, Option<String>)>;

/// Resolve `--model` (with `--provider`); problems become diagnostics.
pub(crate) fn from_cli(args: &CliArgs, models: &[ModelEntry], diagnostics: &mut Vec<Diagnostic>) -> FromCli {
    if let (Some(p), None) = (&args.provider, &args.model) {
        diagnostics.push(Diagnostic::Error(text::provider_requires_model(p)));
    }
    let found = args.model.as_deref().and_then(|pattern| {
        match model_select::resolve(
            models,
            pattern,
            args.provider.as_deref(),
            args.thinking.as_deref(),
            args.api_key.is_some(),
        ) {
            Ok(r) => {
                diagnostics.extend(r.warning.map(Diagnostic::Warning));
                Some((r.entry, r.thinking))
            }
            Err(e) => {
                diagnostics.push(Diagnostic::Error(e.to_string()));
                None
            }
        }
    });
    if args.api_key.is_some() && found.is_none() {
        diagnostics.push(Diagnostic::Error(text::API_KEY_REQUIRES_MODEL.to_string()));
    }
    found
}

/// The run's model, key and thinking level.
pub(crate) fn choose(args: &CliArgs, settings: &Settings, models: &[ModelEntry], cli: FromCli) -> Result<Chosen, Stop> {
    let (entry, suffix) = match cli {
        Some(found) => found,
        None => {
            let preferred = settings.default_model().and_then(|id| {
                let pattern = match settings.default_provider() {
                    Some(p) => format!("{p}/{id}"),
                    None => id.to_string(),
                };
                model_select::find(models, &pattern, None)
            });
            // As the reference: the saved default only when its provider has credentials.
            let preferred = preferred.filter(|(m, _)| model_select::AuthCache::default().usable(m));
            preferred
                .map(|(m, t)| (m.clone(), t))
                .or_else(|| model_select::default_model(models).map(|m| (m.clone(), None)))
                // As the reference: the session starts without a model, and
                // a prompt is refused ([`model_select::refusal`]).
                .unwrap_or_else(|| (ModelEntry::unknown(), None))
        }
    };
    // Without a key the session still starts; a prompt is refused.
    let api_key = match model_select::api_key_for(&entry, args.api_key.as_deref()) {
        Ok(k) => k,
        Err(e) => return Err(Stop::Error(e.to_string())),
    };
    let requested = args
        .thinking
        .clone()
        .or(suffix)
        .or_else(|| settings.default_thinking_level().map(String::from))
        .unwrap_or_else(|| text::DEFAULT_THINKING_LEVEL.to_string());
    let thinking = Some(model_select::clamp_thinking_level(&entry, &requested).to_string());
    Ok(Chosen { entry, api_key, thinking })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models(tmp: &std::path::Path) -> Vec<ModelEntry> {
        std::fs::write(
            tmp.join("models.json"),
            r#"{"providers":{"mock":{"baseUrl":"http://127.0.0.1:1/v1","api":"openai-completions","apiKey":"x","models":[{"id":"mock-1"}]}}}"#,
        )
        .unwrap();
        pi_config::load_models(tmp).unwrap().into_iter().filter(|m| m.provider == "mock").collect()
    }

    fn args(model: Option<&str>) -> CliArgs {
        CliArgs { model: model.map(String::from), ..Default::default() }
    }

    #[test]
    fn an_unknown_model_is_an_error_diagnostic() {
        let tmp = tempfile::tempdir().unwrap();
        let models = models(tmp.path());
        let mut d = Vec::new();
        assert!(from_cli(&args(Some("nope/none")), &models, &mut d).is_none());
        assert_eq!(d, vec![Diagnostic::Error(pi_runtime::text::model_pattern_not_found("nope/none"))]);
        let mut d = Vec::new();
        let found = from_cli(&args(Some("mock/mock-1:high")), &models, &mut d).unwrap();
        assert_eq!((found.0.id.as_str(), found.1.as_deref(), d.len()), ("mock-1", Some("high"), 0));
    }

    #[test]
    fn no_model_at_all_and_clamped_thinking() {
        let tmp = tempfile::tempdir().unwrap();
        let settings = Settings::load(tmp.path(), tmp.path(), false).0;
        let none = choose(&args(None), &settings, &[], None).unwrap();
        assert!(none.entry.is_unknown() && none.api_key.is_none(), "{none:?}");
        assert_eq!(none.thinking.as_deref(), Some("off"));
        let models = models(tmp.path());
        let chosen = choose(&args(None), &settings, &models, None).unwrap();
        assert_eq!(chosen.entry.id, "mock-1");
        assert_eq!(chosen.api_key.as_deref(), Some("x"));
        assert_eq!(chosen.thinking.as_deref(), Some("off"), "medium is clamped for a model without reasoning");
    }
}
