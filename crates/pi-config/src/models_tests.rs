//! Tests of loading and merging `models.json` over the catalogue.

use super::*;
use crate::compat::MaxTokensField;

#[test]
fn custom_provider_and_builtin_base_url() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("models.json"),
        r#"{"providers":{"mock":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","apiKey":"x","models":[{"id":"mock-1"}]},
           "anthropic":{"baseUrl":"https://proxy.example/v1"}}}"#,
    )
    .unwrap();
    let models = load_models(dir.path()).unwrap();
    let mock = models.iter().find(|m| m.provider == "mock").unwrap();
    assert_eq!((mock.id.as_str(), mock.api.as_str(), mock.max_tokens), ("mock-1", "openai-completions", 16384));
    assert_eq!(mock.api_key.as_deref(), Some("x"));
    assert!(models.iter().filter(|m| m.provider == "anthropic").all(|m| m.base_url == "https://proxy.example/v1"));
}

#[test]
fn missing_file_is_fine_and_bad_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    assert!(!load_models(dir.path()).unwrap().is_empty());
    std::fs::write(dir.path().join("models.json"), "{nope").unwrap();
    let e = load_models(dir.path()).unwrap_err().to_string();
    assert!(e.starts_with("Invalid ") && e.contains("models.json"), "{e}");
    std::fs::write(dir.path().join("models.json"), r#"{"providers":{"x":{"models":[{"id":"m"}]}}}"#).unwrap();
    assert!(load_models(dir.path()).unwrap_err().to_string().contains("needs \"baseUrl\" and \"api\""));
}

#[test]
fn compat_merges_provider_model_and_override() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("models.json"),
        r#"{"providers":{"mock":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions",
             "compat":{"supportsStore":false,"maxTokensField":"max_tokens","thinkingFormat":"qwen"},
             "models":[{"id":"a","compat":{"supportsStore":true,"other":{"x":1},"supportsStrictTools":true}},{"id":"b"}],
             "modelOverrides":{"b":{"name":"B","compat":{"supportsUsageInStreaming":false}}}}}}"#,
    )
    .unwrap();
    let models = load_models(dir.path()).unwrap();
    let get = |id: &str| models.iter().find(|m| m.provider == "mock" && m.id == id).unwrap();
    let a = get("a").compat;
    assert_eq!((a.supports_store, a.max_tokens_field), (Some(true), Some(MaxTokensField::MaxTokens)));
    assert_eq!(a.supports_usage_in_streaming, None);
    assert_eq!((a.supports_strict_tools, a.supports_strict_mode), (Some(true), None));
    let b = get("b");
    assert_eq!(b.name, "B");
    assert_eq!(
        b.compat,
        ModelCompat {
            supports_store: Some(false),
            supports_developer_role: None,
            supports_usage_in_streaming: Some(false),
            max_tokens_field: Some(MaxTokensField::MaxTokens),
            supports_strict_mode: None,
            supports_strict_tools: None,
        }
    );
    assert!(builtin_models().iter().all(|m| m.compat == ModelCompat::default()));
    assert_eq!(MaxTokensField::MaxCompletionTokens.as_str(), "max_completion_tokens");
}

#[test]
fn a_bad_compat_value_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    for compat in [r#"{"maxTokensField":"bogus"}"#, r#"{"supportsStore":"no"}"#, "5"] {
        let text = format!(
            r#"{{"providers":{{"mock":{{"baseUrl":"u","api":"openai-completions","models":[{{"id":"m","compat":{compat}}}]}}}}}}"#
        );
        std::fs::write(dir.path().join("models.json"), text).unwrap();
        assert!(load_models(dir.path()).unwrap_err().to_string().starts_with("Invalid "), "{compat}");
    }
}

fn load(text: &str) -> Vec<ModelEntry> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("models.json"), text).unwrap();
    load_models(dir.path()).unwrap()
}

fn get<'a>(models: &'a [ModelEntry], provider: &str, id: &str) -> &'a ModelEntry {
    models.iter().find(|m| m.provider == provider && m.id == id).unwrap()
}

