//! `pi tool NAME [ARGS_JSON | -] [--cwd DIR] [-e EXT]…`: one tool call,
//! exactly as the model would make it, printed as `{"content", "details",
//! "isError"}`. The call takes the one dispatch path (lookup, preparation,
//! validation, the `tool_call`/`tool_result` handlers of the extensions and
//! shipped policies given with `-e`, execution), so a policy that would
//! block the model blocks `pi tool` too; an `-e` extension's own tools can
//! be called by name.
//!
//! The call runs under the sandbox of the user's `sandbox` settings (the
//! project's are not read: `pi tool` resolves no trust), with `--sandbox
//! MODE` and `--sandbox-network` applied on top.
//!
//! Exit status: 0 when the result is not an error, 1 when it is (a blocked
//! call included), 2 when the call itself is invalid (unknown tool,
//! unparsable JSON, arguments failing the schema, bad usage).

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use pi_agent::{BuiltinTool, CallRequest, Caller, Dispatcher, Finished, RawArgs, Refusal, Registry};
use pi_tools::{ToolContext, ToolName, ToolSpec, args};
use serde_json::Value;

use crate::help::TOOL_USAGE;
use crate::setup::plan::ExtensionPlan;
use crate::setup::{Loaded, Stop};

const EXIT_INVALID: u8 = 2;
/// The call id `pi tool` gives its one call.
const CALL_ID: &str = "pi-tool-1";

fn invalid(message: &str) -> ExitCode {
    eprintln!("{message}");
    ExitCode::from(EXIT_INVALID)
}

fn print_json(value: &Value) {
    println!("{}", serde_json::to_string_pretty(value).unwrap_or_default());
}

/// What the command line asked for.
struct ToolArgs {
    name: String,
    raw: String,
    cwd: Option<PathBuf>,
    extensions: Vec<String>,
    sandbox: pi_sandbox::Flags,
}

enum Parsed {
    Call(ToolArgs),
    Done(ExitCode),
}

fn parse(argv: &[String]) -> Parsed {
    let mut positional = Vec::new();
    let mut cwd: Option<PathBuf> = None;
    let mut extensions = Vec::new();
    let mut sandbox = pi_sandbox::Flags::default();
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--list" => {
                let specs: Vec<ToolSpec> = ToolName::ALL.iter().map(|t| ToolSpec::of(*t)).collect();
                print_json(&serde_json::to_value(specs).unwrap_or_default());
                return Parsed::Done(ExitCode::SUCCESS);
            }
            "--help" | "-h" => {
                println!("{TOOL_USAGE}");
                return Parsed::Done(ExitCode::SUCCESS);
            }
            "--cwd" => match it.next() {
                Some(d) => cwd = Some(PathBuf::from(d)),
                None => return Parsed::Done(invalid("--cwd requires a directory")),
            },
            s if s.starts_with("--cwd=") => cwd = Some(PathBuf::from(&s["--cwd=".len()..])),
            "-e" | "--extension" => match it.next() {
                Some(e) => extensions.push(e.clone()),
                None => return Parsed::Done(invalid("--extension requires a path or builtin:<name>")),
            },
            s if s.starts_with("--extension=") => extensions.push(s["--extension=".len()..].to_string()),
            "--sandbox-network" => sandbox.network = true,
            "--sandbox" => match it.next() {
                Some(m) => match sandbox_mode(m) {
                    Ok(mode) => sandbox.mode = Some(mode),
                    Err(code) => return Parsed::Done(code),
                },
                None => return Parsed::Done(invalid(pi_sandbox::text::SANDBOX_REQUIRES_MODE)),
            },
            s if s.starts_with("--sandbox=") => match sandbox_mode(&s["--sandbox=".len()..]) {
                Ok(mode) => sandbox.mode = Some(mode),
                Err(code) => return Parsed::Done(code),
            },
            _ => positional.push(a.clone()),
        }
    }
    let (name, raw) = match positional.as_slice() {
        [name] => (name.clone(), "{}".to_string()),
        [name, raw] if raw == "-" => {
            let mut s = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut s) {
                return Parsed::Done(invalid(&format!("Could not read arguments from standard input: {e}")));
            }
            (name.clone(), s)
        }
        [name, raw] => (name.clone(), raw.clone()),
        _ => return Parsed::Done(invalid(TOOL_USAGE)),
    };
    Parsed::Call(ToolArgs { name, raw, cwd, extensions, sandbox })
}

fn sandbox_mode(m: &str) -> Result<pi_sandbox::Mode, ExitCode> {
    pi_sandbox::Mode::parse(m).ok_or_else(|| invalid(&pi_sandbox::text::invalid_mode(m)))
}

