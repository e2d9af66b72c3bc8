//! `pi config [-l] [--approve|--no-approve]`: the resource configuration
//! screen ([`super::config_ui`]) on a terminal.

use std::io::IsTerminal;
use std::process::ExitCode;

use pi_config::Settings;
use pi_config::trust::{TrustInput, TrustStore, resolve_trust};

use super::text;

/// Run `pi config` with `args` (after `config`).
pub(crate) fn main(args: &[String]) -> ExitCode {
    let (mut local, mut approve) = (false, None);
    for a in args {
        match a.as_str() {
            "-h" | "--help" => {
                print!("{}", text::CONFIG_HELP);
                return ExitCode::SUCCESS;
            }
            "-l" | "--local" => local = true,
            "-a" | "--approve" => approve = Some(true),
            "-na" | "--no-approve" => approve = Some(false),
            other => {
                eprintln!("{}", text::config_unknown_option(other));
                return ExitCode::from(1);
            }
        }
    }
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        eprintln!("{}", text::CONFIG_NEEDS_TERMINAL);
        return ExitCode::from(1);
    }
    let agent_dir = pi_config::agent_dir();
    let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
    let (mut settings, diagnostics) = Settings::load(&agent_dir, &cwd, false);
    for d in diagnostics {
        eprintln!("Warning: {d}");
    }
    let mut input = TrustInput::new(&cwd, TrustStore::new(&agent_dir));
    input.cli_override = approve;
    input.default_trust = settings.default_project_trust();
    match resolve_trust(input) {
        Ok(t) if t.trusted => {
            for d in settings.trust_project() {
                eprintln!("Warning: {d}");
            }
        }
        Ok(_) => {}
        Err(e) => {
            eprintln!("Error: {e}");
            return ExitCode::from(1);
        }
    }
    let (theme, keys) = crate::tui::look::default_look();
    let mut dialog = super::config_ui::ConfigDialog::new(settings, agent_dir, cwd, local);
    pi_tui::standalone::run_dialog(&mut dialog, &theme, &keys);
    ExitCode::SUCCESS
}
