//! `pi checkpoints list|show|undo|restore`: the working folder's checkpoints
//! for scripts (B11; the terminal UI has `/undo`). See docs/checkpoints.md.
//!
//! Exit status: 0 done, 1 refused or failed (a file changed since the turn,
//! no such checkpoint, git missing), 2 bad usage.

use std::process::ExitCode;

use pi_checkpoints::{CheckpointError, Kind, Store, text as cp_text};
use serde_json::json;

const USAGE: &str =
    "Usage: pi checkpoints list [--json]              The turns that changed files, per session (newest first)
       pi checkpoints show ID                   The files the turn after checkpoint ID changed
       pi checkpoints undo [--session ID] [--force]
                                                Undo the last changing turn of a session (default: the latest)
       pi checkpoints restore ID [--force]      Bring back the files as they were at checkpoint ID
       pi checkpoints prune [--days N]          Drop sessions' checkpoints older than N days (default: checkpoints.keepDays, 14),
                                                then the oldest while the store is over checkpoints.maxStoreMb (2048)
--force restores files changed since the turn too (what is there is kept as a checkpoint).";

const EXIT_FAILED: u8 = 1;
const EXIT_USAGE: u8 = 2;

/// Run the subcommand.
pub fn main(args: &[String]) -> ExitCode {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let force = args.iter().any(|a| a == "--force");
    let json_out = args.iter().any(|a| a == "--json");
    let value_of = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let session = value_of("--session");
    let days = value_of("--days").map(|d| d.parse::<u64>().map_err(|_| ()));
    let words: Vec<&str> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || !matches!(args[i - 1].as_str(), "--session" | "--days")))
        .map(|(_, a)| a.as_str())
        .collect();
    if let Some(bad) = args
        .iter()
        .find(|a| a.starts_with("--") && !matches!(a.as_str(), "--force" | "--json" | "--session" | "--days"))
    {
        eprintln!("Unknown option {bad}\n{USAGE}");
        return ExitCode::from(EXIT_USAGE);
    }
    let store = match open() {
        Ok(s) => s,
        Err(e) => return failed(&e),
    };
    let result = match words.as_slice() {
        ["list"] => list(&store, json_out),
        ["show", id] => show(&store, id),
        ["undo"] => undo(&store, session, force),
        ["restore", id] => store.rewind(id, force).map(|r| report(&r, id)),
        ["prune"] => match days {
            Some(Ok(days)) => prune(&store, days),
            Some(Err(())) => {
                eprintln!("--days takes a number of days\n{USAGE}");
                return ExitCode::from(EXIT_USAGE);
            }
            None => prune(&store, setting("keepDays", cp_text::DEFAULT_KEEP_DAYS)),
        },
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => failed(&e),
    }
}

fn failed(e: &CheckpointError) -> ExitCode {
    eprintln!("{e}");
    ExitCode::from(EXIT_FAILED)
}

/// The store of the current folder (the size cap does not matter here).
fn open() -> Result<Store, CheckpointError> {
    let cwd = std::env::current_dir().map_err(|e| CheckpointError::Io(".".into(), e))?;
    Store::open(&pi_config::agent_dir(), &cwd, cp_text::DEFAULT_MAX_FILE_MB)
}

fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}

fn list(store: &Store, json_out: bool) -> Result<(), CheckpointError> {
    let mut all = Vec::new();
    for session in store.sessions()? {
        for turn in store.turns(&session)?.into_iter().rev() {
            let files = match &turn.after {
                Some(a) => store.changes(&turn.before.id, &a.id)?,
                None => Vec::new(),
            };
            all.push(json!({
                "id": turn.before.id, "session": session, "time": turn.before.record.time,
                "entry": turn.after.as_ref().and_then(|a| a.record.entry.clone()),
                "files": files, "undone": turn.undone,
                "notRestorable": turn.before.record.skipped.iter().map(|s| json!({"path": s.path, "reason": s.reason})).collect::<Vec<_>>(),
            }));
        }
    }
    if json_out {
        println!("{}", serde_json::Value::Array(all));
        return Ok(());
    }
    for t in &all {
        let files = t["files"].as_array().map_or(0, Vec::len);
        let undone = if t["undone"] == true { " (undone)" } else { "" };
        println!(
            "{}  session {}  {} file{} changed{undone}",
            short(t["id"].as_str().unwrap_or_default()),
            t["session"].as_str().unwrap_or_default(),
            files,
            if files == 1 { "" } else { "s" }
        );
    }
    Ok(())
}

fn show(store: &Store, id: &str) -> Result<(), CheckpointError> {
    let before = store.find(id)?;
    if before.record.kind != Kind::Before {
        return Err(CheckpointError::NotFound(id.to_string()));
    }
    let turns = store.turns(&before.record.session)?;
    let after = turns.iter().find(|t| t.before.id == before.id).and_then(|t| t.after.clone());
    println!("checkpoint {} (session {})", before.id, before.record.session);
    if let Some(a) = after {
        // What the turn changed, and what restoring the checkpoint takes back.
        let undo: std::collections::HashMap<String, pi_checkpoints::FileChange> =
            store.summary(&a.id, &before.id)?.into_iter().map(|f| (f.path.clone(), f)).collect();
        for path in store.changes(&before.id, &a.id)? {
            match undo.get(&path) {
                Some(f) => println!("changed: {path} (undo: {})", pi_checkpoints::summary_effect(f)),
                None => println!("changed: {path}"),
            }
        }
    }
    for s in &before.record.skipped {
        println!("not restorable: {} ({})", s.path, s.reason);
    }
    Ok(())
}

/// `checkpoints.<key>` from the settings (this folder's project layer only
/// when trusted, as at start-up), or `default`.
fn setting(key: &str, default: u64) -> u64 {
    let cwd = std::env::current_dir().unwrap_or_default();
    // Only a saved "trusted" counts: the project's settings are not read otherwise.
    let trusted = pi_config::trust::TrustStore::new(&pi_config::agent_dir()).get(&cwd).ok().flatten() == Some(true);
    let (settings, _) = pi_config::Settings::load(&pi_config::agent_dir(), &cwd, trusted);
    settings.get(&["checkpoints", key]).and_then(serde_json::Value::as_u64).unwrap_or(default)
}

/// Sessions older than `days` go, then the oldest while the store is over
/// its size cap.
fn prune(store: &Store, days: u64) -> Result<(), CheckpointError> {
    let dropped = store.prune(days)?;
    println!("{}", cp_text::pruned(dropped.len(), days));
    let max_mb = setting("maxStoreMb", cp_text::DEFAULT_MAX_STORE_MB);
    let by_size = store.prune_to_size(max_mb.saturating_mul(1024 * 1024), "", cp_text::PRUNE_GRACE)?;
    if !by_size.is_empty() {
        println!("{}", cp_text::pruned_to_size(by_size.len(), max_mb));
    }
    Ok(())
}

fn undo(store: &Store, session: Option<String>, force: bool) -> Result<(), CheckpointError> {
    let session = match session {
        Some(s) => s,
        None => store.sessions()?.into_iter().next().ok_or(CheckpointError::NothingToUndo)?,
    };
    let (turn, restored) = pi_checkpoints::undo(store, &session, force)?;
    report(&restored, &turn.before.id);
    Ok(())
}

fn report(r: &pi_checkpoints::Restored, id: &str) {
    println!("{}", cp_text::restored(r.changed().len(), short(id)));
    for path in r.changed() {
        println!("  {path}");
    }
    if !r.not_restorable.is_empty() {
        println!("{}", cp_text::not_restorable(&r.not_restorable));
    }
}
