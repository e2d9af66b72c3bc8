//! `pi`: a coding agent whose heart is a tool system and a trust boundary.
//!
//! This binary is a thin shell over the library crates: it parses the command
//! line and hands each sub-command to its module. `pi [options] [messages…]`
//! runs the start-up stages ([`setup`]) and then the mode ([`modes`]); on a
//! terminal the mode is the terminal UI ([`tui`]). The session's life the
//! modes drive (input routing, extensions, reloads, session replacement,
//! undo, models and credentials) is the `pi_runtime` library's.

mod acp;
mod auth;
mod checkpoints_cmd;
mod cli_args;
mod export;
mod flags;
mod help;
mod json_mode;
mod mcp_cmd;
mod model_list;
mod modes;
mod packages;
mod print_mode;
mod rpc;
mod sandbox;
mod setup;
mod signals;
mod text;
mod tool_cmd;
mod trust_cmd;
mod tui;

use std::process::ExitCode;

/// Let a closed standard output end the process quietly (as `rg` and other
/// Unix tools do: `pi tool read … | head`), instead of a write error panic.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    #[allow(unsafe_code)] // a documented exception to `unsafe_code`
    // SAFETY: resetting one signal's disposition to the default at start-up,
    // before any thread exists, has no memory-safety preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// A panic (a bug) is reported in one short line: its message can hold a
/// model's or a file's text of any size (a 400 KB pattern, say).
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let location = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("{}\n", text::internal_error(&location, &message)).as_bytes(),
        );
    }));
}

/// `pi [options] [messages…]`: start-up, then the mode.
fn run_agent(args: &cli_args::CliArgs) -> ExitCode {
    let mut report = setup::Report::stderr();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_start(pi_mcp::block_sigpipe_in_this_thread)
        .build()
    {
        Ok(r) => r,
        Err(e) => return setup::Stop::Error(e.to_string()).finish(&mut report),
    };
    let code = match setup::start(args, &runtime, &mut report) {
        Ok(Some(started)) => modes::run(started, &runtime),
        Ok(None) => ExitCode::SUCCESS,
        Err(stop) => stop.finish(&mut report),
    };
    // A read of standard input still waiting (RPC mode ended by an
    // extension's `ctx.shutdown()`) must not keep pi alive.
    runtime.shutdown_timeout(text::RUNTIME_SHUTDOWN_GRACE);
    code
}

fn main() -> ExitCode {
    let raw: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if raw.first().is_some_and(|a| a == pi_tools::SUPERVISE_ARG) {
        // A command's supervisor (started by pi itself): as small as can be.
        std::process::exit(pi_tools::supervise_main(&raw[1..]));
    }
    if raw.first().is_some_and(|a| a == pi_sandbox::HELPER_ARG) {
        // The sandbox helper (started by pi inside the sandbox): restrict, then run the command.
        std::process::exit(pi_sandbox::helper_main(&raw[1..]));
    }
    restore_default_sigpipe();
    install_panic_hook();
    // Commands start through this binary, so a killed pi takes them along.
    if let Ok(exe) = std::env::current_exe() {
        pi_tools::set_supervisor(exe.clone());
        // ... and sandboxed commands are restricted by it (beyond.md B5).
        pi_sandbox::set_helper(exe);
    }
    let args: Vec<String> = raw.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let code = dispatch(&args);
    // Session sandboxes end with pi, and the mount points they made go.
    pi_tools::end_sandbox_sessions();
    code
}

/// The subcommand or the agent.
fn dispatch(args: &[String]) -> ExitCode {
    match args.first().map(String::as_str) {
        Some("tool") => tool_cmd::main(&args[1..]),
        Some("trust") => trust_cmd::main(&args[1..]),
        Some("checkpoints") => checkpoints_cmd::main(&args[1..]),
        Some("auth") => auth::cmd::main(&args[1..]),
        Some("mcp") => mcp_cmd::main(&args[1..]),
        Some("config") => packages::config_cmd::main(&args[1..]),
        Some("install" | "remove" | "uninstall" | "update" | "list") => {
            packages::main(args).unwrap_or(ExitCode::SUCCESS)
        }
        _ => {
            let a = cli_args::parse(args);
            if cli_args::report(&a.diagnostics) {
                return ExitCode::from(1);
            }
            if a.version {
                println!("{}", text::version_line());
                return ExitCode::SUCCESS;
            }
            if a.help {
                print!("{}", help::help());
                return ExitCode::SUCCESS;
            }
            if let Some(input) = &a.export {
                return export::from_file(input, a.messages.first().map(String::as_str));
            }
            if a.mode == cli_args::Mode::Acp {
                return acp::main(args);
            }
            run_agent(&a)
        }
    }
}
