//! What a Gemini model is told about thinking (`generationConfig.thinkingConfig`),
//! and the other facts the request takes from the model's id.
//!
//! Models of the Gemini 3 generation and later (and Gemma 4) take a named
//! `thinkingLevel`; Gemini 2.5 takes a token `thinkingBudget` per level; any
//! other model gets `-1` (the model decides). The level sent is the model's
//! `thinkingLevelMap` value for the requested level, else the level itself.

use serde_json::{Value, json};

use crate::error::ProviderError;
use crate::model::{Model, StreamOptions};
use crate::text::google as text;

/// The levels Gemini accepts, as sent.
const LEVELS: [&str; 4] = ["MINIMAL", "LOW", "MEDIUM", "HIGH"];

/// The budget that leaves the amount of thinking to the model.
const DYNAMIC_BUDGET: i64 = -1;

/// Gemini 2.5 Pro's budgets for minimal, low, medium and high.
const PRO_25_BUDGETS: [i64; 4] = [128, 2048, 8192, 32768];
/// Gemini 2.5 Flash's budgets.
const FLASH_25_BUDGETS: [i64; 4] = [128, 2048, 8192, 24576];
/// Gemini 2.5 Flash-Lite's budgets.
const FLASH_LITE_25_BUDGETS: [i64; 4] = [512, 2048, 8192, 24576];

/// Ids of the `-latest` aliases that point at a level-taking model.
const LEVEL_ALIASES: [&str; 2] = ["gemini-flash-latest", "gemini-flash-lite-latest"];

