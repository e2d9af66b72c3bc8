//! The resource tools `list_mcp_resources`, `list_mcp_resource_templates`
//! and `read_mcp_resource` (`pi-behaviour.md` §6.6). They reach every
//! enabled, non-hidden server that offers resources; their exposure is the
//! widest among those servers (`direct`, else `codemode`/`deferred`, which
//! register `deferred`). Listings are JSON objects whose items are the
//! server's own (in its key order) with `server` first; reading gives the
//! model text and images (binary contents saved to files) and scripts
//! `{server, uri, contents}`.

mod error;
pub mod spec;

use std::sync::{Arc, Weak};

use futures::future::BoxFuture;
use pi_agent::{AgentTool, ExecutionMode, Exposure, Invocation, ToolDef};
use pi_tools::{Annotations, ToolResult};
use serde_json::{Map, Value, json};

use crate::ClientError;
use crate::exposure::ServerExposure;
use crate::manager::Server;
use crate::result::{self, Origin};
use crate::text;
use error::ResourceError;
pub use spec::Kind;

/// The servers the resource tools may reach (set once by the manager).
pub(crate) type Servers = Arc<std::sync::OnceLock<Vec<Weak<Server>>>>;

/// One resource tool.
pub struct ResourceTool {
    def: ToolDef,
    kind: Kind,
    servers: Servers,
    output_schema: Value,
}

impl ResourceTool {
    /// The tool `kind`, registered with `exposure`.
    pub(crate) fn new(kind: Kind, servers: Servers, exposure: Exposure, active: bool) -> Self {
        let def = ToolDef {
            constrained_sampling: None,
            name: kind.name().to_string(),
            description: kind.description().to_string(),
            parameters: kind.parameters(),
            prompt_snippet: None,
            prompt_guidelines: vec![],
            annotations: Annotations { read_only_hint: Some(true), ..Annotations::default() },
            exposure,
            default_active: active,
            execution_mode: ExecutionMode::Parallel,
            namespace: None,
        };
        ResourceTool { def, kind, servers, output_schema: kind.output_schema() }
    }

    /// The servers with resources, in configuration order.
    fn with_resources(&self) -> Vec<Arc<Server>> {
        let all = self.servers.get().map(Vec::as_slice).unwrap_or_default();
        all.iter().filter_map(Weak::upgrade).filter(|s| offers_resources(s)).collect()
    }

    /// The named server, or the model-facing error naming the ones with resources.
    fn server(&self, name: &str) -> Result<Arc<Server>, ResourceError> {
        let servers = self.with_resources();
        if let Some(s) = servers.iter().find(|s| s.name() == name) {
            return Ok(s.clone());
        }
        let with_resources = servers.iter().map(|s| s.name().to_string()).collect();
        Err(ResourceError::NoResources { server: name.to_string(), with_resources })
    }

    async fn list(&self, args: &Value) -> Result<Value, ResourceError> {
        let key = self.kind.items_key();
        match arg(args, "server") {
            Some(name) => {
                let server = self.server(name)?;
                let raw = server.resources(self.kind, page_params(arg(args, "cursor"))).await?;
                let mut out = Map::new();
                out.insert("server".into(), json!(name));
                out.insert(key.into(), Value::Array(items(&raw, key, name)));
                if let Some(c) = raw.get("nextCursor").filter(|c| c.is_string()) {
                    out.insert("nextCursor".into(), c.clone());
                }
                Ok(Value::Object(out))
            }
            None => {
                let servers = self.with_resources();
                let lists = servers.iter().map(|s| list_all(s, self.kind));
                let results = futures::future::join_all(lists).await;
                let (mut all, mut errors) = (Vec::new(), Vec::new());
                for (s, r) in servers.iter().zip(results) {
                    match r {
                        Ok(items) => all.extend(items),
                        Err(e) => errors.push(json!({"server": s.name(), "error": e.to_string()})),
                    }
                }
                let mut out = Map::new();
                out.insert(key.into(), Value::Array(all));
                if !errors.is_empty() {
                    out.insert("errors".into(), Value::Array(errors));
                }
                Ok(Value::Object(out))
            }
        }
    }

