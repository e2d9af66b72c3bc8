//! `codemode` and `tool_search`: the other half of pi's exposure model
//! (requirements X7–X10). A session can reach many tools without declaring
//! them all to the model.
//!
//! - `codemode` runs a script the model writes (JavaScript, the body of an
//!   async function) in a QuickJS sandbox with no Node APIs, file system,
//!   network or timers. The script calls tools through `tools.<name>(args)`,
//!   in parallel if it likes, and returns only what the model needs; every
//!   call takes the one dispatch pipeline of `pi-agent` as a nested call.
//! - `tool_search` ranks the tools that are not declared yet (exposure
//!   `codemode` or `deferred`) with BM25 and activates the matches, so they
//!   are declared from the next request on.
//!
//! Both are `model-only` tools registered inactive; `pi-cli` registers them as
//! the built-in extensions `builtin:codemode` and `builtin:tool-search`.
#![deny(missing_docs)]

mod declare;
mod describe;
mod identifier;
mod js;
mod models;
mod run;
mod search;
mod source;
mod store;
pub mod text;
mod tool;
mod tool_search;
mod v8json;

use std::sync::Arc;

pub use declare::{sample as tool_declaration_sample, schema_to_type};
pub use describe::Mode;
pub use identifier::to_identifier;
pub use models::{ChatSource, Models};
pub use run::Runtimes;
pub use search::{SearchDocument, document, rank, tokenize};
pub use source::{Script, ScriptOptions, SourceError, parse as parse_source};
pub use tool::{Codemode, CodemodeOptions, Settings};
pub use tool_search::ToolSearch;

/// The built-in extensions of this crate, by their `builtin:` name.
pub const BUILTINS: &[&str] = &["codemode", "tool-search"];

/// The tool of the built-in extension `name` (`codemode`, `tool-search`).
pub fn builtin(name: &str, options: &CodemodeOptions) -> Option<Arc<dyn pi_agent::AgentTool>> {
    match name {
        "codemode" => Some(Arc::new(Codemode::new(options.clone()))),
        "tool-search" => Some(Arc::new(ToolSearch::new())),
        _ => None,
    }
}
