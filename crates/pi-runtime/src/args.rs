//! Reading a command's arguments from its JSON object, each getter naming
//! the field and what it should be when it is missing or of the wrong kind.

use serde_json::Value;

use crate::command::CommandError;
use crate::text;

/// The arguments of one command: its JSON object and its type.
pub(crate) struct Args<'a> {
    pub(crate) kind: &'a str,
    pub(crate) object: &'a Value,
}

impl<'a> Args<'a> {
    fn get(&self, field: &str) -> Option<&'a Value> {
        // An explicit `null` is an absent optional, as JSON clients write it.
        self.object.get(field).filter(|v| !v.is_null())
    }

    fn missing(&self, field: &str, expected: &str) -> CommandError {
        CommandError::Invalid(text::missing_argument(self.kind, field, expected))
    }

    pub(crate) fn wrong(&self, field: &str, expected: &str) -> CommandError {
        CommandError::Invalid(text::wrong_argument(self.kind, field, expected))
    }

    /// A required string.
    pub(crate) fn string(&self, field: &str) -> Result<String, CommandError> {
        self.opt_string(field)?.ok_or_else(|| self.missing(field, text::EXPECT_STRING))
    }

    /// An optional string.
    pub(crate) fn opt_string(&self, field: &str) -> Result<Option<String>, CommandError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.wrong(field, text::EXPECT_STRING)),
        }
    }

    /// A required boolean.
    pub(crate) fn bool(&self, field: &str) -> Result<bool, CommandError> {
        self.opt_bool(field)?.ok_or_else(|| self.missing(field, text::EXPECT_BOOL))
    }

    /// An optional boolean.
    pub(crate) fn opt_bool(&self, field: &str) -> Result<Option<bool>, CommandError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(self.wrong(field, text::EXPECT_BOOL)),
        }
    }

    /// A required string out of `choices`.
    pub(crate) fn choice(&self, field: &str, choices: &[&str], expected: &str) -> Result<String, CommandError> {
        match self.get(field) {
            None => Err(self.missing(field, expected)),
            Some(Value::String(s)) if choices.contains(&s.as_str()) => Ok(s.clone()),
            Some(_) => Err(self.wrong(field, expected)),
        }
    }

    /// The field as the reference's JavaScript would print it in a message
    /// (`undefined` when absent).
    pub(crate) fn shown(&self, field: &str) -> String {
        js_display(self.object.get(field))
    }

    /// Optional `images`: image blocks (`{type: "image", data, mimeType}`).
    pub(crate) fn images(&self) -> Result<Vec<pi_ai::ContentBlock>, CommandError> {
        let Some(list) = self.get("images") else { return Ok(Vec::new()) };
        let wrong = || self.wrong("images", text::EXPECT_IMAGES);
        let Value::Array(items) = list else { return Err(wrong()) };
        items
            .iter()
            .map(|item| {
                let field = |k: &str| item.get(k).and_then(Value::as_str);
                match (field("type"), field("data"), field("mimeType")) {
                    (Some("image"), Some(data), Some(mime)) => Ok(pi_ai::ContentBlock::image(data, mime)),
                    _ => Err(wrong()),
                }
            })
            .collect()
    }
}

/// A JSON value as JavaScript's string conversion shows it: what the
/// reference prints where a command's field goes into a message.
pub(crate) fn js_display(value: Option<&Value>) -> String {
    match value {
        None => "undefined".into(),
        Some(Value::Null) => "null".into(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{}", f as i64),
            _ => n.to_string(),
        },
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| if v.is_null() { String::new() } else { js_display(Some(v)) })
            .collect::<Vec<_>>()
            .join(","),
        Some(Value::Object(_)) => "[object Object]".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_show_as_javascript_prints_them() {
        assert_eq!(js_display(None), "undefined");
        assert_eq!(js_display(Some(&json!(null))), "null");
        assert_eq!(js_display(Some(&json!("a"))), "a");
        assert_eq!(js_display(Some(&json!(5))), "5");
        assert_eq!(js_display(Some(&json!(5.0))), "5");
        assert_eq!(js_display(Some(&json!(1.5))), "1.5");
        assert_eq!(js_display(Some(&json!(true))), "true");
        assert_eq!(js_display(Some(&json!([1, "b", null]))), "1,b,");
        assert_eq!(js_display(Some(&json!({"a": 1}))), "[object Object]");
    }

    #[test]
    fn getters_name_the_field_and_what_it_should_be() {
        let object = json!({"s": "x", "n": 5, "b": true, "z": null});
        let args = Args { kind: "demo", object: &object };
        assert_eq!(args.string("s").unwrap(), "x");
        assert_eq!(args.opt_string("z").unwrap(), None);
        assert_eq!(args.string("n").unwrap_err().to_string(), "Invalid demo command: \"n\" must be a string");
        assert_eq!(args.string("q").unwrap_err().to_string(), "Invalid demo command: missing \"q\" (a string)");
        assert!(args.bool("b").unwrap());
        assert_eq!(args.bool("s").unwrap_err().to_string(), "Invalid demo command: \"s\" must be true or false");
        assert_eq!(args.choice("s", &["x"], "x").unwrap(), "x");
        assert!(args.choice("s", &["y"], "y").is_err());
    }

    #[test]
    fn images_must_each_be_an_image_block() {
        let good = json!({"images": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]});
        let args = Args { kind: "prompt", object: &good };
        assert_eq!(args.images().unwrap(), vec![pi_ai::ContentBlock::image("AAAA", "image/png")]);
        for bad in [
            json!({"images": "x"}),
            json!({"images": [{"type": "text", "text": "a"}]}),
            json!({"images": [{"type": "image"}]}),
        ] {
            let args = Args { kind: "prompt", object: &bad };
            assert!(args.images().unwrap_err().to_string().contains("\"images\" must be a list of images"));
        }
        let none = json!({});
        assert!(Args { kind: "prompt", object: &none }.images().unwrap().is_empty());
    }
}