/// The number after `gemini-` at `at` in `id`, when digits follow.
fn generation_at(id: &str, at: usize) -> Option<u64> {
    let digits: String = id[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Whether `id` holds `gemini-3` (or `gemini-3.N`) followed by `-pro` or `-flash`.
fn is_gemini_3_pro_or_flash(id: &str) -> bool {
    id.match_indices("gemini-3").any(|(at, m)| {
        let mut rest = &id[at + m.len()..];
        if let Some(after_dot) = rest.strip_prefix('.') {
            let digits = after_dot.chars().take_while(char::is_ascii_digit).count();
            if digits == 0 {
                return false;
            }
            rest = &after_dot[digits..];
        }
        rest.starts_with("-pro") || rest.starts_with("-flash")
    })
}

/// Whether the model takes a named `thinkingLevel` rather than a budget.
pub(crate) fn takes_level(id: &str) -> bool {
    id.contains("gemma-4")
        || is_gemini_3_pro_or_flash(id)
        || id.match_indices("gemini-").any(|(at, m)| generation_at(id, at + m.len()).is_some_and(|n| n >= 4))
        || LEVEL_ALIASES.contains(&id)
}

/// Whether function calls and responses carry their ids (Claude and
/// gpt-oss models, and Gemini from generation 3 on).
pub(crate) fn sends_call_ids(id: &str) -> bool {
    id.starts_with("claude-")
        || id.starts_with("gpt-oss-")
        || id.strip_prefix("gemini-").and_then(|rest| generation_at(rest, 0)).is_some_and(|n| n >= 3)
}

/// Gemini from generation 3 on (`gemini-3…` and later): tool-result images
/// go inside the function response (older models get them in a user turn
/// after the results), and tools that ask for strict arguments are declared
/// with their strict schema in the `VALIDATED` function-calling mode.
pub(crate) fn gemini_3_or_later(id: &str) -> bool {
    id.strip_prefix("gemini-").and_then(|rest| generation_at(rest, 0)).is_some_and(|n| n >= 3)
}

/// The provider's value for a requested level: the model's map entry, else
/// the level (`xhigh` and `max`, which only a map can allow, as `high`).
fn mapped_level(model: &Model, level: &str) -> Result<String, ProviderError> {
    let value = match model.thinking_level_map.get(level) {
        Some(Some(v)) => v.clone(),
        _ if matches!(level, "xhigh" | "max") => "high".to_string(),
        _ => level.to_string(),
    };
    let upper = value.to_ascii_uppercase();
    if LEVELS.contains(&upper.as_str()) {
        Ok(upper)
    } else {
        Err(ProviderError::failed(text::unsupported_level(&model.provider, &model.id, level, &value)))
    }
}

/// The budget of a (mapped) level for a Gemini 2.5 model, else the dynamic one.
fn budget(id: &str, level: &str) -> i64 {
    let table = if id.contains("2.5-pro") {
        PRO_25_BUDGETS
    } else if id.contains("2.5-flash-lite") {
        FLASH_LITE_25_BUDGETS
    } else if id.contains("2.5-flash") {
        FLASH_25_BUDGETS
    } else {
        return DYNAMIC_BUDGET;
    };
    let at = LEVELS.iter().position(|l| *l == level).unwrap_or(LEVELS.len() - 1);
    table[at]
}

/// The `thinkingConfig` of a request; `None` for a model that does not reason.
pub(crate) fn thinking_config(model: &Model, options: &StreamOptions) -> Result<Option<Value>, ProviderError> {
    if !model.reasoning {
        return Ok(None);
    }
    let Some(level) = options.thinking_level() else {
        return Ok(Some(json!({"thinkingBudget": 0})));
    };
    let mapped = mapped_level(model, level)?;
    Ok(Some(if takes_level(&model.id) {
        json!({"includeThoughts": true, "thinkingLevel": mapped})
    } else {
        json!({"includeThoughts": true, "thinkingBudget": budget(&model.id, &mapped)})
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each id was sent by the reference with the config shown.
    #[test]
    fn level_or_budget_by_model_id() {
        for id in [
            "gemini-3-pro-x",
            "gemini-3-flash-x",
            "gemini-3.1-pro-x",
            "gemini-3.5-flash-x",
            "gemini-3-flash-lite-x",
            "gemini-3-proto",
            "x-gemini-3-pro",
            "my/gemini-3-pro-y",
            "gemini-4",
            "gemini-4-x",
            "gemini-4.5-x",
            "gemini-5-x",
            "gemini-10-x",
            "gemini-40",
            "xgemini-4",
            "gemma-4",
            "gemma-4-31b",
            "gemma-40",
            "xgemma-4",
            "gemini-flash-latest",
            "gemini-flash-lite-latest",
        ] {
            assert!(takes_level(id), "{id}");
        }
        for id in [
            "gemini-3-x",
            "gemini-3-deep",
            "gemini-3.1.2-pro",
            "x-gemini-3.1-y",
            "GEMINI-3-UP",
            "gemini-pro-latest",
            "gemini-flash-latest-x",
            "x/gemini-flash-latest",
            "gemma-3-x",
            "gemma-5",
            "gemini-2-x",
            "gemini-2.5-pro",
            "foo",
        ] {
            assert!(!takes_level(id), "{id}");
        }
    }

    #[test]
    fn budgets_follow_the_reference() {
        let cfg = |id: &str, level: &str| {
            let model = Model { id: id.into(), provider: "p".into(), reasoning: true, ..Default::default() };
            let options = StreamOptions { reasoning: Some(level.into()), ..Default::default() };
            thinking_config(&model, &options).map(|c| c.map(|c| c["thinkingBudget"].clone()))
        };
        assert_eq!(cfg("gemini-2.5-flash", "minimal"), Ok(Some(json!(128))));
        assert_eq!(cfg("gemini-2.5-flash-lite-preview", "minimal"), Ok(Some(json!(512))));
        assert_eq!(cfg("x-2.5-pro", "high"), Ok(Some(json!(32768))));
        assert_eq!(cfg("gemini-2.5-flash-image", "high"), Ok(Some(json!(24576))));
        assert_eq!(cfg("gemini-2.5-pro", "xhigh"), Ok(Some(json!(32768))));
        assert_eq!(cfg("gemini-2.5-lite-flash", "low"), Ok(Some(json!(-1))));
        assert_eq!(cfg("foo", "medium"), Ok(Some(json!(-1))));
        assert_eq!(cfg("foo", "off"), Ok(Some(json!(0))));
    }

    #[test]
    fn levels_follow_the_map() {
        let mut model =
            Model { id: "gemini-3-pro-m".into(), provider: "gg".into(), reasoning: true, ..Default::default() };
        model.thinking_level_map.insert("low".into(), Some("high".into()));
        model.thinking_level_map.insert("medium".into(), Some("weird".into()));
        let at = |model: &Model, level: &str| {
            let options = StreamOptions { reasoning: Some(level.into()), ..Default::default() };
            thinking_config(model, &options)
        };
        assert_eq!(at(&model, "low"), Ok(Some(json!({"includeThoughts": true, "thinkingLevel": "HIGH"}))));
        assert_eq!(at(&model, "minimal"), Ok(Some(json!({"includeThoughts": true, "thinkingLevel": "MINIMAL"}))));
        assert_eq!(
            at(&model, "medium").unwrap_err().to_string(),
            "Unsupported Google thinking level mapping for gg/gemini-3-pro-m: medium -> weird"
        );
        // The map also picks a 2.5 model's budget.
        model.id = "gemini-2.5-pro-m".into();
        assert_eq!(at(&model, "low"), Ok(Some(json!({"includeThoughts": true, "thinkingBudget": 32768}))));
        model.reasoning = false;
        assert_eq!(at(&model, "low"), Ok(None));
    }

    #[test]
    fn call_ids_and_image_placement() {
        for id in ["gemini-3-x", "gemini-30", "gemini-4-x", "claude-x", "gpt-oss-x"] {
            assert!(sends_call_ids(id), "{id}");
        }
        for id in ["foo", "gemini-2.5-flash", "gemma-4-x", "x-claude-y", "x-gemini-3", "claude"] {
            assert!(!sends_call_ids(id), "{id}");
        }
        assert!(gemini_3_or_later("gemini-3-flash-preview"));
        assert!(!gemini_3_or_later("gemini-2.5-flash"));
    }
}
