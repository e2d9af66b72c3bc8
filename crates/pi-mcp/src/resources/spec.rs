//! The three resource tools as data: names, descriptions, input and output
//! schemas (as the reference declares them, `pi-behaviour.md` §6.6).

use serde_json::{Value, json};

/// Which resource tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `list_mcp_resources`.
    List,
    /// `list_mcp_resource_templates`.
    Templates,
    /// `read_mcp_resource`.
    Read,
}

/// All three, in registration order.
pub const KINDS: [Kind; 3] = [Kind::List, Kind::Templates, Kind::Read];

/// `list_mcp_resources`.
pub const LIST: &str = "list_mcp_resources";
/// `list_mcp_resource_templates`.
pub const TEMPLATES: &str = "list_mcp_resource_templates";
/// `read_mcp_resource`.
pub const READ: &str = "read_mcp_resource";
/// The three names.
pub const NAMES: [&str; 3] = [LIST, TEMPLATES, READ];

const LIST_DESCRIPTION: &str = "Lists resources provided by MCP servers. Resources allow servers to share data that provides context to language models, such as files, database schemas, or application-specific information. Prefer resources over web search when possible.";
const TEMPLATES_DESCRIPTION: &str = "Lists resource templates provided by MCP servers. Parameterized resource templates allow servers to share data that takes parameters and provides context to language models, such as files, database schemas, or application-specific information. Prefer resource templates over web search when possible.";
const READ_DESCRIPTION: &str = "Read a specific resource from an MCP server given the server name and resource URI.";
const SERVER_OPTIONAL: &str = "MCP server name. Omit to list every server with resources.";
const CURSOR: &str = "Opaque cursor from a previous call with the same server; omit for the first page.";
const SERVER_REQUIRED: &str =
    "MCP server name exactly as configured. Must match the 'server' field returned by list_mcp_resources.";
const URI: &str = "Resource URI to read. Must be one of the URIs returned by list_mcp_resources.";
const ERRORS: &str = "Servers that could not be listed";
const URI_TEMPLATE: &str = "RFC 6570 URI template";
const BASE64: &str = "base64";

impl Kind {
    /// The tool's name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::List => LIST,
            Kind::Templates => TEMPLATES,
            Kind::Read => READ,
        }
    }

    /// What the model reads.
    pub fn description(self) -> &'static str {
        match self {
            Kind::List => LIST_DESCRIPTION,
            Kind::Templates => TEMPLATES_DESCRIPTION,
            Kind::Read => READ_DESCRIPTION,
        }
    }

    /// The key of the listed items (`resources`, `resourceTemplates`), or `contents`.
    pub fn items_key(self) -> &'static str {
        match self {
            Kind::List => "resources",
            Kind::Templates => "resourceTemplates",
            Kind::Read => "contents",
        }
    }

    /// The JSON-RPC method.
    pub fn method(self) -> &'static str {
        match self {
            Kind::List => "resources/list",
            Kind::Templates => "resources/templates/list",
            Kind::Read => "resources/read",
        }
    }

    /// The input schema.
    pub fn parameters(self) -> Value {
        match self {
            Kind::List | Kind::Templates => json!({
                "type": "object",
                "properties": {
                    "server": {"type": "string", "description": SERVER_OPTIONAL},
                    "cursor": {"type": "string", "description": CURSOR}
                },
                "additionalProperties": false
            }),
            Kind::Read => json!({
                "type": "object",
                "properties": {
                    "server": {"type": "string", "description": SERVER_REQUIRED},
                    "uri": {"type": "string", "description": URI}
                },
                "required": ["server", "uri"],
                "additionalProperties": false
            }),
        }
    }

    /// The value scripts receive.
    pub fn output_schema(self) -> Value {
        let s = || json!({"type": "string"});
        let errors = json!({
            "type": "array",
            "description": ERRORS,
            "items": {"type": "object", "properties": {"server": s(), "error": s()}, "required": ["server", "error"]}
        });
        match self {
            Kind::List => json!({
                "type": "object",
                "properties": {
                    "server": s(),
                    "resources": {"type": "array", "items": {
                        "type": "object",
                        "properties": {"server": s(), "uri": s(), "name": s(), "title": s(), "description": s(),
                            "mimeType": s(), "size": {"type": "number"}},
                        "required": ["server", "uri", "name"]
                    }},
                    "nextCursor": s(),
                    "errors": errors
                },
                "required": ["resources"]
            }),
            Kind::Templates => json!({
                "type": "object",
                "properties": {
                    "server": s(),
                    "resourceTemplates": {"type": "array", "items": {
                        "type": "object",
                        "properties": {"server": s(), "uriTemplate": {"type": "string", "description": URI_TEMPLATE},
                            "name": s(), "title": s(), "description": s(), "mimeType": s()},
                        "required": ["server", "uriTemplate", "name"]
                    }},
                    "nextCursor": s(),
                    "errors": errors
                },
                "required": ["resourceTemplates"]
            }),
            Kind::Read => json!({
                "type": "object",
                "properties": {
                    "server": s(),
                    "uri": s(),
                    "contents": {"type": "array", "items": {"anyOf": [
                        {"type": "object", "properties": {"uri": s(), "mimeType": s(), "text": s()}, "required": ["uri", "text"]},
                        {"type": "object", "properties": {"uri": s(), "mimeType": s(),
                            "blob": {"type": "string", "description": BASE64}}, "required": ["uri", "blob"]}
                    ]}}
                },
                "required": ["server", "uri", "contents"]
            }),
        }
    }
}
