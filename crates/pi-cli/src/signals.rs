//! Ending `pi` on a signal: abort the run, kill every command's and MCP
//! server's process group (a killed agent leaves no child behind, B8), exit
//! with 128 + the signal.

use pi_agent::AbortHandle;

/// Exit status after SIGHUP.
const SIGHUP_EXIT: i32 = 129;
/// Exit status after SIGINT.
const SIGINT_EXIT: i32 = 130;
/// Exit status after SIGTERM.
const SIGTERM_EXIT: i32 = 143;

/// Watch for SIGTERM, SIGHUP and SIGINT on the current runtime; on the first,
/// abort the run, kill running commands and exit.
pub fn install(abort: AbortHandle) {
    #[cfg(unix)]
    tokio::spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut hup), Ok(mut int)) =
            (signal(SignalKind::terminate()), signal(SignalKind::hangup()), signal(SignalKind::interrupt()))
        else {
            return;
        };
        let code = tokio::select! {
            _ = term.recv() => SIGTERM_EXIT,
            _ = hup.recv() => SIGHUP_EXIT,
            _ = int.recv() => SIGINT_EXIT,
        };
        abort.abort();
        pi_tools::kill_running_commands();
        // MCP servers' process groups too (SIGTERM, a moment, SIGKILL).
        pi_mcp::stop_all_servers_now();
        if pi_tui::screen::active() {
            pi_tui::screen::restore_terminal();
        }
        std::process::exit(code);
    });
    #[cfg(not(unix))]
    let _ = abort;
}
