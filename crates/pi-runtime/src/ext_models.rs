//! Model calls extensions make (`ctx.modelRegistry.complete`/`streamSimple`):
//! one request to a configured model with the run's keys, answered with the
//! final assistant message. A call that cannot be made (unknown model, no
//! key, bad messages) is an error result, as the reference gives one; the
//! key itself never reaches the extension.

use pi_ai::{AssistantMessage, Context, Message, StopReason, StreamOptions};
use serde_json::Value;

use crate::text;

/// Run `ctx.modelRegistry.complete(model, context, options)`.
pub async fn complete(models: &[pi_config::ModelEntry], model: &Value, context: &Value, options: &Value) -> Value {
    let message = match prepare(models, model, context, options) {
        Ok((m, ctx, opts)) => pi_ai::complete(&m, &ctx, opts).await,
        Err(failure) => failed(failure.0, failure.1),
    };
    serde_json::to_value(Message::Assistant(message)).unwrap_or(Value::Null)
}

type Prepared = (pi_ai::Model, Context, StreamOptions);

/// The model, the request and its options, or the failure to report.
fn prepare(
    models: &[pi_config::ModelEntry],
    model: &Value,
    context: &Value,
    options: &Value,
) -> Result<Prepared, Box<(pi_ai::Model, String)>> {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    let (provider, id) = (s(model, "provider"), s(model, "id"));
    let shown = pi_ai::Model { provider: provider.clone(), id: id.clone(), ..Default::default() };
    let Some(of_provider) = models.iter().find(|m| m.provider == provider) else {
        return Err(Box::new((shown, text::ext_unknown_provider(&provider))));
    };
    // As the reference: the model object is used as given; a model pi has
    // by that id brings its settings, another one needs its own `api`.
    let entry = match models.iter().find(|m| m.provider == provider && m.id == id) {
        Some(e) => e.clone(),
        None => {
            let api = model.get("api").and_then(Value::as_str);
            let Some(api) = api.filter(|a| pi_ai::api::ALL.contains(a)) else {
                return Err(Box::new((shown, text::ext_no_api_provider(api))));
            };
            let mut e = of_provider.clone();
            e.id = id;
            e.api = api.to_string();
            if let Some(url) = model.get("baseUrl").and_then(Value::as_str) {
                e.base_url = url.to_string();
            }
            e
        }
    };
    let entry = &entry;
    let ai = crate::model_select::ai_model(entry);
    let api_key = match crate::model_select::api_key_for(entry, None) {
        Ok(k) => k,
        Err(e) => return Err(Box::new((ai, e.to_string()))),
    };
    let messages = match serde_json::from_value::<Vec<Message>>(context.get("messages").cloned().unwrap_or_default()) {
        Ok(m) => m,
        Err(e) => return Err(Box::new((ai, text::ext_model_bad_messages(&e.to_string())))),
    };
    let tools = context
        .get("tools")
        .and_then(|t| serde_json::from_value::<Vec<pi_ai::Tool>>(t.clone()).ok())
        .unwrap_or_default();
    let ctx = Context {
        system_prompt: context.get("systemPrompt").and_then(Value::as_str).map(str::to_string),
        messages,
        tools,
    };
    let headers = options
        .get("headers")
        .and_then(Value::as_object)
        .map(|h| h.iter().filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string()))).collect())
        .unwrap_or_default();
    let opts = StreamOptions {
        api_key,
        max_tokens: options.get("maxTokens").and_then(Value::as_u64),
        reasoning: options.get("reasoning").and_then(Value::as_str).map(str::to_string),
        session_id: options.get("sessionId").and_then(Value::as_str).map(str::to_string),
        hooks: None,
        headers,
        ..Default::default()
    };
    Ok((ai, ctx, opts))
}

/// An error result for a call that was not made.
fn failed(model: pi_ai::Model, why: String) -> AssistantMessage {
    AssistantMessage {
        api: pi_ai::intern::intern(&model.api),
        provider: pi_ai::intern::intern(&model.provider),
        model: pi_ai::intern::intern(&model.id),
        stop_reason: StopReason::Error,
        error_message: Some(why.into()),
        timestamp: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_unknown_model_or_bad_messages_are_error_results_naming_the_problem() {
        let models = pi_config::builtin_models();
        let out = prepare(&models, &json!({"provider": "nope", "id": "x"}), &json!({"messages": []}), &json!({}));
        let (m, why) = *out.err().unwrap();
        assert_eq!((m.provider.as_str(), why.as_str()), ("nope", "Unknown provider: nope"));
        let first = &models[0];
        let unknown = json!({"provider": first.provider, "id": "no-such-model"});
        let (_, why) = *prepare(&models, &unknown, &json!({"messages": []}), &json!({})).err().unwrap();
        assert_eq!(why, "No API provider registered for api: undefined");
        let model = json!({"provider": first.provider, "id": first.id});
        let (_, why) = *prepare(&models, &model, &json!({"messages": [{"role": 5}]}), &json!({})).err().unwrap();
        assert!(why.starts_with("Invalid messages for the model call: "), "{why}");
        let (_, ctx, opts) = prepare(
            &models,
            &model,
            &json!({"systemPrompt": "S", "messages": [{"role": "user", "content": "hi", "timestamp": 1}]}),
            &json!({"maxTokens": 5, "reasoning": "high", "sessionId": "s"}),
        )
        .unwrap();
        assert_eq!((ctx.system_prompt.as_deref(), ctx.messages.len()), (Some("S"), 1));
        assert_eq!(
            (opts.max_tokens, opts.reasoning.as_deref(), opts.session_id.as_deref()),
            (Some(5), Some("high"), Some("s"))
        );
    }
}
