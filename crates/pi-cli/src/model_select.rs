//! Choosing the model: `--model provider/id[:thinking]` (or an id or name
//! alone), `--provider`, the `defaultProvider`/`defaultModel` settings, or the
//! first model whose key is available; and `--list-models`.

use pi_config::{ModelEntry, resolve_value};

use crate::text;

/// The chosen model, its key and thinking level.
#[derive(Debug, Clone)]
pub struct Chosen {
    /// The model.
    pub entry: ModelEntry,
    /// The key, resolved.
    pub api_key: Option<String>,
    /// `:<thinking>` from the pattern.
    pub thinking: Option<String>,
}

/// The key for a model: `--api-key`, then the credential stored in
/// `auth.json`, then `models.json`'s `apiKey`, then the provider's
/// environment variables (see [`crate::auth::resolve`]).
pub fn api_key_for(entry: &ModelEntry, cli_key: Option<&str>) -> Result<Option<String>, String> {
    crate::auth::api_key_for(entry, cli_key)
}

fn has_key(entry: &ModelEntry) -> bool {
    crate::auth::has_auth(entry)
}

/// Models whose key is available.
pub fn available(models: &[ModelEntry]) -> Vec<&ModelEntry> {
    models.iter().filter(|m| has_key(m)).collect()
}

fn split_thinking(pattern: &str) -> (&str, Option<String>) {
    match pattern.rsplit_once(':') {
        Some((p, t)) if text::THINKING_LEVELS.contains(&t) => (p, Some(t.to_string())),
        _ => (pattern, None),
    }
}

/// Find the model a `--model` pattern names.
pub fn find<'a>(
    models: &'a [ModelEntry],
    pattern: &str,
    provider: Option<&str>,
) -> Option<(&'a ModelEntry, Option<String>)> {
    let (pat, thinking) = split_thinking(pattern);
    let in_provider = |m: &&ModelEntry| provider.is_none_or(|p| m.provider == p);
    let exact =
        |m: &&ModelEntry| format!("{}/{}", m.provider, m.id) == pat || m.id == pat || m.name.eq_ignore_ascii_case(pat);
    let candidates: Vec<&ModelEntry> = models.iter().filter(in_provider).collect();
    let prefer_keyed = |list: Vec<&'a ModelEntry>| list.iter().find(|m| has_key(m)).copied().or(list.first().copied());
    let exact_hits: Vec<&ModelEntry> = candidates.iter().copied().filter(exact).collect();
    if let Some(m) = prefer_keyed(exact_hits) {
        return Some((m, thinking));
    }
    let low = pat.to_lowercase();
    let partial: Vec<&ModelEntry> = candidates
        .into_iter()
        .filter(|m| {
            format!("{}/{}", m.provider, m.id).to_lowercase().contains(&low) || m.name.to_lowercase().contains(&low)
        })
        .collect();
    prefer_keyed(partial).map(|m| (m, thinking))
}

/// What `--model` (with `--provider`) resolved to.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The model.
    pub entry: ModelEntry,
    /// `:<thinking>` from the pattern.
    pub thinking: Option<String>,
    /// Printed as `Warning: …` (a custom model id).
    pub warning: Option<String>,
}

/// `provider/rest` where `provider` names a provider of `pool` (ignoring
/// case; the longest such provider wins): the provider and `rest`, trimmed.
fn split_provider<'a>(pool: &[&ModelEntry], pattern: &'a str) -> Option<(String, &'a str)> {
    let mut best: Option<(String, &str)> = None;
    for m in pool {
        let p = m.provider.as_str();
        if p.is_empty() || best.as_ref().is_some_and(|(b, _)| b.len() >= p.len()) {
            continue;
        }
        let (Some(head), Some(tail)) = (pattern.get(..p.len()), pattern.get(p.len()..)) else { continue };
        let Some(rest) = tail.trim_start().strip_prefix('/') else { continue };
        let rest = rest.trim();
        if head.eq_ignore_ascii_case(p) && !rest.is_empty() {
            best = Some((m.provider.clone(), rest));
        }
    }
    best
}

