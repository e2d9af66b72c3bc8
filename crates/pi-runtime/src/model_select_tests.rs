//! Tests of model lookup, thinking levels and the provider layer's model.

use super::*;

fn entry(provider: &str, id: &str) -> ModelEntry {
    let mut m = pi_config::builtin_models().remove(0);
    m.provider = provider.into();
    m.id = id.into();
    m.name = id.into();
    m.api_key = Some("x".into());
    m.builtin = None;
    m.thinking_level_map = Default::default();
    m
}

#[test]
fn thinking_levels_are_clamped_to_the_model() {
    let mut m = entry("mock", "m");
    m.reasoning = true;
    assert_eq!(clamp_thinking_level(&m, "medium"), "medium");
    assert_eq!(clamp_thinking_level(&m, "xhigh"), "high");
    assert_eq!(clamp_thinking_level(&m, "max"), "high");
    assert_eq!(clamp_thinking_level(&m, "off"), "off");
    assert_eq!(clamp_thinking_level(&m, "bogus"), "off");
    m.reasoning = false;
    assert_eq!(clamp_thinking_level(&m, "high"), "off");
    assert_eq!(clamp_thinking_level(&m, "medium"), "off");
}

#[test]
fn thinking_levels_follow_the_map() {
    let models = pi_config::builtin_models();
    let fable = models.iter().find(|m| m.provider == "anthropic" && m.id == "claude-fable-5").unwrap();
    // {"off": null, "xhigh": "xhigh", "max": "max"}
    assert_eq!(supported_thinking_levels(fable), ["minimal", "low", "medium", "high", "xhigh", "max"]);
    assert_eq!(clamp_thinking_level(fable, "off"), "minimal");
    assert_eq!(clamp_thinking_level(fable, "max"), "max");
    let mut m = entry("mock", "m");
    m.reasoning = true;
    m.thinking_level_map.extend([("low".to_string(), None), ("xhigh".to_string(), Some("x".to_string()))].into());
    assert_eq!(supported_thinking_levels(&m), ["off", "minimal", "medium", "high", "xhigh"]);
    assert_eq!(clamp_thinking_level(&m, "low"), "medium");
    assert_eq!(clamp_thinking_level(&m, "max"), "xhigh");
}

#[test]
fn finds_by_provider_id_and_thinking() {
    let models = vec![entry("mock", "mock-1"), entry("other", "mock-1"), entry("mock", "big-model")];
    let (m, t) = find(&models, "other/mock-1:high", None).unwrap();
    assert_eq!((m.provider.as_str(), t.as_deref()), ("other", Some("high")));
    assert_eq!(find(&models, "mock-1", Some("mock")).unwrap().0.provider, "mock");
    assert_eq!(find(&models, "big", None).unwrap().0.id, "big-model");
    assert!(find(&models, "nosuch/x", None).is_none());
}

#[test]
fn exact_matches_prefer_the_provider_with_a_key() {
    let mut models = vec![entry("a", "m-1"), entry("b", "m-1"), entry("c", "a/m-1")];
    models[0].api_key = None;
    models[2].api_key = None;
    let r = resolve(&models, "m-1", None, None, false).unwrap();
    assert_eq!(r.entry.provider, "b");
    // `a/m-1` is provider a's model and provider c's id: a has no key, c
    // neither: the named provider wins (as the reference).
    assert_eq!(resolve(&models, "a/m-1", None, None, false).unwrap().entry.provider, "a");
    // c with a key and a without: the only one with credentials wins.
    models[2].api_key = Some("k".into());
    assert_eq!(resolve(&models, "a/m-1", None, None, false).unwrap().entry.provider, "c");
    models[2].api_key = None;
    models[1].api_key = None;
    assert!(
        resolve(&models, "M-1", None, None, false)
            .unwrap_err()
            .to_string()
            .contains("No matching provider is authenticated")
    );
    models[0].api_key = Some("k".into());
    models[1].api_key = Some("k".into());
    assert_eq!(
        resolve(&models, "m-1", None, None, false).unwrap_err().to_string(),
        "Model \"m-1\" is ambiguous across providers: a/m-1, b/m-1. More than one matching provider is authenticated. Use --provider or provider/model."
    );
    assert_eq!(resolve(&models, "a/m-1", None, None, false).unwrap().entry.provider, "a", "a keyed provider/id wins");
    // With --api-key, keys do not choose; the message names the whole pattern.
    models[0].api_key = None;
    assert_eq!(
        resolve(&models, "m-1:high", None, None, true).unwrap_err().to_string(),
        "Model \"m-1:high\" is ambiguous across providers: a/m-1, b/m-1. --api-key does not choose a provider. Use --provider or provider/model."
    );
    assert_eq!(resolve(&models, "a/m-1", None, None, true).unwrap().entry.provider, "a");
}