#[test]
fn the_whole_catalogue_is_loaded() {
    let models = builtin_models();
    assert!(models.len() > 1500, "{}", models.len());
    let flash = get(&models, "google", "gemini-2.5-flash");
    assert_eq!((flash.api.as_str(), flash.env_key.as_deref()), ("google-generative-ai", Some("GEMINI_API_KEY")));
    assert_eq!(flash.base_url, "https://generativelanguage.googleapis.com/v1beta");
    assert!(flash.cost.input > 0.0 && flash.context_window > 0);
    let haiku = get(&models, "anthropic", "claude-haiku-4-5");
    assert_eq!(haiku.compat_switches().supports_strict_tools, Some(true));
    assert_eq!(haiku.compat, ModelCompat::default(), "models.json set nothing");
    let copilot = models.iter().find(|m| m.provider == "github-copilot").unwrap();
    assert!(!copilot.headers.is_empty());
    let mapped = models.iter().find(|m| m.thinking_level_map.get("xhigh").is_some_and(|v| v.is_some())).unwrap();
    assert!(mapped.reasoning, "{}", mapped.id);
}

#[test]
fn a_builtin_provider_takes_base_url_key_headers_and_compat() {
    let models = load(
        r#"{"providers":{"groq":{"baseUrl":"http://127.0.0.1:9/v1","apiKey":"k","headers":{"x-a":"1"},
             "compat":{"supportsStore":false,"thinkingFormat":"qwen"}}}}"#,
    );
    let m = get(&models, "groq", "llama-3.1-8b-instant");
    assert_eq!((m.base_url.as_str(), m.api_key.as_deref()), ("http://127.0.0.1:9/v1", Some("k")));
    assert_eq!(m.headers.get("x-a").map(String::as_str), Some("1"));
    let compat = m.compat_object();
    assert_eq!(compat.get("thinkingFormat"), Some(&Value::from("qwen")));
    assert_eq!(m.compat_switches().supports_store, Some(false));
    assert_eq!(get(&models, "google", "gemini-2.5-flash").api_key, None, "other providers are untouched");
}

#[test]
fn extra_models_on_a_builtin_provider_and_replacements() {
    let models = load(
        r#"{"providers":{"groq":{"models":[{"id":"my-model"}]},
             "google":{"models":[{"id":"gemini-2.5-flash","contextWindow":1000}]}}}"#,
    );
    let mine = get(&models, "groq", "my-model");
    assert_eq!((mine.api.as_str(), mine.base_url.as_str()), ("openai-completions", "https://api.groq.com/openai/v1"));
    assert_eq!((mine.context_window, mine.max_tokens, mine.reasoning), (128_000, 16_384, false));
    assert_eq!(mine.env_key.as_deref(), Some("GROQ_API_KEY"));
    let replaced = get(&models, "google", "gemini-2.5-flash");
    assert_eq!((replaced.context_window, replaced.reasoning, replaced.builtin), (1000, false, None));
    assert_eq!(models.iter().filter(|m| m.provider == "google" && m.id == "gemini-2.5-flash").count(), 1);
}

#[test]
fn overrides_merge_objects_and_replace_the_rest() {
    let models = load(
        r#"{"providers":{"anthropic":{"modelOverrides":{
             "claude-haiku-4-5":{"name":"H","contextWindow":5000,"cost":{"input":9},
               "thinkingLevelMap":{"xhigh":"xhigh","low":null},"headers":{"x-b":"2"},"compat":{"supportsStrictTools":false}},
             "nosuch":{"maxTokens":1}}}}}"#,
    );
    let builtin = get(&builtin_models(), "anthropic", "claude-haiku-4-5").clone();
    let m = get(&models, "anthropic", "claude-haiku-4-5");
    assert_eq!((m.name.as_str(), m.context_window, m.max_tokens), ("H", 5000, builtin.max_tokens));
    assert_eq!((m.cost.input, m.cost.output), (9.0, builtin.cost.output));
    assert_eq!(m.thinking_level_map.get("xhigh"), Some(Some("xhigh")));
    assert_eq!(m.thinking_level_map.get("low"), Some(None));
    assert_eq!(m.headers.get("x-b").map(String::as_str), Some("2"));
    assert_eq!(m.compat_switches().supports_strict_tools, Some(false));
    assert!(!models.iter().any(|m| m.id == "nosuch"));
}
