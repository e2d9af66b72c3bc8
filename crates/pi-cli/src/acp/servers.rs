//! The MCP servers an editor passes with `session/new` or `session/load`:
//! written as an `mcp.json` file of their own (private to the user, removed
//! with the session) that the session's pi reads as the user's own servers
//! (`PI_MCP_EXTRA_CONFIG`), so they join the session as `mcp.json` entries
//! would, behind the same exposure rules. stdio and HTTP servers; not the
//! legacy SSE transport.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::wire::RpcError;
use crate::text;

/// A file of servers, removed when dropped.
#[derive(Debug)]
pub(crate) struct ServersFile(PathBuf);

impl ServersFile {
    /// Its path.
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ServersFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `{name: [{name, value}]}` pairs as an object.
fn pairs(list: &Value) -> Value {
    let mut out = Map::new();
    for p in list.as_array().into_iter().flatten() {
        if let (Some(k), Some(v)) = (p["name"].as_str(), p["value"].as_str()) {
            out.insert(k.to_string(), json!(v));
        }
    }
    Value::Object(out)
}

/// The servers as `mcp.json`'s `mcpServers` object (`None`: there are none).
pub(crate) fn entries(servers: &Value) -> Result<Option<Value>, RpcError> {
    let list = match servers {
        Value::Null => return Ok(None),
        Value::Array(l) if l.is_empty() => return Ok(None),
        Value::Array(l) => l,
        _ => return Err(RpcError::params(text::acp_missing("mcpServers", "an array"))),
    };
    let mut out = Map::new();
    for s in list {
        let name =
            s["name"].as_str().ok_or_else(|| RpcError::params(text::acp_missing("mcpServers[].name", "a string")))?;
        let entry = match s["type"].as_str() {
            Some("http") => json!({"url": s["url"], "headers": pairs(&s["headers"])}),
            Some("sse") => return Err(RpcError::params(text::acp_sse_server(name))),
            _ => {
                let command = s["command"]
                    .as_str()
                    .ok_or_else(|| RpcError::params(text::acp_missing("mcpServers[].command", "a string")))?;
                json!({"command": command, "args": s["args"].as_array().cloned().unwrap_or_default(), "env": pairs(&s["env"])})
            }
        };
        out.insert(name.to_string(), entry);
    }
    Ok(Some(Value::Object(out)))
}

/// Write `servers` (an `mcpServers` object) to a new private file.
pub(crate) fn write(servers: Value) -> Result<ServersFile, RpcError> {
    let failed = |e: std::io::Error| RpcError::internal(text::acp_cannot_start(&e.to_string()));
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let mut n = 0u32;
    let (mut f, path) = loop {
        let path = std::env::temp_dir().join(format!("pi-acp-mcp-{}-{stamp}-{n}.json", std::process::id()));
        // Only the user may read it (headers and environments carry tokens).
        match std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path) {
            Ok(f) => break (f, path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => n += 1,
            Err(e) => return Err(failed(e)),
        }
    };
    let file = ServersFile(path);
    f.write_all(json!({"mcpServers": servers}).to_string().as_bytes()).map_err(failed)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdio_and_http_servers_become_mcp_json_entries() {
        let given = json!([
            {"name": "fs", "command": "node", "args": ["srv.js"], "env": [{"name": "TOKEN", "value": "t"}]},
            {"type": "http", "name": "web", "url": "http://127.0.0.1:9/mcp", "headers": [{"name": "Authorization", "value": "Bearer x"}]},
        ]);
        assert_eq!(
            entries(&given).unwrap().unwrap(),
            json!({
                "fs": {"command": "node", "args": ["srv.js"], "env": {"TOKEN": "t"}},
                "web": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer x"}},
            })
        );
        assert_eq!(entries(&json!([])).unwrap(), None);
        assert_eq!(entries(&Value::Null).unwrap(), None);
    }

    #[test]
    fn bad_servers_are_refused_by_what_is_wrong() {
        assert!(
            entries(&json!([{"type": "sse", "name": "s", "url": "http://x"}])).unwrap_err().message.contains("SSE")
        );
        assert!(entries(&json!([{"command": "x"}])).unwrap_err().message.contains("name"));
        assert!(entries(&json!([{"name": "x"}])).unwrap_err().message.contains("command"));
        assert!(entries(&json!({"a": 1})).is_err());
    }

    #[test]
    fn the_file_is_private_and_goes_with_the_session() {
        let file = write(json!({"fs": {"command": "x"}})).unwrap();
        let path = file.path().to_path_buf();
        let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&path).unwrap().permissions());
        assert_eq!(mode & 0o777, 0o600);
        let read: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(read["mcpServers"]["fs"]["command"], "x");
        drop(file);
        assert!(!path.exists());
    }
}