/// Resolve `--model PATTERN` (and `--provider`): a configured model, or, when
/// the pattern names a known provider but no model of it, a custom model id
/// on that provider (the provider's first model with the id replaced, and a
/// warning). `cli_thinking` is `--thinking`: with it, a `:<level>` suffix
/// stays part of a custom id. The error is the message after `Error: `.
pub fn resolve(
    models: &[ModelEntry],
    pattern: &str,
    provider: Option<&str>,
    cli_thinking: Option<&str>,
) -> Result<Resolved, String> {
    let provider = match provider {
        Some(p) => match models.iter().find(|m| m.provider.eq_ignore_ascii_case(p)) {
            Some(m) => Some(m.provider.clone()),
            None => return Err(text::unknown_provider(p)),
        },
        None => None,
    };
    if let Some((m, thinking)) = find(models, pattern, provider.as_deref()) {
        return Ok(Resolved { entry: m.clone(), thinking, warning: None });
    }
    let pool: Vec<&ModelEntry> = models.iter().filter(|m| provider.as_ref().is_none_or(|p| &m.provider == p)).collect();
    let split = split_provider(&pool, pattern.trim());
    let anchor = match &provider {
        Some(_) => pool.first().copied(),
        None => split.as_ref().and_then(|(p, _)| pool.iter().find(|m| &m.provider == p).copied()),
    };
    let Some(anchor) = anchor else { return Err(text::model_not_found(pattern)) };
    let model_text = split.map(|(_, rest)| rest).unwrap_or(pattern.trim());
    let (id, thinking) = match cli_thinking {
        Some(_) => (model_text, None),
        None => split_thinking(model_text),
    };
    let mut entry = anchor.clone();
    entry.id = id.to_string();
    entry.name = id.to_string();
    if cli_thinking.or(thinking.as_deref()).is_some_and(|t| t != "off") {
        entry.reasoning = true;
    }
    let warning = Some(text::custom_model_id(id, &entry.provider));
    Ok(Resolved { entry, thinking, warning })
}

fn human(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1_000_000.0)
    } else if n >= 1000 {
        let k = n as f64 / 1000.0;
        if k.fract() == 0.0 { format!("{}K", k as u64) } else { format!("{k:.1}K") }
    } else {
        n.to_string()
    }
}

/// The `--list-models` table of available models, optionally filtered.
pub fn list(models: &[ModelEntry], search: Option<&str>) -> String {
    let mut rows: Vec<&ModelEntry> = available(models);
    if let Some(s) = search {
        let s = s.to_lowercase();
        rows.retain(|m| format!("{}/{} {}", m.provider, m.id, m.name).to_lowercase().contains(&s));
        if rows.is_empty() {
            return format!("{}\n", text::no_models_matching(search.unwrap_or_default()));
        }
    }
    rows.sort_by(|a, b| (&a.provider, &a.id).cmp(&(&b.provider, &b.id)));
    let mut table: Vec<[String; 6]> =
        vec![["provider", "model", "context", "max-out", "thinking", "images"].map(String::from)];
    for m in rows {
        table.push([
            m.provider.clone(),
            m.id.clone(),
            human(m.context_window),
            human(m.max_tokens),
            if m.reasoning { "yes" } else { "no" }.into(),
            if m.input.iter().any(|i| i == "image") { "yes" } else { "no" }.into(),
        ]);
    }
    let widths: Vec<usize> = (0..6).map(|c| table.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for r in &table {
        let cells: Vec<String> = r.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        out.push_str(&cells.join("  "));
        out.push('\n');
    }
    out
}

/// The thinking levels `model` supports: `off` alone without reasoning, else
/// `off` to `high` (`xhigh` and `max` need a provider mapping, which models.json
/// entries do not give here).
/// The thinking levels `model` supports, lowest first.
pub fn supported_thinking_levels(model: &ModelEntry) -> &'static [&'static str] {
    if model.reasoning { &text::THINKING_LEVELS[..5] } else { &text::THINKING_LEVELS[..1] }
}

/// `level` made one `model` supports, as the reference clamps it: kept when
/// supported, else the nearest supported level above it, else below it;
/// an unknown level becomes the lowest supported one.
pub fn clamp_thinking_level(model: &ModelEntry, level: &str) -> &'static str {
    let supported = supported_thinking_levels(model);
    let lowest = supported.first().copied().unwrap_or("off");
    let Some(at) = text::THINKING_LEVELS.iter().position(|l| *l == level) else { return lowest };
    let above = text::THINKING_LEVELS[at..].iter().find(|l| supported.contains(l));
    let below = text::THINKING_LEVELS[..at].iter().rev().find(|l| supported.contains(l));
    above.or(below).copied().unwrap_or(lowest)
}

