//! Each built-in tool as data: what the model is told and what policy code may read.
//!
//! The descriptions, parameter names, types, required fields and prompt texts are
//! the reference's, byte for byte, so a model sees the same tools in both agents.

use serde::Serialize;
use serde_json::{Value, json};

use crate::ToolName;
use crate::limits::{FIND_DEFAULT_LIMIT, GREP_DEFAULT_LIMIT, GREP_MAX_LINE_LENGTH, LS_DEFAULT_LIMIT, MAX_LINES};

/// Author hints about what a tool does (MCP semantics, unverified).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// The tool changes nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy or overwrite data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling twice with the same input has no further effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool may reach outside the machine's files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// A tool's public definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSpec {
    /// The tool's name.
    pub name: &'static str,
    /// Display label (the name, for built-ins).
    pub label: &'static str,
    /// What the model reads about the tool.
    pub description: String,
    /// JSON schema of the arguments, sent to the model as is.
    pub parameters: Value,
    /// One-line entry in the system prompt's tool list.
    pub prompt_snippet: &'static str,
    /// Bullets added to the system prompt's rules while the tool is active.
    pub prompt_guidelines: Vec<&'static str>,
    /// Author hints.
    pub annotations: Annotations,
    /// JSON schema of the structured value programmatic callers (codemode
    /// scripts) receive instead of the text: bash's and powershell's object,
    /// read's text or image block. `None`: they receive the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

/// The guideline bash and powershell add when session variables are exposed.
pub const SESSION_ENV_GUIDELINE: &str =
    "You can inspect PI_* environment variables for current model and session details.";

const READ_ONLY: Annotations = Annotations {
    read_only_hint: Some(true),
    destructive_hint: Some(false),
    idempotent_hint: Some(true),
    open_world_hint: Some(false),
};
const FILE_WRITER: Annotations = Annotations {
    read_only_hint: Some(false),
    destructive_hint: Some(true),
    idempotent_hint: None,
    open_world_hint: Some(false),
};
const COMMAND: Annotations = Annotations {
    read_only_hint: Some(false),
    destructive_hint: Some(true),
    idempotent_hint: Some(false),
    open_world_hint: Some(true),
};

fn command_schema() -> Value {
    json!({
        "type": "object",
        "required": ["command"],
        "properties": {
            "command": {"type": "string", "description": "Shell command to execute"},
            "timeout": {"type": "number", "description": "Timeout in seconds (optional, no default timeout)"}
        }
    })
}

/// What bash and powershell resolve to in scripts (`{output, truncated, …}`).
fn command_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "output": {"type": "string", "description": "Combined stdout and stderr, possibly truncated"},
            "truncated": {"type": "boolean"},
            "full_output_path": {"type": "string", "description": "Full output, when truncated"},
            "exit_code": {"type": "number"},
            "wall_time_seconds": {"type": "number"}
        },
        "required": ["output", "truncated", "exit_code", "wall_time_seconds"]
    })
}

/// What read resolves to in scripts: the text, or an image block.
fn read_output_schema() -> Value {
    json!({
        "anyOf": [
            {"type": "string"},
            {
                "type": "object",
                "properties": {
                    "type": {"const": "image", "type": "string"},
                    "data": {"type": "string"},
                    "mimeType": {"type": "string"},
                    "note": {"type": "string"}
                },
                "required": ["type", "data", "mimeType", "note"]
            }
        ]
    })
}

fn command_description(shell: &str) -> String {
    format!(
        "Execute a {shell} command in the current working directory. Returns stdout and stderr. Output is truncated to last {MAX_LINES} lines or 50KB (whichever is hit first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds."
    )
}