#[test]
fn partial_matches_prefer_keys_aliases_and_the_highest_id() {
    let mut models = vec![
        entry("x", "claude-sonnet-4-5"),
        entry("x", "claude-sonnet-5-5-20260101"),
        entry("x", "claude-sonnet-4-6"),
        entry("y", "us.claude-sonnet-9"),
    ];
    models[3].api_key = None;
    assert_eq!(resolve(&models, "sonnet", None, None, false).unwrap().entry.id, "claude-sonnet-4-6");
    for m in &mut models {
        m.api_key = None;
    }
    assert_eq!(resolve(&models, "sonnet", None, None, false).unwrap().entry.id, "us.claude-sonnet-9");
    assert_eq!(resolve(&models, "20260101", None, None, false).unwrap().entry.id, "claude-sonnet-5-5-20260101");
    assert!(dated("claude-opus-4-5-20251101") && !dated("claude-opus-4-5") && !dated("gpt-4o-2024-05-13"));
}

#[test]
fn ai_model_carries_the_catalogue_facts() {
    let models = pi_config::builtin_models();
    let fable = models.iter().find(|m| m.provider == "anthropic" && m.id == "claude-fable-5").unwrap();
    let ai = ai_model(fable);
    assert_eq!(ai.compat.supports_strict_tools, Some(true));
    assert_eq!(ai.thinking_level_map.get("off"), Some(&None));
    assert_eq!(ai.thinking_level_map.get("max"), Some(&Some("max".to_string())));
    assert!(ai.cost.input > 0.0 && ai.cost.output > ai.cost.input);
    let copilot = models.iter().find(|m| m.provider == "github-copilot").unwrap();
    assert_eq!(ai_model(copilot).headers.len(), copilot.headers.len());
}
#[test]
fn a_known_provider_with_an_unknown_id_is_a_custom_model() {
    let mut models = vec![entry("mock", "mock-1"), entry("other", "o-1")];
    models[0].reasoning = false;
    let r = resolve(&models, "mock/nope", None, None, false).unwrap();
    assert_eq!((r.entry.provider.as_str(), r.entry.id.as_str(), r.entry.name.as_str()), ("mock", "nope", "nope"));
    assert_eq!(r.warning.as_deref(), Some("Model \"nope\" not found for provider \"mock\". Using custom model id."));
    assert!(!r.entry.reasoning);
    let r = resolve(&models, "MOCK/nope:high", None, None, false).unwrap();
    assert_eq!((r.entry.id.as_str(), r.thinking.as_deref(), r.entry.reasoning), ("nope", Some("high"), true));
    // With --thinking the suffix stays part of the id.
    let r = resolve(&models, "mock/nope:high", None, Some("off"), false).unwrap();
    assert_eq!((r.entry.id.as_str(), r.thinking, r.entry.reasoning), ("nope:high", None, false));
    let r = resolve(&models, "nope", Some("Other"), None, false).unwrap();
    assert_eq!((r.entry.provider.as_str(), r.entry.id.as_str()), ("other", "nope"));
    assert!(resolve(&models, "mock-1", None, None, false).unwrap().warning.is_none());
    assert_eq!(
        resolve(&models, "nosuch/x", None, None, false).unwrap_err().to_string(),
        "Model \"nosuch/x\" not found. Use --list-models to see available models."
    );
    assert_eq!(
        resolve(&models, "x", Some("nosuch"), None, false).unwrap_err().to_string(),
        "Unknown provider \"nosuch\". Use --list-models to see available providers/models."
    );
}
