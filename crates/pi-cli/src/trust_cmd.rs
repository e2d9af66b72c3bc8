//! `pi trust status|yes|no|parent|clear|list [DIR]`: read and change the saved
//! project-trust decisions in `<agent-dir>/trust.json` (the same store the
//! start-up check and `/trust` use). See docs/trust.md.
//!
//! Output is line-oriented `key: value` text (or JSON with `--json`), meant
//! for scripts. Exit status: 0 done, 1 the store could not be read or
//! written (e.g. a corrupt `trust.json`), 2 bad usage.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use pi_config::trust::{
    DefaultTrust, TrustChoice, TrustEntry, TrustError, TrustInput, TrustSource, TrustStore, apply_trust_choice,
    canonical_dir, home_dir, resolve_trust, trust_requiring_resources,
};
use pi_config::{Settings, agent_dir};
use serde_json::{Value, json};

const USAGE: &str = "Usage: pi trust status [DIR] [--json]   Show the saved decision for DIR and what a start would do
       pi trust yes [DIR]               Save \"trusted\" for DIR
       pi trust no [DIR]                Save \"untrusted\" for DIR
       pi trust parent [DIR]            Save \"trusted\" for DIR's parent and remove DIR's own decision
       pi trust clear [DIR]             Remove DIR's own decision
       pi trust list [--json]           Show every saved decision
DIR defaults to the current folder. Decisions live in <agent-dir>/trust.json.";

const EXIT_STORE: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn usage_error(message: &str) -> ExitCode {
    eprintln!("{message}");
    ExitCode::from(EXIT_USAGE)
}

fn store_error(e: &TrustError) -> ExitCode {
    eprintln!("{e}");
    ExitCode::from(EXIT_STORE)
}

fn not_a_directory(p: &Path) -> String {
    format!("Not a directory: {}", p.display())
}

fn no_parent(p: &Path) -> String {
    format!("{} has no parent folder", p.display())
}

/// `trusted (saved for /a/b)`, `untrusted (inherited from /a)`, `no decision`.
fn decision_text(entry: Option<&TrustEntry>, dir: &Path) -> String {
    match entry {
        None => "no decision".to_string(),
        Some(e) if e.path == dir => format!("{} (saved for {})", word(e.decision), e.path.display()),
        Some(e) => format!("{} (inherited from {})", word(e.decision), e.path.display()),
    }
}

fn word(trusted: bool) -> &'static str {
    if trusted { "trusted" } else { "untrusted" }
}

/// What a start without `--approve`/`--no-approve` does, before extensions
/// have their say: `(value, reason)`.
fn startup_text(store: &TrustStore, dir: &Path) -> Result<(&'static str, String), TrustError> {
    let (settings, _) = Settings::load(&agent_dir(), dir, false);
    let mut input = TrustInput::new(dir, store.clone());
    input.default_trust = settings.default_project_trust();
    let outcome = resolve_trust(input)?;
    Ok(match outcome.source {
        TrustSource::Saved { .. } => (word(outcome.trusted), "saved decision".to_string()),
        TrustSource::NoResources => ("trusted", "no trust-requiring resources".to_string()),
        TrustSource::Default(DefaultTrust::Ask) => {
            ("ask", "interactive mode asks; print, JSON and RPC modes: untrusted".to_string())
        }
        TrustSource::Default(d) => (word(outcome.trusted), format!("defaultProjectTrust is \"{}\"", d.as_str())),
        _ => (word(outcome.trusted), String::new()),
    })
}

fn print_decision(store: &TrustStore, dir: &Path) -> ExitCode {
    match store.get_entry(dir) {
        Ok(entry) => {
            println!("decision: {}", decision_text(entry.as_ref(), dir));
            ExitCode::SUCCESS
        }
        Err(e) => store_error(&e),
    }
}

