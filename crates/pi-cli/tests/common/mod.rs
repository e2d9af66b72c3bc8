//! Helpers shared by the `pi tool` search tests (grep, find).
#![allow(dead_code)]

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// What `pi tool` printed, with the exit status already checked against `isError`.
pub struct Out {
    /// The text blocks joined by newlines.
    pub text: String,
    /// `details`.
    pub details: Value,
    /// `isError`.
    pub is_error: bool,
}

/// Run `pi tool <tool> <args> --cwd <dir>`, with `PATH` replaced when given.
pub fn run_tool(tool: &str, dir: &Path, args: &Value, path_env: Option<&str>) -> Out {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pi"));
    cmd.args(["tool", tool, &args.to_string(), "--cwd"]).arg(dir);
    if let Some(p) = path_env {
        cmd.env("PATH", p);
    }
    let o = cmd.output().expect("run pi");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| {
        panic!("not JSON: {} / {}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
    });
    let text =
        v["content"].as_array().unwrap().iter().filter_map(|c| c["text"].as_str()).collect::<Vec<_>>().join("\n");
    let is_error = v["isError"].as_bool().unwrap();
    assert_eq!(o.status.code(), Some(if is_error { 1 } else { 0 }));
    Out { text, details: v["details"].clone(), is_error }
}

/// Write `content` to `dir/rel`, creating folders.
pub fn write(dir: &Path, rel: &str, content: impl AsRef<[u8]>) {
    let p = dir.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, content).unwrap();
}
