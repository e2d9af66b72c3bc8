//! `models` in scripts: the model catalogue (`getModelsOfType`,
//! `getAvailableOfType`, `getModelOfType`) over pi's own model list, and the
//! non-LLM model calls. No provider this build supports runs classifiers or
//! generates images, so `classify()` and `generateImages()` check their
//! arguments as the reference does and answer `stopReason: "error"` with a
//! message saying so (a chat model is refused as the reference refuses it).

use serde_json::{Map, Value, json};

use crate::js;
use crate::text::{self, MODEL_TYPES};

/// The models scripts can list: pi's model list as catalogue entries
/// (`{id, name, api, provider, baseUrl, reasoning, input, cost,
/// contextWindow, maxTokens}`, never headers), all of type `chat`.
#[derive(Clone, Default)]
pub struct Models {
    /// Every configured model.
    pub chat: Vec<Value>,
    /// `provider/id` of the models whose provider has credentials.
    pub available: Vec<String>,
    /// Builds the entries on use instead of `chat` (a long model list costs
    /// nothing at start-up when no script asks for it).
    pub chat_source: Option<ChatSource>,
}

/// A function giving every configured model's catalogue entry.
pub type ChatSource = std::sync::Arc<dyn Fn() -> Vec<Value> + Send + Sync>;

impl std::fmt::Debug for Models {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Models")
            .field("chat", &self.chat)
            .field("available", &self.available)
            .field("chat_source", &self.chat_source.is_some())
            .finish()
    }
}

/// `undefined`, `null`, `a string`, `an array`, `{ a, b }`.
pub(crate) fn describe_value(v: Option<&Value>) -> String {
    match v {
        None => "undefined".into(),
        Some(Value::Null) => "null".into(),
        Some(Value::Array(a)) if a.is_empty() => "an empty array".into(),
        Some(Value::Array(_)) => "an array".into(),
        Some(Value::Object(o)) if o.is_empty() => "{}".into(),
        Some(Value::Object(o)) => {
            let keys: Vec<&str> = o.keys().take(6).map(String::as_str).collect();
            format!("{{ {}{} }}", keys.join(", "), if o.len() > 6 { ", ..." } else { "" })
        }
        Some(Value::String(_)) => "a string".into(),
        Some(Value::Number(_)) => "a number".into(),
        Some(Value::Bool(_)) => "a boolean".into(),
    }
}

fn with_article(word: &str) -> String {
    let vowel = word.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {word}", if vowel { "an" } else { "a" })
}

fn json_of(v: Option<&Value>) -> String {
    v.map(js::stringify).unwrap_or_else(|| "undefined".into())
}

fn model_type(v: Option<&Value>) -> Result<&'static str, String> {
    let s = v.and_then(Value::as_str).unwrap_or("\u{0}");
    MODEL_TYPES.iter().find(|t| **t == s).copied().ok_or_else(|| text::unknown_model_type(&json_of(v)))
}

fn provider(v: Option<&Value>) -> Result<Option<&str>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(text::PROVIDER_NOT_STRING.into()),
    }
}

impl Models {
    fn of_type(&self, kind: &str, provider: Option<&str>) -> Vec<Value> {
        if kind != "chat" {
            return Vec::new();
        }
        let built;
        let chat = match &self.chat_source {
            Some(source) => {
                built = source();
                &built
            }
            None => &self.chat,
        };
        chat.iter().filter(|m| provider.is_none_or(|p| m["provider"] == p)).cloned().collect()
    }

    fn find(&self, kind: &str, provider: &str, id: &str) -> Option<Value> {
        self.of_type(kind, Some(provider)).into_iter().find(|m| m["id"] == id)
    }

    /// `models.getModelsOfType(type, provider?)`.
    pub(crate) fn get_models_of_type(&self, args: &[Value]) -> Result<Value, String> {
        let kind = model_type(args.first())?;
        Ok(Value::Array(self.of_type(kind, provider(args.get(1))?)))
    }

    /// `models.getAvailableOfType(type, provider?)`.
    pub(crate) fn get_available_of_type(&self, args: &[Value]) -> Result<Value, String> {
        let kind = model_type(args.first())?;
        let list = self.of_type(kind, provider(args.get(1))?);
        let reference =
            |m: &Value| format!("{}/{}", m["provider"].as_str().unwrap_or(""), m["id"].as_str().unwrap_or(""));
        Ok(Value::Array(list.into_iter().filter(|m| self.available.contains(&reference(m))).collect()))
    }

    /// `models.getModelOfType(type, provider, id)`: `None` is `undefined`.
    pub(crate) fn get_model_of_type(&self, args: &[Value]) -> Result<Option<Value>, String> {
        let (Some(Value::String(p)), Some(Value::String(id))) = (args.get(1), args.get(2)) else {
            let got: Vec<String> = args.iter().map(|a| describe_value(Some(a))).collect();
            return Err(text::get_model_needs_strings(&got.join(", ")));
        };
        let kind = model_type(args.first())?;
        Ok(self.find(kind, p, id))
    }