fn status(store: &TrustStore, dir: &Path, as_json: bool) -> ExitCode {
    let entry = match store.get_entry(dir) {
        Ok(e) => e,
        Err(e) => return store_error(&e),
    };
    let resources = trust_requiring_resources(dir, home_dir().as_deref());
    let (startup, reason) = match startup_text(store, dir) {
        Ok(s) => s,
        Err(e) => return store_error(&e),
    };
    if as_json {
        let v = json!({
            "path": dir.display().to_string(),
            "decision": entry.as_ref().map(|e| Value::Bool(e.decision)).unwrap_or(Value::Null),
            "savedFor": entry.as_ref().map(|e| Value::String(e.path.display().to_string())).unwrap_or(Value::Null),
            "inherited": entry.as_ref().is_some_and(|e| e.path != dir),
            "hasResources": !resources.is_empty(),
            "resources": resources.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "startup": startup,
            "startupReason": reason,
            "store": store.path().display().to_string(),
        });
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return ExitCode::SUCCESS;
    }
    println!("path: {}", dir.display());
    println!("decision: {}", decision_text(entry.as_ref(), dir));
    println!("resources: {}", if resources.is_empty() { "no" } else { "yes" });
    if reason.is_empty() {
        println!("start-up: {startup}");
    } else {
        println!("start-up: {startup} ({reason})");
    }
    ExitCode::SUCCESS
}

fn list(store: &TrustStore, as_json: bool) -> ExitCode {
    let entries = match store.entries() {
        Ok(e) => e,
        Err(e) => return store_error(&e),
    };
    if as_json {
        let map: serde_json::Map<String, Value> =
            entries.iter().map(|(p, d)| (p.display().to_string(), Value::Bool(*d))).collect();
        println!("{}", serde_json::to_string_pretty(&Value::Object(map)).unwrap_or_default());
    } else {
        for (p, d) in entries {
            println!("{} {}", word(d), p.display());
        }
    }
    ExitCode::SUCCESS
}

/// Entry point of `pi trust …` (arguments after `trust`).
pub fn main(argv: &[String]) -> ExitCode {
    let mut as_json = false;
    let mut positional: Vec<&str> = Vec::new();
    for a in argv {
        match a.as_str() {
            "--help" | "-h" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "--json" => as_json = true,
            s if s.starts_with("--") => return usage_error(&format!("Unknown option: {s}\n{USAGE}")),
            s => positional.push(s),
        }
    }
    let (command, dir_arg) = match positional.as_slice() {
        [] => ("status", None),
        [c] => (*c, None),
        [c, d] => (*c, Some(*d)),
        _ => return usage_error(USAGE),
    };
    let raw_dir =
        dir_arg.map(PathBuf::from).unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")));
    let dir = canonical_dir(&raw_dir);
    let store = TrustStore::new(&agent_dir());
    let needs_dir = matches!(command, "yes" | "no" | "parent");
    if needs_dir && !dir.is_dir() {
        return usage_error(&not_a_directory(&dir));
    }
    let result = match command {
        "status" => return status(&store, &dir, as_json),
        "list" => return if dir_arg.is_some() { usage_error(USAGE) } else { list(&store, as_json) },
        "yes" => apply_trust_choice(&store, &dir, TrustChoice::Trust)
            .map(|_| format!("saved: trusted for {}", dir.display())),
        "no" => apply_trust_choice(&store, &dir, TrustChoice::DoNotTrust)
            .map(|_| format!("saved: untrusted for {}", dir.display())),
        "parent" => match dir.parent() {
            None => return usage_error(&no_parent(&dir)),
            Some(parent) => apply_trust_choice(&store, &dir, TrustChoice::TrustParent).map(|_| {
                format!("saved: trusted for {} (removed the decision for {})", parent.display(), dir.display())
            }),
        },
        "clear" => {
            let had = store.entries().map(|all| all.iter().any(|(p, _)| *p == dir));
            match had {
                Err(e) => Err(e),
                Ok(false) => Ok(format!("removed: nothing was saved for {}", dir.display())),
                Ok(true) => store.set(&dir, None).map(|_| format!("removed: the decision for {}", dir.display())),
            }
        }
        other => return usage_error(&format!("Unknown trust command: {other}\n{USAGE}")),
    };
    match result {
        Ok(line) => {
            println!("{line}");
            print_decision(&store, &dir)
        }
        Err(e) => store_error(&e),
    }
}