/// The context of the call: the working folder and the sandbox of the
/// user's settings and the flags (settings problems go to stderr).
fn tool_context(a: &ToolArgs, cwd: PathBuf) -> ToolContext {
    let agent_dir = pi_config::agent_dir();
    let (settings, diagnostics) = pi_config::Settings::load(&agent_dir, &cwd, false);
    let (sandbox, warnings) = crate::sandbox::from_settings(&settings, a.sandbox, &cwd, &agent_dir);
    for w in diagnostics.iter().map(ToString::to_string).chain(warnings) {
        eprintln!("Warning: {w}");
    }
    let mut ctx = ToolContext::new(cwd);
    ctx.sandbox = Arc::new(sandbox);
    ctx
}

/// Every built-in and every `-e` extension's tool, all callable by name.
fn registry(loaded: &Loaded) -> Registry {
    let mut registry = Registry::new();
    for tool in BuiltinTool::all().into_iter().chain(loaded.tools()) {
        registry.register(tool);
    }
    let names: Vec<String> = registry.all().iter().map(|t| t.def().name.clone()).collect();
    registry.reset_active(&names);
    registry
}

/// Load the `-e` extensions and build the dispatcher over the tools.
async fn dispatcher(cwd: &std::path::Path, extensions: &[String]) -> Result<(Dispatcher, Loaded), Stop> {
    let plan = ExtensionPlan::explicit(extensions);
    let opts = pi_ext::HostOptions { cwd: cwd.to_path_buf(), mode: pi_ext::Mode::Print, ..Default::default() };
    let scripts = crate::setup::load_extensions(&plan.before_trust, opts).await?;
    let loaded = Loaded {
        scripts: scripts.into_iter().collect(),
        builtins: plan.builtins,
        groups: Vec::new(),
        flag_values: Default::default(),
    };
    let mut registry = registry(&loaded);
    registry.refresh_loadout().await;
    let mut dispatcher = Dispatcher::new(registry);
    dispatcher.interceptors = pi_runtime::extensions::load_builtins(&loaded.builtins, cwd, None)?;
    dispatcher.interceptors.extend(loaded.scripts.iter().flat_map(|l| l.interceptors.iter().cloned()));
    for l in &loaded.scripts {
        for e in l.session_start("startup").await {
            eprintln!("{e}");
        }
        l.bind_tools(Arc::new(pi_runtime::extensions::ToolsView(dispatcher.tool_changes.clone()))).await;
    }
    dispatcher.tool_changes.apply(&mut dispatcher.registry);
    Ok((dispatcher, loaded))
}

/// Run the call; the finished call, or the exit status when it could not be made.
async fn call(a: &ToolArgs, cwd: PathBuf) -> Result<Finished, ExitCode> {
    let (dispatcher, loaded) = match dispatcher(&cwd, &a.extensions).await {
        Ok(d) => d,
        Err(stop) => return Err(stop.finish(&mut crate::setup::Report::stderr())),
    };
    if dispatcher.registry.get(&a.name).is_none() {
        return Err(invalid(&pi_tools::UnknownToolName(a.name.clone()).to_string()));
    }
    let parsed = args::parse_raw(&a.name, &a.raw).map_err(|e| invalid(&e.to_string()))?;
    let req = CallRequest { id: CALL_ID.into(), name: a.name.clone(), args: RawArgs::Json(parsed), parent: None };
    let finished = dispatcher.call(req, Caller::Model, &tool_context(a, cwd)).await;
    for l in &loaded.scripts {
        for e in l.session_shutdown("quit").await {
            eprintln!("{e}");
        }
    }
    Ok(finished)
}

/// Entry point of `pi tool …` (arguments after `tool`).
pub fn main(argv: &[String]) -> ExitCode {
    let a = match parse(argv) {
        Parsed::Call(a) => a,
        Parsed::Done(code) => return code,
    };
    let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let cwd = match &a.cwd {
        Some(d) => pi_tools::paths::resolve_lexical(&here, d),
        None => here,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("Could not start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    {
        // SIGINT, SIGTERM, SIGHUP: the running command's group goes too.
        let _guard = runtime.enter();
        crate::signals::install(pi_agent::AbortHandle::default());
    }
    let finished = match runtime.block_on(call(&a, cwd)) {
        Ok(f) => f,
        Err(code) => return code,
    };
    match finished.refusal {
        Some(Refusal::NotFound | Refusal::InvalidArguments) => invalid(&finished.result.text_content()),
        _ => {
            print_json(&serde_json::to_value(&finished.result).unwrap_or_default());
            if finished.result.is_error { ExitCode::from(1) } else { ExitCode::SUCCESS }
        }
    }
}
