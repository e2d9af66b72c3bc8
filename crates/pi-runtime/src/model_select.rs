//! Choosing the model: `--model provider/id[:thinking]` (or an id or name
//! alone), `--provider`, the `defaultProvider`/`defaultModel` settings, or a
//! provider's default model among those whose key is available; the model's
//! key and thinking levels; and the model as the provider layer takes it.

use std::cell::RefCell;
use std::collections::HashMap;

use pi_config::env_auth::{self, ProcessEnv};
use pi_config::{ModelEntry, resolve_value};
use serde_json::Value;

use crate::text;

/// Why `--model` (with `--provider`) names no model; shown after `Error: `.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// `--provider` names no configured provider.
    #[error("{}", text::unknown_provider(.0))]
    UnknownProvider(String),
    /// The pattern matches models of several providers.
    #[error("{}", text::ambiguous_model(.pattern, .candidates, .why))]
    Ambiguous {
        /// The pattern as given.
        pattern: String,
        /// The matching models.
        candidates: Vec<String>,
        /// Why credentials did not choose between them.
        why: &'static str,
    },
    /// The pattern names no model, nor a known provider.
    #[error("{}", text::model_pattern_not_found(.0))]
    NotFound(String),
}

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
/// `auth.json`, then `models.json`'s `apiKey`, then the provider's key
/// variables (see [`crate::auth::resolve`]).
pub fn api_key_for(entry: &ModelEntry, cli_key: Option<&str>) -> Result<Option<String>, crate::auth::ResolveError> {
    crate::auth::api_key_for(entry, cli_key)
}

/// Whether `provider` has credentials outside `models.json`: its key
/// variables or ambient cloud credentials (docs/providers.md, "How keys are
/// found"). The one place to add another source of credentials.
pub fn provider_has_auth(provider: &str) -> bool {
    // An `auth.json` entry decides, a credential or not (as the reference).
    crate::auth::stored(provider).unwrap_or_else(|| env_auth::env_has_auth(&ProcessEnv, provider))
}

/// [`provider_has_auth`] asked once per provider.
#[derive(Default)]
pub struct AuthCache {
    known: RefCell<HashMap<String, bool>>,
    /// `--api-key` was given: it serves whichever provider is chosen, so
    /// credentials do not choose between providers.
    cli_key: bool,
}

impl AuthCache {
    /// Whether `entry` can be used: a key (`--api-key`, `models.json`'s or its
    /// provider's) and a base URL whose `{NAME}` placeholders are all set.
    pub fn usable(&self, entry: &ModelEntry) -> bool {
        if self.cli_key {
            return true;
        }
        let keyed = entry.api_key.is_some() || {
            let known = self.known.borrow().get(&entry.provider).copied();
            known.unwrap_or_else(|| {
                let has = provider_has_auth(&entry.provider);
                self.known.borrow_mut().insert(entry.provider.clone(), has);
                has
            })
        };
        (keyed || ambient_credentials(entry)) && env_auth::base_url_ready(&ProcessEnv, &entry.base_url)
    }
}

/// Whether a model without a key can still be used: a Bedrock model when
/// the environment has AWS credentials (keys, a profile, a bearer token).
pub fn ambient_credentials(entry: &ModelEntry) -> bool {
    entry.api == pi_ai::api::BEDROCK_CONVERSE_STREAM && pi_ai::aws_credentials_available()
}

/// A prompt refused before anything is sent: the model's provider has no
/// credentials at all (the reference's words).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", text::no_api_key_found(.provider))]
pub struct NoApiKey {
    /// The provider without credentials.
    pub provider: String,
}

/// Why a prompt may not start with `model` and its resolved `api_key`: the
/// provider has no credentials at all (the reference's check before a run,
/// after the `input` handlers and template expansion). `None`: it may.
pub fn refusal(model: &pi_ai::Model, api_key: Option<&str>) -> Option<NoApiKey> {
    let unknown = model.provider == pi_config::UNKNOWN_MODEL;
    let ambient = model.api == pi_ai::api::BEDROCK_CONVERSE_STREAM && pi_ai::aws_credentials_available();
    let ok = api_key.is_some() || ambient || (!unknown && provider_has_auth(&model.provider));
    (!ok).then(|| NoApiKey { provider: model.provider.clone() })
}

/// Models whose key is available.
pub fn available(models: &[ModelEntry]) -> Vec<&ModelEntry> {
    let auth = AuthCache::default();
    models.iter().filter(|m| auth.usable(m)).collect()
}

