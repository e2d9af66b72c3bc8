//! `models` in scripts: the model catalogue (`getModelsOfType`,
//! `getAvailableOfType`, `getModelOfType`) over pi's own model list, and the
//! non-LLM model calls. No provider this build supports runs classifiers or
//! generates images, so `classify()` and `generateImages()` check their
//! arguments as the reference does and answer `stopReason: "error"` with a
//! message saying so (a chat model is refused as the reference refuses it).

mod error;

use serde_json::{Map, Value, json};

pub(crate) use error::{ContextProblem, ModelError, QuestionProblem};

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

fn model_type(v: Option<&Value>) -> Result<&'static str, ModelError> {
    let s = v.and_then(Value::as_str).unwrap_or("\u{0}");
    MODEL_TYPES.iter().find(|t| **t == s).copied().ok_or_else(|| ModelError::UnknownType { got: json_of(v) })
}

fn provider(v: Option<&Value>) -> Result<Option<&str>, ModelError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ModelError::ProviderNotString),
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
    pub(crate) fn get_models_of_type(&self, args: &[Value]) -> Result<Value, ModelError> {
        let kind = model_type(args.first())?;
        Ok(Value::Array(self.of_type(kind, provider(args.get(1))?)))
    }

    /// `models.getAvailableOfType(type, provider?)`.
    pub(crate) fn get_available_of_type(&self, args: &[Value]) -> Result<Value, ModelError> {
        let kind = model_type(args.first())?;
        let list = self.of_type(kind, provider(args.get(1))?);
        let reference =
            |m: &Value| format!("{}/{}", m["provider"].as_str().unwrap_or(""), m["id"].as_str().unwrap_or(""));
        Ok(Value::Array(list.into_iter().filter(|m| self.available.contains(&reference(m))).collect()))
    }

    /// `models.getModelOfType(type, provider, id)`: `None` is `undefined`.
    pub(crate) fn get_model_of_type(&self, args: &[Value]) -> Result<Option<Value>, ModelError> {
        let (Some(Value::String(p)), Some(Value::String(id))) = (args.get(1), args.get(2)) else {
            let got: Vec<String> = args.iter().map(|a| describe_value(Some(a))).collect();
            return Err(ModelError::NeedsStrings { got });
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
        kind: &'static str,
        model: Option<&Value>,
    ) -> Result<(String, String), ModelError> {
        let (Some(Value::String(p)), Some(Value::String(id))) =
            (model.and_then(|m| m.get("provider")), model.and_then(|m| m.get("id")))
        else {
            let undefined = matches!(model, None | Some(Value::Null));
            return Err(ModelError::NotAModel { call: call.to_string(), kind, got: describe_value(model), undefined });
        };
        if self.find(kind, p, id).is_none()
            && let Some(actual) = MODEL_TYPES.iter().find(|t| **t != kind && self.find(t, p, id).is_some())
        {
            return Err(ModelError::WrongType { reference: format!("{p}/{id}"), actual, wanted: kind });
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

fn check_question(id: &str, q: &Value) -> Result<(), QuestionProblem> {
    let at = text::question_path(id);
    let Value::Object(q) = q else {
        return Err(QuestionProblem::NotObject { at, got: describe_value(Some(q)) });
    };
    if !q.get("instructions").is_some_and(Value::is_string) {
        return Err(QuestionProblem::Instructions { at });
    }
    let criteria = q.get("criteria");
    match q.get("type").and_then(Value::as_str) {
        Some("choice") => match criteria {
            Some(Value::Object(c)) if strings(&c.values().collect::<Vec<_>>()) => Ok(()),
            _ => Err(QuestionProblem::Choice { at }),
        },
        Some("score") => match criteria {
            Some(Value::Array(c)) if strings(&c.iter().collect::<Vec<_>>()) => Ok(()),
            _ => Err(QuestionProblem::Score { at }),
        },
        Some("bool") => {
            let ok = |k: &str| criteria.and_then(|c| c.get(k)).is_some_and(Value::is_string);
            if ok("true") && ok("false") { Ok(()) } else { Err(QuestionProblem::Bool { at }) }
        }
        _ => Err(QuestionProblem::Type { at, got: json_of(q.get("type")) }),
    }
}

/// `classify()`'s context problem, if any (its `Display` is the text after
/// `models.classify() `).
pub(crate) fn classifier_context_problem(context: Option<&Value>) -> Option<ContextProblem> {
    let Some(Value::Object(c)) = context else {
        return Some(ContextProblem::NotObject { got: describe_value(context) });
    };
    if !is_object(c.get("state")) {
        return Some(ContextProblem::StateNotObject { got: describe_value(c.get("state")) });
    }
    if let Some(images) = c.get("images") {
        let Value::Array(images) = images else {
            return Some(ContextProblem::ImagesNotArray { got: describe_value(Some(images)) });
        };
        for (i, image) in images.iter().enumerate() {
            let block = image.get("type") == Some(&json!("image"))
                && image.get("data").is_some_and(Value::is_string)
                && image.get("mimeType").is_some_and(Value::is_string);
            if !block {
                return Some(ContextProblem::ImageNotBlock { index: i, got: describe_value(Some(image)) });
            }
        }
    }
    let questions: Option<&Map<String, Value>> =
        c.get("questions").and_then(Value::as_object).filter(|q| !q.is_empty());
    let Some(questions) = questions else {
        return Some(ContextProblem::QuestionsNotMap { got: describe_value(c.get("questions")) });
    };
    questions.iter().find_map(|(id, q)| check_question(id, q).err()).map(ContextProblem::from)
}

/// `generateImages()`'s context problem, if any.
pub(crate) fn images_context_problem(context: Option<&Value>) -> Option<ContextProblem> {
    let Some(Value::Object(c)) = context else {
        return Some(ContextProblem::NotObject { got: describe_value(context) });
    };
    let input = c.get("input");
    let Some(Value::Array(blocks)) = input.filter(|i| i.as_array().is_some_and(|a| !a.is_empty())) else {
        return Some(ContextProblem::InputNotBlocks { got: describe_value(input) });
    };
    blocks.iter().enumerate().find_map(|(i, b)| {
        let text = b.get("type") == Some(&json!("text")) && b.get("text").is_some_and(Value::is_string);
        let image = b.get("type") == Some(&json!("image"))
            && b.get("data").is_some_and(Value::is_string)
            && b.get("mimeType").is_some_and(Value::is_string);
        (!text && !image).then(|| ContextProblem::InputBlock { index: i, got: describe_value(Some(b)) })
    })
}

#[cfg(test)]
mod tests;
