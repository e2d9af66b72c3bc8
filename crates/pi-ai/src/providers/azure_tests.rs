//! Azure URLs, deployments and headers, as the reference sends them.

use super::*;
use crate::types::{Context, Message, UserMessage};
use serde_json::Value;

fn model(base_url: &str) -> Model {
    Model {
        id: "gpt-4o-mini".into(),
        api: "azure-openai-responses".into(),
        provider: "azure".into(),
        base_url: base_url.into(),
        max_tokens: 16384,
        ..Default::default()
    }
}

fn ctx() -> Context {
    Context { system_prompt: None, messages: vec![Message::User(UserMessage::text("hi"))], tools: vec![] }
}

fn url(m: &Model, env: &AzureEnv) -> Result<String, ProviderError> {
    prepare_with(m, &ctx().view(), &StreamOptions::default(), env).map(|p| p.url)
}

/// Each URL was measured with the reference (its requests sent through a
/// recording proxy).
#[test]
fn base_urls_as_the_reference_builds_them() {
    let env = |base: &str| AzureEnv { base_url: Some(base.into()), ..Default::default() };
    let cases = [
        ("http://127.0.0.1:47812", "http://127.0.0.1:47812/responses?api-version=v1"),
        ("http://127.0.0.1:47812/custom/", "http://127.0.0.1:47812/custom/responses?api-version=v1"),
        ("http://res.openai.azure.com", "http://res.openai.azure.com/openai/v1/responses?api-version=v1"),
        (
            "https://res.cognitiveservices.azure.com/",
            "https://res.cognitiveservices.azure.com/openai/v1/responses?api-version=v1",
        ),
        ("https://res.services.ai.azure.com", "https://res.services.ai.azure.com/openai/v1/responses?api-version=v1"),
        ("https://res.openai.azure.com/openai", "https://res.openai.azure.com/openai/v1/responses?api-version=v1"),
        ("https://res.openai.azure.com/openai/v1", "https://res.openai.azure.com/openai/v1/responses?api-version=v1"),
        (
            "https://res.openai.azure.com/openai/deployments/x",
            "https://res.openai.azure.com/openai/deployments/x/responses?api-version=v1",
        ),
        ("https://res.openai.azure.com/foo", "https://res.openai.azure.com/foo/responses?api-version=v1"),
        ("https://example.com", "https://example.com/responses?api-version=v1"),
    ];
    for (base, want) in cases {
        assert_eq!(url(&model(""), &env(base)).unwrap(), want, "{base}");
        assert_eq!(url(&model(base), &AzureEnv::default()).unwrap(), want, "{base} as the model's");
    }
}

#[test]
fn the_environment_wins_over_the_model() {
    let m = model("http://127.0.0.1:9/model");
    let resource = AzureEnv { resource_name: Some("res".into()), ..Default::default() };
    assert_eq!(url(&m, &resource).unwrap(), "https://res.openai.azure.com/openai/v1/responses?api-version=v1");
    let both = AzureEnv { base_url: Some("http://other.example.com".into()), ..resource };
    assert_eq!(url(&m, &both).unwrap(), "http://other.example.com/responses?api-version=v1");
    let version = AzureEnv { api_version: Some("2025-04-01-preview".into()), ..Default::default() };
    assert_eq!(url(&m, &version).unwrap(), "http://127.0.0.1:9/model/responses?api-version=2025-04-01-preview");
    assert_eq!(url(&model(""), &AzureEnv::default()), Err(ProviderError::failed(text::AZURE_NO_BASE_URL)));
}

#[test]
fn deployments_and_headers() {
    let env = AzureEnv { deployment_map: Some("other=x, gpt-4o-mini = my-dep ,bad".into()), ..Default::default() };
    let options = StreamOptions { api_key: Some("k".into()), session_id: Some("sid".into()), ..Default::default() };
    let p = prepare_with(&model("http://h"), &ctx().view(), &options, &env).unwrap();
    let body: Value = serde_json::from_slice(&p.body.to_vec()).unwrap();
    assert_eq!(body["model"], "my-dep");
    assert_eq!(body["prompt_cache_key"], "sid");
    assert_eq!(p.headers.get("api-key").unwrap(), "k");
    assert_eq!(p.headers.get("accept").unwrap(), "application/json");
    assert!(p.headers.get("authorization").is_none());
    assert!(p.headers.get("session-id").is_none());
    assert_eq!(deployment("gpt-4o-mini", Some("gpt-4o-mini=")), "gpt-4o-mini");
    assert_eq!(deployment("a", None), "a");
}

/// The `azure` provider's Chat Completions models (Foundry): the same base
/// URL rules, then Chat Completions as usual (measured with the reference).
#[test]
fn foundry_models_use_chat_completions_at_the_azure_base() {
    let m = Model { id: "deepseek-v4-pro".into(), api: "openai-completions".into(), ..model("http://model/base") };
    let options = StreamOptions { api_key: Some("k".into()), ..Default::default() };
    let env = AzureEnv { base_url: Some("http://res.openai.azure.com".into()), ..Default::default() };
    let p = prepare_completions_with(&m, &ctx().view(), &options, &env).unwrap();
    assert_eq!(p.url, "http://res.openai.azure.com/openai/v1/chat/completions");
    assert_eq!(p.headers.get("authorization").unwrap(), "Bearer k");
    assert!(p.headers.get("api-key").is_none());
    let p = prepare_completions_with(&m, &ctx().view(), &options, &AzureEnv::default()).unwrap();
    assert_eq!(p.url, "http://model/base/chat/completions");
    let bare = Model { base_url: String::new(), ..m };
    assert!(prepare_completions_with(&bare, &ctx().view(), &options, &AzureEnv::default()).is_err());
}