fn split_thinking(pattern: &str) -> (&str, Option<String>) {
    match pattern.rsplit_once(':') {
        Some((p, t)) if text::THINKING_LEVELS.contains(&t) => (p, Some(t.to_string())),
        _ => (pattern, None),
    }
}

/// What a pattern names.
enum Lookup<'a> {
    Found(&'a ModelEntry),
    /// Several providers offer the model exactly: them, and why none was chosen.
    Ambiguous(Vec<String>, &'static str),
    Nothing,
}

/// A dated snapshot id (`…-20251001`) rather than an alias.
fn dated(id: &str) -> bool {
    id.rsplit_once('-').is_some_and(|(_, tail)| tail.len() == 8 && tail.bytes().all(|b| b.is_ascii_digit()))
}

/// The model `pat` names among `pool`: a reference ([`by_reference`]),
/// else the ids and names containing it ([`by_fuzzy`]).
fn lookup<'a>(pool: &[&'a ModelEntry], pat: &str, auth: &AuthCache) -> Lookup<'a> {
    by_reference(pool, pat, auth).unwrap_or_else(|| by_fuzzy(pool, pat, auth))
}

/// Whether `m` has credentials that choose it over another provider's
/// model: never with `--api-key`, which serves whichever is chosen.
fn chooses(auth: &AuthCache, m: &ModelEntry) -> bool {
    !auth.cli_key && auth.usable(m)
}

/// Why an ambiguous pattern was not settled.
fn ambiguity(auth: &AuthCache, usable: usize) -> &'static str {
    match (auth.cli_key, usable) {
        (true, _) => text::AMBIGUOUS_WITH_API_KEY,
        (false, 0) => text::AMBIGUOUS_UNKEYED,
        (false, _) => text::AMBIGUOUS_KEYED,
    }
}

/// `pat` as a reference: the model a `provider/` prefix names (its exact
/// id, else a model whose whole id is `pat`, else its best fuzzy match) and
/// the other providers' models whose id is `pat` (ignoring case). The named
/// one wins when its provider has credentials; else the only other one with
/// credentials; else the named one; several others with credentials, or
/// none and no named one, are ambiguous. `None`: nothing matched.
fn by_reference<'a>(pool: &[&'a ModelEntry], pat: &str, auth: &AuthCache) -> Option<Lookup<'a>> {
    let raw: Vec<&ModelEntry> = pool.iter().copied().filter(|m| m.id.eq_ignore_ascii_case(pat)).collect();
    let named = split_provider(pool, pat).and_then(|(provider, rest)| {
        let own: Vec<&ModelEntry> = pool.iter().copied().filter(|m| m.provider == provider).collect();
        own.iter()
            .copied()
            .find(|m| m.id.eq_ignore_ascii_case(rest))
            .or_else(|| raw.iter().copied().find(|m| m.provider == provider))
            .or_else(|| best_fuzzy(&containing(&own, rest)))
    });
    let others: Vec<&ModelEntry> = raw.into_iter().filter(|m| !named.is_some_and(|n| std::ptr::eq(n, *m))).collect();
    let candidates: Vec<&ModelEntry> = named.into_iter().chain(others.iter().copied()).collect();
    let first = *candidates.first()?;
    if candidates.iter().all(|m| m.provider == first.provider) {
        return Some(Lookup::Found(first));
    }
    if let Some(n) = named.filter(|n| chooses(auth, n)) {
        return Some(Lookup::Found(n));
    }
    let usable: Vec<&ModelEntry> = others.iter().copied().filter(|m| chooses(auth, m)).collect();
    Some(match (usable.as_slice(), named) {
        ([one], _) => Lookup::Found(one),
        ([], Some(n)) => Lookup::Found(n),
        _ => Lookup::Ambiguous(names(&candidates), ambiguity(auth, usable.len())),
    })
}

/// The models of `pool` whose id or name contains `pat` (ignoring case).
fn containing<'a>(pool: &[&'a ModelEntry], pat: &str) -> Vec<&'a ModelEntry> {
    let low = pat.to_lowercase();
    pool.iter()
        .copied()
        .filter(|m| m.id.to_lowercase().contains(&low) || m.name.to_lowercase().contains(&low))
        .collect()
}

