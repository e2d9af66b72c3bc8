//! The `ls` tool: one folder's entries, sorted as the reference sorts them.
//!
//! Order: JavaScript's `localeCompare` on lowercased names, which is ICU's
//! root collation (`_x`, `~x`, `10`, `9`, `a_b`, `a-b`, `a.b`, `ab`, `B`, `e`,
//! `é`, `Ea`); names the collation finds equal keep byte order (Node's
//! `readdir` returns names sorted by bytes and the sort is stable). Every
//! entry is `stat`ed through symlinks: folders (and links to folders) get a
//! `/`, entries that cannot be `stat`ed (broken links, names that are not
//! UTF-8, which Node cannot name either) are left out. The entry limit is
//! checked before each `stat`, so a limit can be reported as reached even if
//! the entries after it would all have been left out, as in the reference.

use std::ffi::OsString;
use std::path::Path;

use icu_collator::options::CollatorOptions;
use icu_collator::{CollatorBorrowed, CollatorPreferences};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::limits::{LS_DEFAULT_LIMIT, MAX_BYTES};
use crate::os_error::node_error;
use crate::text::{common, ls as msg};
use crate::truncate::{Limits, truncate_head};
use crate::{ToolContext, ToolError, ToolResult};

/// `Number.MAX_SAFE_INTEGER`: the reference cuts `ls` output by bytes only.
const NO_LINE_LIMIT: usize = 9_007_199_254_740_991;

/// Entries `stat`ed between two abort checks.
const ABORT_CHECK_EVERY: usize = 256;

#[derive(Debug, Deserialize)]
struct LsArgs {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    limit: Option<f64>,
}

/// Run `ls`.
pub async fn run(args: Value, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let args: LsArgs = super::parse(args)?;
    let abs = crate::paths::resolve(&ctx.cwd, args.path.as_deref().unwrap_or(".")).map_err(ToolError::msg)?;
    let limit = effective_limit(args.limit);
    let abort = ctx.abort.clone();
    let job = tokio::task::spawn_blocking(move || list(&abs, limit, &abort));
    tokio::select! {
        joined = job => joined.map_err(super::worker_failed)?,
        _ = ctx.abort.cancelled() => Err(ToolError::Aborted),
    }
}

/// The entry limit actually applied: a whole number, at least 1.
fn effective_limit(limit: Option<f64>) -> u64 {
    let l = limit.unwrap_or(LS_DEFAULT_LIMIT as f64).floor();
    if l.is_nan() || l < 1.0 { 1 } else { l as u64 } // `as` saturates huge values
}

/// Sort names the way the reference does: byte order first, then a stable
/// sort by root collation of the lowercased names.
pub(crate) fn sort_names(names: &mut Vec<String>) {
    names.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    let Ok(collator) = CollatorBorrowed::try_new(CollatorPreferences::default(), CollatorOptions::default()) else {
        return;
    };
    let mut keyed: Vec<(String, String)> = names.drain(..).map(|n| (n.to_lowercase(), n)).collect();
    keyed.sort_by(|(a, _), (b, _)| collator.compare(a, b));
    names.extend(keyed.into_iter().map(|(_, n)| n));
}

fn lossy(name: OsString) -> String {
    name.into_string().unwrap_or_else(|n| n.to_string_lossy().into_owned())
}

fn list(abs: &Path, limit: u64, abort: &CancellationToken) -> Result<ToolResult, ToolError> {
    let shown = abs.to_string_lossy();
    let meta = match std::fs::metadata(abs) {
        Ok(m) => m,
        Err(_) => return Err(ToolError::msg(common::path_not_found(&shown))),
    };
    if !meta.is_dir() {
        return Err(ToolError::msg(msg::not_a_directory(&shown)));
    }
    let read_error =
        |e: std::io::Error| ToolError::msg(msg::cannot_read_directory(&node_error(&e, "scandir", Some(abs))));
    let mut names = Vec::new();
    for entry in std::fs::read_dir(abs).map_err(read_error)? {
        names.push(lossy(entry.map_err(read_error)?.file_name()));
        if names.len() % ABORT_CHECK_EVERY == 0 && abort.is_cancelled() {
            return Err(ToolError::Aborted);
        }
    }
    sort_names(&mut names);
    let mut entries: Vec<String> = Vec::new();
    let mut limit_reached = false;
    for (i, name) in names.iter().enumerate() {
        if entries.len() as u64 >= limit {
            limit_reached = true;
            break;
        }
        if i % ABORT_CHECK_EVERY == 0 && abort.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        match std::fs::metadata(abs.join(name)) {
            Ok(m) if m.is_dir() => entries.push(format!("{name}/")),
            Ok(_) => entries.push(name.clone()),
            Err(_) => {}
        }
    }
    if entries.is_empty() {
        return Ok(ToolResult::success(msg::EMPTY_DIRECTORY));
    }
    let t = truncate_head(&entries.join("\n"), Limits { max_lines: NO_LINE_LIMIT, max_bytes: MAX_BYTES });
    let mut text = t.content.clone();
    let mut notices = Vec::new();
    let mut details = Map::new();
    if limit_reached {
        notices.push(msg::entries_limit_reached(limit, limit.saturating_mul(2)));
        details.insert("entryLimitReached".into(), json!(limit));
    }
    if t.truncated {
        notices.push(common::byte_limit_reached());
        let mut inner = Map::new();
        inner.insert("content".into(), Value::String(t.content.clone()));
        if let Ok(Value::Object(fields)) = serde_json::to_value(&t) {
            inner.extend(fields);
        }
        details.insert("truncation".into(), Value::Object(inner));
    }
    if !notices.is_empty() {
        text.push_str(&msg::notices(&notices));
    }
    let mut result = ToolResult::success(text);
    if !details.is_empty() {
        result.details = Some(Value::Object(details));
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn icu_root_order_on_lowercased_names() {
        let mut names: Vec<String> = ["Ea", "é", "e", "B", "ab", "a.b", "a-b", "a_b", "9", "10", "~x", "_x"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        sort_names(&mut names);
        assert_eq!(names, ["_x", "~x", "10", "9", "a_b", "a-b", "a.b", "ab", "B", "e", "é", "Ea"]);
    }

    #[test]
    fn collation_ties_keep_byte_order() {
        let mut names: Vec<String> = ["a", "é", "A", "b", "e\u{301}", "B"].iter().map(|s| s.to_string()).collect();
        sort_names(&mut names);
        assert_eq!(names, ["A", "a", "B", "b", "e\u{301}", "é"]);
    }

    #[test]
    fn limits() {
        assert_eq!(effective_limit(None), 500);
        assert_eq!(effective_limit(Some(0.0)), 1);
        assert_eq!(effective_limit(Some(-1.0)), 1);
        assert_eq!(effective_limit(Some(0.5)), 1);
        assert_eq!(effective_limit(Some(1.9)), 1);
        assert_eq!(effective_limit(Some(2.5)), 2);
        assert_eq!(effective_limit(Some(1e300)), u64::MAX);
    }
}
