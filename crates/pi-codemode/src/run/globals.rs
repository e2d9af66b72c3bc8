//! The host side of the script globals that are not tools: `searchTools()`,
//! `describeTool()`, `describeNamespace()` over the script's callable tools,
//! and `models.*`. Each takes the call's arguments as a JSON array and
//! answers a value (`None`: `undefined`) or an error message.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use pi_agent::{AgentTool, Namespace};
use serde_json::{Value, json};

use super::calls::{Calls, Status};
use super::error::GlobalError;
use crate::identifier::to_identifier;
use crate::models::{self, Models};
use crate::search::{document, rank};
use crate::text::{self, DEFAULT_SEARCH_LIMIT};

/// The globals, in the order scripts see them (`models.*` on one object).
pub(crate) const NAMES: &[&str] = &[
    "searchTools",
    "describeTool",
    "describeNamespace",
    "models.getModelsOfType",
    "models.getAvailableOfType",
    "models.getModelOfType",
    "models.classify",
    "models.generateImages",
];

/// What the globals of one script work on.
pub(crate) struct Globals<'a> {
    pub tools: &'a [Arc<dyn AgentTool>],
    pub samples: &'a HashMap<String, String>,
    pub models: &'a Models,
    pub docs_path: &'a str,
    pub call_id: &'a str,
    pub calls: &'a Calls,
    pub model_calls: AtomicUsize,
}

/// Whether `query` names `ns`: its name or an alias, as written or as the same identifier.
fn names_namespace(ns: &Namespace, query: &str) -> bool {
    let id = to_identifier(query);
    std::iter::once(&ns.name).chain(&ns.aliases).any(|n| n == query || to_identifier(n) == id)
}

impl Globals<'_> {
    fn entry(&self, name: &str) -> Value {
        json!({"name": to_identifier(name), "description": self.samples.get(name).cloned().unwrap_or_default()})
    }

    fn search_tools(&self, args: &[Value]) -> Result<Option<Value>, GlobalError> {
        let Some(Value::String(query)) = args.first() else { return Err(GlobalError::SearchNeedsQuery) };
        let options = args.get(1).and_then(Value::as_object);
        let limit = match options.and_then(|o| o.get("limit")).filter(|l| !l.is_null()) {
            None => DEFAULT_SEARCH_LIMIT as f64,
            Some(l) => l.as_f64().filter(|n| n.fract() == 0.0 && *n > 0.0).ok_or(GlobalError::SearchBadLimit)?,
        };
        let namespace = match options.and_then(|o| o.get("namespace")) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()).filter(|s| !s.is_empty()),
            Some(_) => return Err(GlobalError::SearchBadNamespace),
        };
        let docs: Vec<_> = self
            .tools
            .iter()
            .filter(|t| namespace.is_none_or(|q| t.def().namespace.as_ref().is_some_and(|ns| names_namespace(ns, q))))
            .map(|t| {
                let d = t.def();
                document(&d.name, &d.description, &d.parameters, d.namespace.as_ref())
            })
            .collect();
        let limit = if limit >= usize::MAX as f64 { usize::MAX } else { limit as usize };
        Ok(Some(Value::Array(rank(query, &docs, limit).iter().map(|n| self.entry(n)).collect())))
    }

    fn describe_tool(&self, args: &[Value]) -> Result<Option<Value>, GlobalError> {
        let Some(Value::String(name)) = args.first() else { return Err(GlobalError::DescribeToolNeedsName) };
        let tool = self.tools.iter().find(|t| &t.def().name == name || &to_identifier(&t.def().name) == name);
        Ok(tool.and_then(|t| self.samples.get(&t.def().name)).map(|s| Value::String(s.clone())))
    }

    fn describe_namespace(&self, args: &[Value]) -> Result<Option<Value>, GlobalError> {
        let Some(Value::String(name)) = args.first() else { return Err(GlobalError::DescribeNamespaceNeedsName) };
        let mut found: Option<&Namespace> = None;
        let mut tools = Vec::new();
        for t in self.tools {
            let Some(ns) = t.def().namespace.as_ref().filter(|ns| names_namespace(ns, name)) else { continue };
            found.get_or_insert(ns);
            tools.push(Value::String(to_identifier(&t.def().name)));
        }
        let Some(ns) = found else { return Ok(None) };
        let mut out = json!({"name": ns.name});
        if let Some(d) = ns.description.as_ref().filter(|d| !d.is_empty()) {
            out["description"] = json!(d);
        }
        if let Some(i) = ns.instructions.as_ref().filter(|i| !i.is_empty()) {
            out["instructions"] = json!(i);
        }
        out["tools"] = Value::Array(tools);
        Ok(Some(out))
    }

    /// `classify()` and `generateImages()`: checked, recorded, and answered
    /// with `stopReason: "error"`.
    fn model_call(&self, call: &str, args: &[Value]) -> Result<Option<Value>, GlobalError> {
        let classify = call == "models.classify";
        let kind = if classify { "classifier" } else { "image" };
        let (provider, id) = self.models.check_model(call, kind, args.first())?;
        let problem = if classify {
            models::classifier_context_problem(args.get(1))
        } else {
            models::images_context_problem(args.get(1))
        };
        if let Some(problem) = problem {
            return Err(GlobalError::Context {
                call: call.to_string(),
                problem,
                classify,
                docs_path: self.docs_path.to_string(),
            });
        }
        let n = self.model_calls.fetch_add(1, Ordering::Relaxed) + 1;
        let at = self.calls.start_with(format!("{}/{call}/{n}", self.call_id), call, format!("{provider}/{id}"));
        let message = if classify { text::CLASSIFY_UNSUPPORTED } else { text::IMAGES_UNSUPPORTED };
        self.calls.finish(at, None, Status::Error, Some(message));
        let mut result = json!({"provider": provider, "model": id});
        result[if classify { "answers" } else { "output" }] = if classify { json!({}) } else { json!([]) };
        result["stopReason"] = json!("error");
        result["errorMessage"] = json!(message);
        Ok(Some(result))
    }

    /// Run the global `name` with `args`.
    pub(crate) fn call(&self, name: &str, args: &[Value]) -> Result<Option<Value>, GlobalError> {
        match name {
            "searchTools" => self.search_tools(args),
            "describeTool" => self.describe_tool(args),
            "describeNamespace" => self.describe_namespace(args),
            "models.getModelsOfType" => Ok(self.models.get_models_of_type(args).map(Some)?),
            "models.getAvailableOfType" => Ok(self.models.get_available_of_type(args).map(Some)?),
            "models.getModelOfType" => Ok(self.models.get_model_of_type(args)?),
            "models.classify" | "models.generateImages" => self.model_call(name, args),
            other => Err(GlobalError::Unknown(other.to_string())),
        }
    }
}