/// The best of fuzzy `matches`: aliases before dated snapshots, then the
/// highest id in `localeCompare` order (the first of equal ones).
fn best_fuzzy<'a>(matches: &[&'a ModelEntry]) -> Option<&'a ModelEntry> {
    let aliases: Vec<&ModelEntry> = matches.iter().copied().filter(|m| !dated(&m.id)).collect();
    let list = if aliases.is_empty() { matches } else { &aliases };
    let collator = icu_collator::CollatorBorrowed::try_new(Default::default(), Default::default()).ok();
    let higher = |a: &str, b: &str| match &collator {
        Some(c) => c.compare(a, b) == std::cmp::Ordering::Greater,
        None => a > b,
    };
    list.iter().copied().fold(None::<&ModelEntry>, |best, m| match best {
        Some(b) if !higher(&m.id, &b.id) => Some(b),
        _ => Some(m),
    })
}

/// The ids and names containing `pat`: across several providers those with
/// credentials first; the best ([`best_fuzzy`]); the same id offered by
/// several providers is ambiguous.
fn by_fuzzy<'a>(pool: &[&'a ModelEntry], pat: &str, auth: &AuthCache) -> Lookup<'a> {
    let matches = containing(pool, pat);
    let Some(first) = matches.first() else { return Lookup::Nothing };
    let several = matches.iter().any(|m| m.provider != first.provider);
    let usable: Vec<&ModelEntry> =
        if several { matches.iter().copied().filter(|m| chooses(auth, m)).collect() } else { Vec::new() };
    let list = if usable.is_empty() { &matches } else { &usable };
    let Some(best) = best_fuzzy(list) else { return Lookup::Nothing };
    let tied: Vec<&ModelEntry> = list.iter().copied().filter(|m| m.id == best.id).collect();
    if tied.iter().all(|m| m.provider == best.provider) {
        return Lookup::Found(best);
    }
    let keyed = if usable.is_empty() { 0 } else { tied.len() };
    Lookup::Ambiguous(names(&tied), ambiguity(auth, keyed))
}

fn names(models: &[&ModelEntry]) -> Vec<String> {
    let mut all: Vec<String> = models.iter().map(|m| format!("{}/{}", m.provider, m.id)).collect();
    all.sort();
    all
}