    /// Check a `classify()`/`generateImages()` call (`kind`: `classifier` or
    /// `image`) and return the model's `provider`, `id`; a chat model or a
    /// value that is not a model is refused.
    pub(crate) fn check_model(
        &self,
        call: &str,
        kind: &str,
        model: Option<&Value>,
    ) -> Result<(String, String), String> {
        let hint = text::list_hint(kind);
        let (Some(Value::String(p)), Some(Value::String(id))) =
            (model.and_then(|m| m.get("provider")), model.and_then(|m| m.get("id")))
        else {
            let undefined = matches!(model, None | Some(Value::Null));
            return Err(text::expects_model(call, &with_article(kind), &describe_value(model), undefined, &hint));
        };
        if self.find(kind, p, id).is_none()
            && let Some(actual) = MODEL_TYPES.iter().find(|t| **t != kind && self.find(t, p, id).is_some())
        {
            return Err(text::wrong_model_type(
                &format!("{p}/{id}"),
                &with_article(actual),
                &with_article(kind),
                &hint,
            ));
        }
        Ok((p.clone(), id.clone()))
    }
}

fn is_object(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Object(_)))
}

fn strings(values: &[&Value]) -> bool {
    !values.is_empty() && values.iter().all(|v| v.is_string())
}

fn check_question(at: &str, q: &Value) -> Result<(), String> {
    let Value::Object(q) = q else {
        return Err(text::question_not_object(at, &describe_value(Some(q))));
    };
    if !q.get("instructions").is_some_and(Value::is_string) {
        return Err(text::instructions_not_string(at));
    }
    let criteria = q.get("criteria");
    match q.get("type").and_then(Value::as_str) {
        Some("choice") => match criteria {
            Some(Value::Object(c)) if strings(&c.values().collect::<Vec<_>>()) => Ok(()),
            _ => Err(text::choice_criteria(at)),
        },
        Some("score") => match criteria {
            Some(Value::Array(c)) if strings(&c.iter().collect::<Vec<_>>()) => Ok(()),
            _ => Err(text::score_criteria(at)),
        },
        Some("bool") => {
            let ok = |k: &str| criteria.and_then(|c| c.get(k)).is_some_and(Value::is_string);
            if ok("true") && ok("false") { Ok(()) } else { Err(text::bool_criteria(at)) }
        }
        _ => Err(text::question_type(at, &json_of(q.get("type")))),
    }
}

/// `classify()`'s context problem, if any (the text after `models.classify() `).
pub(crate) fn classifier_context_problem(context: Option<&Value>) -> Option<String> {
    let Some(Value::Object(c)) = context else {
        return Some(text::context_not_object(&describe_value(context)));
    };
    if !is_object(c.get("state")) {
        return Some(text::state_not_object(&describe_value(c.get("state"))));
    }
    if let Some(images) = c.get("images") {
        let Value::Array(images) = images else {
            return Some(text::images_not_array(&describe_value(Some(images))));
        };
        for (i, image) in images.iter().enumerate() {
            let block = image.get("type") == Some(&json!("image"))
                && image.get("data").is_some_and(Value::is_string)
                && image.get("mimeType").is_some_and(Value::is_string);
            if !block {
                return Some(text::image_not_block(i, &describe_value(Some(image))));
            }
        }
    }
    let questions: Option<&Map<String, Value>> =
        c.get("questions").and_then(Value::as_object).filter(|q| !q.is_empty());
    let Some(questions) = questions else {
        return Some(text::questions_not_map(&describe_value(c.get("questions"))));
    };
    questions.iter().find_map(|(id, q)| check_question(&text::question_path(id), q).err())
}

/// `generateImages()`'s context problem, if any.
pub(crate) fn images_context_problem(context: Option<&Value>) -> Option<String> {
    let Some(Value::Object(c)) = context else {
        return Some(text::context_not_object(&describe_value(context)));
    };
    let input = c.get("input");
    let Some(Value::Array(blocks)) = input.filter(|i| i.as_array().is_some_and(|a| !a.is_empty())) else {
        return Some(text::input_not_blocks(&describe_value(input)));
    };
    blocks.iter().enumerate().find_map(|(i, b)| {
        let text = b.get("type") == Some(&json!("text")) && b.get("text").is_some_and(Value::is_string);
        let image = b.get("type") == Some(&json!("image"))
            && b.get("data").is_some_and(Value::is_string)
            && b.get("mimeType").is_some_and(Value::is_string);
        (!text && !image).then(|| text::input_block(i, &describe_value(Some(b))))
    })
}

#[cfg(test)]
mod tests;