/// A configured model as the provider layer's model.
pub fn ai_model(e: &ModelEntry) -> pi_ai::Model {
    pi_ai::Model {
        id: e.id.clone(),
        name: e.name.clone(),
        api: e.api.clone(),
        provider: e.provider.clone(),
        base_url: e.base_url.clone(),
        reasoning: e.reasoning,
        input: e.input.clone(),
        context_window: e.context_window,
        max_tokens: e.max_tokens,
        headers: e.headers.iter().map(|(k, v)| (k.clone(), resolve_value(k, v).unwrap_or_default())).collect(),
        compat: pi_ai::OpenAiCompletionsCompat {
            supports_store: e.compat.supports_store,
            supports_developer_role: e.compat.supports_developer_role,
            supports_usage_in_streaming: e.compat.supports_usage_in_streaming,
            max_tokens_field: e.compat.max_tokens_field.and_then(|f| pi_ai::MaxTokensField::from_name(f.as_str())),
            supports_strict_mode: e.compat.supports_strict_mode,
            supports_strict_tools: e.compat.supports_strict_tools,
        },
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(provider: &str, id: &str) -> ModelEntry {
        let mut m = pi_config::builtin_models().remove(0);
        m.provider = provider.into();
        m.id = id.into();
        m.name = id.into();
        m.api_key = Some("x".into());
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
    fn finds_by_provider_id_and_thinking() {
        let models = vec![entry("mock", "mock-1"), entry("other", "mock-1"), entry("mock", "big-model")];
        let (m, t) = find(&models, "other/mock-1:high", None).unwrap();
        assert_eq!((m.provider.as_str(), t.as_deref()), ("other", Some("high")));
        assert_eq!(find(&models, "mock-1", Some("mock")).unwrap().0.provider, "mock");
        assert_eq!(find(&models, "big", None).unwrap().0.id, "big-model");
        assert!(find(&models, "nosuch/x", None).is_none());
    }

    #[test]
    fn a_known_provider_with_an_unknown_id_is_a_custom_model() {
        let mut models = vec![entry("mock", "mock-1"), entry("other", "o-1")];
        models[0].reasoning = false;
        let r = resolve(&models, "mock/nope", None, None).unwrap();
        assert_eq!((r.entry.provider.as_str(), r.entry.id.as_str(), r.entry.name.as_str()), ("mock", "nope", "nope"));
        assert_eq!(
            r.warning.as_deref(),
            Some("Model \"nope\" not found for provider \"mock\". Using custom model id.")
        );
        assert!(!r.entry.reasoning);
        let r = resolve(&models, "MOCK/nope:high", None, None).unwrap();
        assert_eq!((r.entry.id.as_str(), r.thinking.as_deref(), r.entry.reasoning), ("nope", Some("high"), true));
        // With --thinking the suffix stays part of the id.
        let r = resolve(&models, "mock/nope:high", None, Some("off")).unwrap();
        assert_eq!((r.entry.id.as_str(), r.thinking, r.entry.reasoning), ("nope:high", None, false));
        let r = resolve(&models, "nope", Some("Other"), None).unwrap();
        assert_eq!((r.entry.provider.as_str(), r.entry.id.as_str()), ("other", "nope"));
        assert!(resolve(&models, "mock-1", None, None).unwrap().warning.is_none());
        assert_eq!(
            resolve(&models, "nosuch/x", None, None).unwrap_err(),
            "Model \"nosuch/x\" not found. Use --list-models to see available models."
        );
        assert_eq!(
            resolve(&models, "x", Some("nosuch"), None).unwrap_err(),
            "Unknown provider \"nosuch\". Use --list-models to see available providers/models."
        );
    }

    #[test]
    fn table_format() {
        let mut m = entry("mock", "mock-1");
        m.context_window = 128_000;
        m.max_tokens = 16_384;
        m.reasoning = false;
        m.input = vec!["text".into()];
        assert_eq!(
            list(&[m], None),
            "provider  model   context  max-out  thinking  images\nmock      mock-1  128K     16.4K    no        no    \n"
        );
    }
}
