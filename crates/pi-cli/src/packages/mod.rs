//! Pi packages: `pi install <source> [-l]`, `pi remove|uninstall <source>
//! [-l]`, `pi list`, `pi update [<source>|--extensions]` (the reference's
//! commands, texts and exit codes; see docs/packages.md), and installing
//! configured packages that are missing at start-up.
//!
//! Trust for these commands: `--approve`/`--no-approve`, else the saved
//! decision, else `defaultProjectTrust` (no prompt; no extension is asked);
//! `pi update` uses only the saved decision or the flags. The project's
//! packages are read, listed and updated only for a trusted project, and
//! `-l` needs one.

mod args;
pub(crate) mod config_cmd;
mod config_model;
mod config_ui;
mod error;
pub(crate) mod install;
mod settings_edit;
pub(crate) mod temporary;
pub(crate) mod text;

use std::path::Path;
use std::process::ExitCode;

use pi_config::packages::{self, PackageSource};
use pi_config::settings::Scope;
use pi_config::trust::{TrustInput, TrustStore};
use pi_config::{Settings, resolve_trust};

use args::{Command, PackageArgs, UpdateTarget};
use error::PackageError;
use install::Installer;

/// Handle `pi install|remove|uninstall|update|list …`; `None` when `args`
/// is not a package command.
pub(crate) fn main(args: &[String]) -> Option<ExitCode> {
    let parsed = args::parse(args)?;
    Some(run(&parsed))
}

fn fail(lines: &[&str]) -> ExitCode {
    for l in lines {
        eprintln!("{l}");
    }
    ExitCode::from(1)
}

fn run(a: &PackageArgs) -> ExitCode {
    if a.help {
        print!("{}\n\n{}", text::usage_line(a.command.usage()), help(a.command));
        return ExitCode::SUCCESS;
    }
    if let Some((message, hint)) = &a.error {
        return fail(&[message, hint]);
    }
    let source = a.source.clone().unwrap_or_default();
    if matches!(a.command, Command::Install | Command::Remove) && a.source.is_none() {
        return fail(&[&text::missing_source(a.command.name()), &text::usage_line(a.command.usage())]);
    }
    if a.command == Command::Update && a.update == UpdateTarget::Models {
        return fail(&[text::MODELS_UPDATE_UNAVAILABLE]);
    }
    let agent_dir = pi_config::agent_dir();
    let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
    let mut settings = match load_settings(a, &agent_dir, &cwd) {
        Ok(s) => s,
        Err(e) => return fail(&[&text::error_line(&e.to_string())]),
    };
    if a.local && !settings.project_trusted() {
        return fail(&[text::PROJECT_NOT_TRUSTED]);
    }
    let installer = Installer::new(&settings, &agent_dir, &cwd);
    let scope = if a.local { Scope::Project } else { Scope::User };
    let result = match a.command {
        Command::Install => install_cmd(&installer, &mut settings, &source, scope),
        Command::Remove => remove_cmd(&installer, &mut settings, &source, scope),
        Command::List => {
            list_cmd(&settings, &agent_dir, &cwd);
            Ok(ExitCode::SUCCESS)
        }
        Command::Update => update_cmd(&installer, &settings, a),
    };
    result.unwrap_or_else(|e| fail(&[&text::error_line(&e.to_string())]))
}

fn help(command: Command) -> &'static str {
    match command {
        Command::Install => text::INSTALL_HELP,
        Command::Remove => text::REMOVE_HELP,
        Command::Update => text::UPDATE_HELP,
        Command::List => text::LIST_HELP,
    }
}

/// The settings with the project layer when the project is trusted.
fn load_settings(a: &PackageArgs, agent_dir: &Path, cwd: &Path) -> Result<Settings, PackageError> {
    let (mut settings, diagnostics) = Settings::load(agent_dir, cwd, false);
    for d in diagnostics {
        eprintln!("Warning: {d}");
    }
    let store = TrustStore::new(agent_dir);
    let trusted = if a.command == Command::Update {
        a.approve.unwrap_or(store.get(cwd)? == Some(true))
    } else {
        let mut input = TrustInput::new(cwd, store);
        input.cli_override = a.approve;
        input.default_trust = settings.default_project_trust();
        resolve_trust(input)?.trusted
    };
    if trusted {
        for d in settings.trust_project() {
            eprintln!("Warning: {d}");
        }
    }
    Ok(settings)
}

fn install_cmd(i: &Installer, settings: &mut Settings, source: &str, scope: Scope) -> Result<ExitCode, PackageError> {
    println!("{}", text::installing(source));
    i.install(&PackageSource::parse(source), scope)?;
    settings_edit::add(settings, source, scope, &i.cwd)?;
    println!("{}", text::installed(source));
    Ok(ExitCode::SUCCESS)
}

