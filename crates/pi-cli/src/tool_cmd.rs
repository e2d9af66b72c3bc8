//! `pi tool NAME [ARGS_JSON | -] [--cwd DIR]`: one built-in tool call, exactly
//! as the model would make it, printed as `{"content", "details", "isError"}`.
//!
//! Exit status: 0 when the result is not an error, 1 when it is, 2 when the
//! call itself is invalid (unknown tool, unparsable JSON, arguments failing the
//! schema, bad usage).

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use pi_tools::{ToolContext, ToolName, ToolSpec, args, execute_validated, prepare_arguments};
use serde_json::Value;

use crate::help::TOOL_USAGE;

const EXIT_INVALID: u8 = 2;

fn invalid(message: &str) -> ExitCode {
    eprintln!("{message}");
    ExitCode::from(EXIT_INVALID)
}

fn print_json(value: &Value) {
    println!("{}", serde_json::to_string_pretty(value).unwrap_or_default());
}

/// Entry point of `pi tool …` (arguments after `tool`).
pub fn main(argv: &[String]) -> ExitCode {
    let mut positional = Vec::new();
    let mut cwd: Option<PathBuf> = None;
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--list" => {
                let specs: Vec<ToolSpec> = ToolName::ALL.iter().map(|t| ToolSpec::of(*t)).collect();
                print_json(&serde_json::to_value(specs).unwrap_or_default());
                return ExitCode::SUCCESS;
            }
            "--help" | "-h" => {
                println!("{TOOL_USAGE}");
                return ExitCode::SUCCESS;
            }
            "--cwd" => match it.next() {
                Some(d) => cwd = Some(PathBuf::from(d)),
                None => return invalid("--cwd requires a directory"),
            },
            s if s.starts_with("--cwd=") => cwd = Some(PathBuf::from(&s["--cwd=".len()..])),
            _ => positional.push(a.clone()),
        }
    }
    let (name, raw) = match positional.as_slice() {
        [name] => (name, "{}".to_string()),
        [name, raw] if raw == "-" => {
            let mut s = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut s) {
                return invalid(&format!("Could not read arguments from standard input: {e}"));
            }
            (name, s)
        }
        [name, raw] => (name, raw.clone()),
        _ => return invalid(TOOL_USAGE),
    };
    let tool: ToolName = match name.parse() {
        Ok(t) => t,
        Err(e) => return invalid(&e.to_string()),
    };
    let parsed = match args::parse_raw(tool.as_str(), &raw) {
        Ok(v) => v,
        Err(m) => return invalid(&m),
    };
    let prepared = prepare_arguments(tool, parsed);
    let valid = match args::validate(tool.as_str(), &ToolSpec::of(tool).parameters, &prepared) {
        Ok(v) => v,
        Err(e) => return invalid(&e.to_string()),
    };
    let cwd = match cwd {
        Some(d) => {
            pi_tools::paths::resolve_lexical(&std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")), &d)
        }
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
    };
    let ctx = ToolContext::new(cwd);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("Could not start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let result = runtime.block_on(async {
        match execute_validated(tool, valid, &ctx).await {
            Ok(r) => r,
            Err(e) => pi_tools::ToolResult::error(e.to_string()),
        }
    });
    print_json(&serde_json::to_value(&result).unwrap_or_default());
    if result.is_error { ExitCode::from(1) } else { ExitCode::SUCCESS }
}