    async fn read(&self, args: &Value) -> Result<(Value, Value), ResourceError> {
        let name = arg(args, "server").ok_or(ResourceError::Missing("server"))?;
        let uri = arg(args, "uri").ok_or(ResourceError::Missing("uri"))?;
        let server = self.server(name)?;
        let raw = server.resources(Kind::Read, json!({"uri": uri})).await?;
        let contents = raw.get("contents").and_then(Value::as_array).cloned().unwrap_or_default();
        let blocks: Vec<Value> = contents.iter().map(|c| json!({"type": "resource", "resource": c})).collect();
        Ok((json!({"content": blocks}), json!({"server": name, "uri": uri, "contents": contents})))
    }
}

/// Whether `s` is reached by the resource tools.
pub(crate) fn offers_resources(s: &Server) -> bool {
    s.config().enabled && s.config().exposure != ServerExposure::Hidden && s.has_resources()
}

/// A non-empty string argument.
fn arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn page_params(cursor: Option<&str>) -> Value {
    match cursor {
        Some(c) => json!({"cursor": c}),
        None => json!({}),
    }
}

/// Whether an item is an MCP App's resource (not shown: pi does not render them).
fn is_app(item: &Map<String, Value>) -> bool {
    let uri = item.get("uri").or_else(|| item.get("uriTemplate")).and_then(Value::as_str).unwrap_or("");
    let mime = item.get("mimeType").and_then(Value::as_str).unwrap_or("");
    uri.starts_with("ui://") || mime.replace(' ', "").eq_ignore_ascii_case("text/html;profile=mcp-app")
}

/// The listed items of `raw[key]` with `server` first and without icons.
fn items(raw: &Value, key: &str, server: &str) -> Vec<Value> {
    let listed = raw.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    listed
        .iter()
        .filter_map(Value::as_object)
        .filter(|item| !is_app(item))
        .map(|item| {
            let mut out = Map::new();
            out.insert("server".into(), json!(server));
            out.extend(item.iter().filter(|(k, _)| k.as_str() != "icons").map(|(k, v)| (k.clone(), v.clone())));
            Value::Object(out)
        })
        .collect()
}

/// Every page of one server's list.
async fn list_all(server: &Server, kind: Kind) -> Result<Vec<Value>, ClientError> {
    let key = kind.items_key();
    let (mut out, mut cursor, mut seen) = (Vec::new(), None::<String>, Vec::<String>::new());
    for _ in 0..text::MAX_RESOURCE_PAGES {
        let raw = server.resources(kind, page_params(cursor.as_deref())).await?;
        out.extend(items(&raw, key, server.name()));
        match raw.get("nextCursor").and_then(Value::as_str) {
            Some(c) if !c.is_empty() && !seen.iter().any(|s| s == c) => {
                seen.push(c.to_string());
                cursor = Some(c.to_string());
            }
            _ => break,
        }
    }
    Ok(out)
}

impl AgentTool for ResourceTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn source_info_path(&self) -> String {
        "builtin:mcp".into()
    }

    fn output_schema(&self) -> Option<&Value> {
        Some(&self.output_schema)
    }

    fn execute<'a>(&'a self, inv: Invocation<'a>) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let origin = Origin { server: "", tool: self.kind.name(), resources: true };
            let (shown, structured) = match self.kind {
                Kind::List | Kind::Templates => match self.list(&inv.args).await {
                    Ok(v) => (json!({"content": [{"type": "text", "text": v.to_string()}]}), v),
                    Err(e) => return ToolResult::error(e.to_string()),
                },
                Kind::Read => match self.read(&inv.args).await {
                    Ok(pair) => pair,
                    Err(e) => return ToolResult::error(e.to_string()),
                },
            };
            let mut out = result::convert(&shown, origin, &inv.ctx.output_files);
            out.structured = Some(structured);
            out
        })
    }
}

#[cfg(test)]
mod tests;