fn remove_cmd(i: &Installer, settings: &mut Settings, source: &str, scope: Scope) -> Result<ExitCode, PackageError> {
    println!("{}", text::removing(source));
    i.remove(&PackageSource::parse(source), scope)?;
    if settings_edit::remove(settings, source, scope, &i.cwd)? {
        println!("{}", text::removed(source));
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(fail(&[&text::no_matching_package(source)]))
    }
}

fn list_cmd(settings: &Settings, agent_dir: &Path, cwd: &Path) {
    let user = packages::entries(settings, Scope::User);
    let project = packages::entries(settings, Scope::Project);
    if user.is_empty() && project.is_empty() {
        println!("{}", text::NO_PACKAGES);
        return;
    }
    let show = |heading: &str, list: &[packages::PackageEntry]| {
        println!("{heading}");
        for e in list {
            let suffix = if e.filters.is_some() { text::FILTERED_SUFFIX } else { "" };
            println!("  {}{suffix}", e.source);
            let path = packages::install_path(&PackageSource::parse(&e.source), e.scope, agent_dir, cwd);
            if path.exists() {
                println!("    {}", path.display());
            }
        }
    };
    if !user.is_empty() {
        show(text::USER_PACKAGES, &user);
    }
    if !project.is_empty() {
        if !user.is_empty() {
            println!();
        }
        show(text::PROJECT_PACKAGES, &project);
    }
}

fn update_cmd(i: &Installer, settings: &Settings, a: &PackageArgs) -> Result<ExitCode, PackageError> {
    if a.skipped_note {
        println!("{}", text::EXTENSIONS_SKIPPED);
    }
    let only = match &a.update {
        UpdateTarget::Packages(s) => s.clone(),
        UpdateTarget::All => None,
        _ => return Ok(fail(&[text::SELF_UPDATE_UNAVAILABLE])),
    };
    let mut chosen = Vec::new();
    let all: Vec<packages::PackageEntry> =
        [Scope::User, Scope::Project].into_iter().flat_map(|s| packages::entries(settings, s)).collect();
    for e in &all {
        let base = packages::base_dir(e.scope, &i.agent_dir, &i.cwd);
        let wanted = only.as_ref().map(|s| packages::identity(s, &i.cwd));
        if wanted.is_none_or(|w| w == packages::identity(&e.source, &base)) {
            chosen.push(e.clone());
        }
    }
    if let Some(s) = &only
        && chosen.is_empty()
    {
        return Err(settings_edit::no_match(s, &all));
    }
    if std::env::var("PI_OFFLINE").is_ok_and(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes")) {
        println!("{}", text::OFFLINE_SKIPPED);
        return Ok(ExitCode::SUCCESS);
    }
    let mut updated = Vec::new();
    for e in &chosen {
        let parsed = PackageSource::parse(&e.source);
        if matches!(parsed, PackageSource::Local { .. })
            || (parsed.pinned() && matches!(parsed, PackageSource::Npm { .. }))
        {
            continue;
        }
        println!("{}", text::updating(&e.source));
        let (from, to) = match parsed {
            PackageSource::Git { .. } => i.git_update(&parsed, e.scope)?,
            _ => i.npm_update(&parsed, e.scope)?,
        };
        if from != to {
            let short = |v: Option<String>| match v {
                None => text::NO_VERSION.to_string(),
                Some(v) if matches!(parsed, PackageSource::Git { .. }) => v.chars().take(7).collect(),
                Some(v) => v,
            };
            updated.push(text::updated_line(&e.source, e.scope == Scope::Project, &short(from), &short(to)));
        }
    }
    if updated.is_empty() {
        match &only {
            Some(s) => println!("{}", text::source_up_to_date(s)),
            None => println!("{}", text::UP_TO_DATE),
        }
    } else {
        println!("{}", text::updated_count(updated.len()));
        for u in &updated {
            println!("  {u}");
        }
    }
    if a.update == UpdateTarget::All {
        return Ok(fail(&[text::SELF_UPDATE_UNAVAILABLE]));
    }
    Ok(ExitCode::SUCCESS)
}

/// `PI_OFFLINE` asks for no network at start-up (as `--offline`).
pub(crate) fn offline_env() -> bool {
    std::env::var("PI_OFFLINE").is_ok_and(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes"))
}

/// Start-up: install the configured npm and git packages of `scope` that
/// are missing (not with `PI_OFFLINE`). A failure is a warning naming the
/// package; the run goes on without it.
pub(crate) fn install_missing(settings: &Settings, agent_dir: &Path, cwd: &Path, scope: Scope) -> Vec<String> {
    if offline_env() {
        return Vec::new();
    }
    let mut installer = Installer::new(settings, agent_dir, cwd);
    installer.quiet = true;
    let mut warnings = Vec::new();
    for e in packages::missing(settings, agent_dir, cwd).into_iter().filter(|e| e.scope == scope) {
        eprintln!("{}", text::installing(&e.source));
        if let Err(m) = installer.install(&PackageSource::parse(&e.source), e.scope) {
            warnings.push(text::install_warning(&e.source, e.scope == Scope::Project, &m.to_string()));
        }
    }
    warnings
}