impl ToolSpec {
    /// The spec of a built-in tool.
    pub fn of(name: ToolName) -> ToolSpec {
        let (description, parameters, prompt_snippet, prompt_guidelines, annotations) = match name {
            ToolName::Read => (
                format!("Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). Images are sent as attachments. For text files, output is truncated to {MAX_LINES} lines or 50KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete."),
                json!({
                    "type": "object",
                    "required": ["path"],
                    "properties": {
                        "path": {"type": "string", "description": "Path to the file to read (relative or absolute)"},
                        "offset": {"type": "number", "description": "Line number to start reading from (1-indexed)"},
                        "limit": {"type": "number", "description": "Maximum number of lines to read"}
                    }
                }),
                "Read file contents",
                vec!["Use read to examine files instead of cat or sed."],
                READ_ONLY,
            ),
            ToolName::Bash => (command_description("bash"), command_schema(), "Execute bash commands (ls, grep, find, etc.)", vec![SESSION_ENV_GUIDELINE], COMMAND),
            ToolName::Powershell => (command_description("PowerShell"), command_schema(), "Execute PowerShell commands", vec![SESSION_ENV_GUIDELINE], COMMAND),
            ToolName::Edit => (
                "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region of the original file. If two changes affect the same block or nearby lines, merge them into one edit instead of emitting overlapping edits. Do not include large unchanged regions just to connect distant changes.".to_string(),
                json!({
                    "type": "object",
                    "required": ["path", "edits"],
                    "properties": {
                        "path": {"type": "string", "description": "Path to the file to edit (relative or absolute)"},
                        "edits": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "required": ["oldText", "newText"],
                                "properties": {
                                    "oldText": {"type": "string", "description": "Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call."},
                                    "newText": {"type": "string", "description": "Replacement text for this targeted edit."}
                                }
                            },
                            "description": "One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead."
                        }
                    }
                }),
                "Make precise file edits with exact text replacement, including multiple disjoint edits in one call",
                vec![
                    "Use edit for targeted changes. Batch changes to one file in a single call.",
                    "Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and non-overlapping; merge nearby changes without including large unchanged regions.",
                ],
                FILE_WRITER,
            ),
            ToolName::Write => (
                "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories.".to_string(),
                json!({
                    "type": "object",
                    "required": ["path", "content"],
                    "properties": {
                        "path": {"type": "string", "description": "Path to the file to write (relative or absolute)"},
                        "content": {"type": "string", "description": "Content to write to the file"}
                    }
                }),
                "Create or overwrite files",
                vec!["Use write only for new files or complete rewrites."],
                FILE_WRITER,
            ),
            ToolName::Grep => (
                format!("Search file contents for a pattern. Returns matching lines with file paths and line numbers. Respects .gitignore. Output is truncated to {GREP_DEFAULT_LIMIT} matches or 50KB (whichever is hit first). Long lines are truncated to {GREP_MAX_LINE_LENGTH} chars."),
                json!({
                    "type": "object",
                    "required": ["pattern"],
                    "properties": {
                        "pattern": {"type": "string", "description": "Search pattern (regex or literal string)"},
                        "path": {"type": "string", "description": "Directory or file to search (default: current directory)"},
                        "glob": {"type": "string", "description": "Filter files by glob pattern relative to path, e.g. 'src/**/*.ts'. Without '/', e.g. '*.ts', it matches file names at any depth"},
                        "ignoreCase": {"type": "boolean", "description": "Case-insensitive search (default: false)"},
                        "literal": {"type": "boolean", "description": "Treat pattern as literal string instead of regex (default: false)"},
                        "context": {"type": "number", "description": "Number of lines to show before and after each match (default: 0)"},
                        "limit": {"type": "number", "description": format!("Maximum number of matches to return (default: {GREP_DEFAULT_LIMIT})")}
                    }
                }),
                "Search file contents for patterns (respects .gitignore)",
                vec![],
                READ_ONLY,
            ),
            ToolName::Find => (
                format!("Search for files by glob pattern. Returns matching file paths relative to the search directory. Respects .gitignore. Output is truncated to {FIND_DEFAULT_LIMIT} results or 50KB (whichever is hit first)."),
                json!({
                    "type": "object",
                    "required": ["pattern"],
                    "properties": {
                        "pattern": {"type": "string", "description": "Glob pattern relative to the search directory, e.g. 'src/**/*.ts'. Without '/', e.g. '*.ts', it matches file names at any depth"},
                        "path": {"type": "string", "description": "Directory to search in (default: current directory)"},
                        "limit": {"type": "number", "description": format!("Maximum number of results (default: {FIND_DEFAULT_LIMIT})")}
                    }
                }),
                "Find files by glob pattern (respects .gitignore)",
                vec![],
                READ_ONLY,
            ),
            ToolName::Ls => (
                format!("List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. Includes dotfiles. Output is truncated to {LS_DEFAULT_LIMIT} entries or 50KB (whichever is hit first)."),
                json!({
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": "Directory to list (default: current directory)"},
                        "limit": {"type": "number", "description": format!("Maximum number of entries to return (default: {LS_DEFAULT_LIMIT})")}
                    }
                }),
                "List directory contents",
                vec![],
                READ_ONLY,
            ),
        };
        let output_schema = match name {
            ToolName::Read => Some(read_output_schema()),
            ToolName::Bash | ToolName::Powershell => Some(command_output_schema()),
            _ => None,
        };
        ToolSpec {
            name: name.as_str(),
            label: name.as_str(),
            description,
            parameters,
            prompt_snippet,
            prompt_guidelines,
            annotations,
            output_schema,
        }
    }

    /// The declaration sent to an OpenAI-style model: `{name, description, parameters}`.
    pub fn declaration(&self) -> Value {
        json!({"name": self.name, "description": self.description, "parameters": self.parameters})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The declarations equal what the reference (1.6.0) sends to a model, captured
    /// from its request body with every built-in enabled.
    #[test]
    fn declarations_match_the_reference() {
        let reference: Value = serde_json::from_str(include_str!("../tests/fixtures/reference-tools.json")).unwrap();
        // The fixture was captured with `--tools read,bash,edit,write,grep,find,ls,powershell`.
        let order = ["read", "bash", "edit", "write", "grep", "find", "ls", "powershell"];
        let ours: Vec<Value> = order
            .iter()
            .map(|n| json!({"type": "function", "function": ToolSpec::of(n.parse().unwrap()).declaration()}))
            .collect();
        assert_eq!(serde_json::to_string_pretty(&ours).unwrap(), serde_json::to_string_pretty(&reference).unwrap());
    }

    #[test]
    fn read_only_tools_say_so() {
        for t in ToolName::ALL {
            let ro = ToolSpec::of(t).annotations.read_only_hint == Some(true);
            assert_eq!(ro, crate::READ_ONLY_TOOLS.contains(&t), "{t}");
        }
    }
}