/// Find the model a pattern names (an ambiguous one: the first with a key).
pub fn find<'a>(
    models: &'a [ModelEntry],
    pattern: &str,
    provider: Option<&str>,
) -> Option<(&'a ModelEntry, Option<String>)> {
    let (pat, thinking) = split_thinking(pattern);
    let pool: Vec<&ModelEntry> = models.iter().filter(|m| provider.is_none_or(|p| m.provider == p)).collect();
    let auth = AuthCache::default();
    match lookup(&pool, pat, &auth) {
        Lookup::Found(m) => Some((m, thinking)),
        Lookup::Ambiguous(..) => {
            let exact = |m: &&&ModelEntry| m.id.eq_ignore_ascii_case(pat);
            let first = pool.iter().filter(exact).find(|m| auth.usable(m)).or_else(|| pool.iter().find(exact));
            first.map(|m| (*m, thinking))
        }
        Lookup::Nothing => None,
    }
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
/// stays part of a custom id; `cli_key`: `--api-key` was given (credentials
/// then do not choose between providers). The error shows as the message after `Error: `.
pub fn resolve(
    models: &[ModelEntry],
    pattern: &str,
    provider: Option<&str>,
    cli_thinking: Option<&str>,
    cli_key: bool,
) -> Result<Resolved, ModelError> {
    let provider = match provider {
        Some(p) => match models.iter().find(|m| m.provider.eq_ignore_ascii_case(p)) {
            Some(m) => Some(m.provider.clone()),
            None => return Err(ModelError::UnknownProvider(p.to_string())),
        },
        None => None,
    };
    let pool: Vec<&ModelEntry> = models.iter().filter(|m| provider.as_ref().is_none_or(|p| &m.provider == p)).collect();
    let (pat, thinking) = split_thinking(pattern);
    match lookup(&pool, pat, &AuthCache { cli_key, ..Default::default() }) {
        Lookup::Found(m) => return Ok(Resolved { entry: m.clone(), thinking, warning: None }),
        Lookup::Ambiguous(candidates, why) => {
            return Err(ModelError::Ambiguous { pattern: pattern.to_string(), candidates, why });
        }
        Lookup::Nothing => {}
    }
    let split = split_provider(&pool, pattern.trim());
    let anchor = match &provider {
        Some(_) => pool.first().copied(),
        None => split.as_ref().and_then(|(p, _)| pool.iter().find(|m| &m.provider == p).copied()),
    };
    let Some(anchor) = anchor else { return Err(ModelError::NotFound(pattern.to_string())) };
    let model_text = split.map(|(_, rest)| rest).unwrap_or(pattern.trim());
    let (id, thinking) = match cli_thinking {
        Some(_) => (model_text, None),
        None => split_thinking(model_text),
    };
    let mut entry = anchor.clone();
    entry.id = id.to_string();
    entry.name = id.to_string();
    entry.builtin = None;
    if cli_thinking.or(thinking.as_deref()).is_some_and(|t| t != "off") {
        entry.reasoning = true;
    }
    let warning = Some(text::custom_model_id(id, &entry.provider));
    Ok(Resolved { entry, thinking, warning })
}

/// The model used when none is named: each provider's default model, in
/// the catalogue's order, whose key is available; else the first available.
pub fn default_model(models: &[ModelEntry]) -> Option<&ModelEntry> {
    let auth = AuthCache::default();
    let defaults = pi_config::default_models().iter();
    let preferred =
        defaults.filter_map(|(p, id)| models.iter().find(|m| m.provider == *p && m.id == *id)).find(|m| auth.usable(m));
    preferred.or_else(|| models.iter().find(|m| auth.usable(m)))
}

/// The thinking levels `model` supports, lowest first: `off` alone without
/// reasoning; else `off` to `high`, and `xhigh` and `max` when its
/// `thinkingLevelMap` gives them a value, less the levels it maps to `null`.
pub fn supported_thinking_levels(model: &ModelEntry) -> Vec<&'static str> {
    if !model.reasoning {
        return vec![text::THINKING_LEVELS[0]];
    }
    let map = &model.thinking_level_map;
    let levels: Vec<&'static str> = text::THINKING_LEVELS
        .iter()
        .copied()
        .filter(|l| match map.get(l) {
            Some(value) => value.is_some(),
            None => !matches!(*l, "xhigh" | "max"),
        })
        .collect();
    if levels.is_empty() { vec![text::THINKING_LEVELS[0]] } else { levels }
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

/// The provider layer's `compat` from the merged object (every key it knows;
/// the checked switches alone if the object does not fit its type).
fn ai_compat(e: &ModelEntry) -> pi_ai::OpenAiCompletionsCompat {
    let object = e.compat_object();
    let switches = pi_config::ModelCompat::of_object(&object);
    serde_json::from_value(Value::Object(object)).unwrap_or(pi_ai::OpenAiCompletionsCompat {
        supports_store: switches.supports_store,
        supports_developer_role: switches.supports_developer_role,
        supports_usage_in_streaming: switches.supports_usage_in_streaming,
        max_tokens_field: switches.max_tokens_field.and_then(|f| pi_ai::MaxTokensField::from_name(f.as_str())),
        supports_strict_mode: switches.supports_strict_mode,
        supports_strict_tools: switches.supports_strict_tools,
        ..Default::default()
    })
}

/// A configured model as the provider layer's model: the catalogue's and
/// `models.json`'s facts (headers resolved, `{NAME}` placeholders of the base
/// URL filled from the environment, the merged `compat`).
// Fields the provider layer adds later keep their defaults.
#[allow(clippy::needless_update)]
pub fn ai_model(e: &ModelEntry) -> pi_ai::Model {
    pi_ai::Model {
        id: e.id.clone(),
        name: e.name.clone(),
        api: e.api.clone(),
        provider: e.provider.clone(),
        base_url: env_auth::fill_base_url(&ProcessEnv, &e.base_url),
        reasoning: e.reasoning,
        input: e.input.clone(),
        context_window: e.context_window,
        max_tokens: e.max_tokens,
        headers: e.headers.iter().map(|(k, v)| (k.clone(), resolve_value(k, v).unwrap_or_default())).collect(),
        cost: pi_ai::ModelCost {
            input: e.cost.input,
            output: e.cost.output,
            cache_read: e.cost.cache_read,
            cache_write: e.cost.cache_write,
        },
        compat: ai_compat(e),
        thinking_level_map: e.thinking_level_map.entries(),
        ..Default::default()
    }
}

#[cfg(test)]
#[path = "model_select_tests.rs"]
mod tests;
