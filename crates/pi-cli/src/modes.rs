//! The last stage: hand the prepared agent to its mode (print, JSON, RPC or
//! the interactive loop), with signals watched, then let the extensions
//! know the session ended.

use std::process::ExitCode;

use crate::cli_args::Mode;
use crate::setup::{Input, Prepared, Started};

/// Run the mode to its end; the exit status.
pub(crate) fn run(started: Started, runtime: &tokio::runtime::Runtime) -> ExitCode {
    let Started {
        prepared,
        loaded,
        mode,
        interactive,
        notice,
        models,
        input,
        session_dir,
        scope,
        ui,
        resources,
        front,
    } = started;
    let Prepared { agent, reload, header, ext } = prepared;
    let mcp = reload.mcp.clone();
    // The session's extensions when it ends (`/reload` may have loaded them again).
    let session = ext.clone();
    {
        let _guard = runtime.enter();
        crate::signals::install(agent.abort_handle());
    }
    let code = match mode {
        // ACP mode runs before any agent is set up (main); each of its sessions is a pi in RPC mode.
        Mode::Rpc | Mode::Acp => {
            let _ = header;
            let _ = &resources;
            let link = match front {
                crate::setup::Front::Rpc(link) => link,
                _ => crate::rpc::Link::default(),
            };
            let (agent_dir, mcp, mcp_on, llama_on) =
                (reload.agent_dir.clone(), reload.mcp.clone(), reload.mcp_on, reload.llama_on);
            let rt = pi_runtime::Runtime::new(agent, ext.clone(), reload);
            let setup =
                crate::rpc::RpcSetup { models, scope, session_dir, agent_dir, mcp, mcp_on, llama_on, ext, link };
            runtime.block_on(crate::rpc::run(rt, setup))
        }
        Mode::Json | Mode::Text => {
            if mode == Mode::Json {
                crate::json_mode::print_line(&header);
            }
            if interactive {
                let link = match front {
                    crate::setup::Front::Tui(link) => link,
                    _ => crate::tui::Link::default(),
                };
                let initial = input.messages;
                let start = crate::tui::Start { agent, initial, reload, models, ui, notice, ext, link };
                runtime.block_on(crate::tui::run(start))
            } else {
                let Input { messages, first_images } = input;
                let text = mode == Mode::Text;
                let rt = pi_runtime::Runtime::new(agent, ext, reload);
                runtime.block_on(crate::print_mode::run(rt, messages, first_images, text))
            }
        }
    };
    drop(loaded);
    for l in session.take_scripts() {
        for e in runtime.block_on(l.session_shutdown("quit")) {
            eprintln!("{e}");
        }
    }
    // Every MCP server's process group goes (stdin closed, SIGTERM, SIGKILL).
    if let Some(m) = mcp {
        runtime.block_on(m.shutdown());
    }
    code
}
