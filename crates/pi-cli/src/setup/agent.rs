//! The agent stage: the registry, the system prompt, the tools' context, the
//! event sink (the mode's output plus the session file), the handlers
//! (shipped policies, then script extensions, in load order) and the agent.

use std::sync::{Arc, Mutex};

use pi_agent::{Agent, AgentBuilder, AgentEvent, AgentTool, Dispatcher, EventSink, Interceptor, Registry};
use pi_config::Settings;
use pi_tools::{SessionEnv, ToolContext};

use super::Env;
use super::report::{Report, Stop};
use super::session::Opened;
use crate::cli_args::{CliArgs, Mode};
use pi_runtime::ext_session::{ExtSession, SessionParts};
use pi_runtime::model_select::Chosen;
use pi_runtime::prompt_source::PromptSource;
use pi_runtime::reload::ReloadState;

/// The extensions of the run, loaded.
#[derive(Default, Clone)]
pub(crate) struct Loaded {
    /// Script extensions, in load order (before trust, then the project's).
    pub scripts: Vec<Arc<pi_ext::LoadedExtensions>>,
    /// Built-in extensions by name.
    pub builtins: Vec<String>,
    /// The script groups as loaded (paths and host options), to load them again.
    pub groups: Vec<(Vec<std::path::PathBuf>, pi_ext::HostOptions)>,
    /// The extensions' flags as the command line gave them.
    pub flag_values: serde_json::Map<String, serde_json::Value>,
}

impl Loaded {
    /// Every script extension's tools, in load order.
    pub(crate) fn tools(&self) -> Vec<Arc<dyn AgentTool>> {
        self.scripts.iter().flat_map(|l| l.tools.iter().cloned()).collect()
    }
}

/// Everything a mode needs.
pub(crate) struct Prepared {
    /// The agent, its history loaded.
    pub agent: Agent,
    /// What `/reload` rebuilds from.
    pub reload: ReloadState,
    /// The session header (JSON and RPC modes print or report it).
    pub header: serde_json::Value,
    /// The extensions' side of the session (commands, `input`, what they send).
    pub ext: Arc<ExtSession>,
}

/// The event sink of `mode` (the agent records messages in the session itself).
fn sink(mode: Mode, front: &super::Front) -> EventSink {
    match (mode, front) {
        (Mode::Json, _) => crate::json_mode::sink(),
        (_, super::Front::Rpc(link)) => link.sink(),
        (_, super::Front::Tui(link)) => link.event_sink(),
        // Print mode: only failing extension handlers are reported, on stderr.
        _ => Arc::new(|ev: &AgentEvent| {
            if let AgentEvent::ExtensionError { extension_path, error, .. } = ev {
                eprintln!("{}", pi_ext::text::extension_error(extension_path, error));
            }
        }),
    }
}

/// Record the model and thinking level in the session when they differ from
/// what its branch last chose (a new session records both, as the reference).
fn record_choices(
    session: &mut pi_agent::session::Session,
    chosen: &Chosen,
    opened_model: Option<&(String, String)>,
    opened_thinking: Option<&str>,
) {
    let model = (chosen.entry.provider.clone(), chosen.entry.id.clone());
    if opened_model != Some(&model) {
        let _ = session.append("model_change", serde_json::json!({"provider": model.0, "modelId": model.1}));
    }
    let level = chosen.thinking.clone().unwrap_or_else(|| "off".into());
    if opened_thinking != Some(level.as_str()) {
        let _ = session.append("thinking_level_change", serde_json::json!({"thinkingLevel": level}));
    }
}

/// The tools' view of the session (environment variables of commands, etc.).
fn tool_context(env: &Env, args: &CliArgs, settings: &Settings, chosen: &Chosen, opened: &Opened) -> ToolContext {
    let s = &opened.session;
    let mut ctx = ToolContext::new(env.cwd.clone());
    ctx.session = SessionEnv {
        session_id: Some(s.id().to_string()),
        session_file: s.path().map(|p| p.to_string_lossy().into_owned()),
        provider: Some(chosen.entry.provider.clone()),
        model: Some(chosen.entry.id.clone()),
        reasoning_level: chosen.thinking.clone(),
        agent_dir: Some(env.agent_dir.clone()),
        shell_path: settings.shell_path().map(|p| p.to_string_lossy().into_owned()),
        shell_command_prefix: settings.shell_command_prefix().map(String::from),
        offline: args.offline,
        env_overrides: Vec::new(),
    };
    ctx.change_guard = checkpoints(env, settings);
    ctx
}

/// Checkpoints before the turns that may change files (B11), unless the
/// settings switch them off (`checkpoints.enabled`; a project's settings
/// count only when it is trusted). Failures are told once: as a notice in
/// the terminal UI, on stderr otherwise.
fn checkpoints(env: &Env, settings: &Settings) -> Option<Arc<dyn pi_tools::ChangeGuard>> {
    if settings.get_bool(&["checkpoints", "enabled"]) == Some(false) {
        return None;
    }
    let notify: pi_checkpoints::Notify = match &env.front {
        super::Front::Tui(link) => {
            let link = link.clone();
            Arc::new(move |message: String| link.warn(message))
        }
        _ => Arc::new(|message: String| eprintln!("Warning: {message}")),
    };
    let number = |key: &str, default: u64| {
        settings.get(&["checkpoints", key]).and_then(serde_json::Value::as_u64).unwrap_or(default)
    };
    let (keep_days, max_store_mb) = (
        number("keepDays", pi_checkpoints::text::DEFAULT_KEEP_DAYS),
        number("maxStoreMb", pi_checkpoints::text::DEFAULT_MAX_STORE_MB),
    );
    let max_mb = number("maxSizeMb", pi_checkpoints::text::DEFAULT_MAX_FILE_MB);
    let checkpoints = pi_checkpoints::Checkpoints::new(env.agent_dir.clone(), max_mb, notify);
    Some(Arc::new(checkpoints.pruning(keep_days, max_store_mb)))
}

/// The handlers of the run: the shipped policies named by the plan, then
/// every script extension's.
fn interceptors(env: &Env, loaded: &Loaded) -> Result<Vec<Arc<dyn Interceptor>>, Stop> {
    let approver: Option<Arc<dyn pi_policies::Approver>> = match &env.front {
        super::Front::Tui(link) => Some(Arc::new(crate::tui::TerminalApprover(link.clone()))),
        super::Front::Rpc(link) => Some(Arc::new(crate::rpc::ui::RpcApprover(link.ui()))),
        super::Front::Plain => None,
    };
    let mut out = pi_runtime::extensions::load_builtins(&loaded.builtins, &env.cwd, approver)?;
    out.extend(loaded.scripts.iter().flat_map(|l| l.interceptors.iter().cloned()));
    Ok(out)
}

/// What `/reload` needs to remember.
fn reload_state(
    args: &CliArgs,
    settings: &Settings,
    prompt: PromptSource,
    env: &Env,
    codemode: &pi_codemode::Settings,
    resources: Arc<pi_config::resources::Resources>,
    mcp: Option<Arc<pi_mcp::McpManager>>,
) -> ReloadState {
    use pi_config::tool_selection::{DEFAULT_TOOL_NAMES, is_modifier};
    let cli_tools = args.tools.as_ref().map(|(_, t)| t.clone());
    ReloadState {
        prompt,
        agent_dir: env.agent_dir.clone(),
        uses_default_tools: cli_tools.as_ref().is_none_or(|t| t.iter().any(|e| is_modifier(e)))
            && !args.no_tools
            && !args.no_builtin_tools,
        cli_tools,
        last_default: settings
            .resolved_default_tools()
            .unwrap_or_else(|| DEFAULT_TOOL_NAMES.iter().map(|s| s.to_string()).collect()),
        codemode: codemode.clone(),
        resource_flags: args.resource_flags(),
        resources,
        mcp_on: mcp.is_some(),
        llama_on: false,
        mcp,
        approve: args.approve,
        extensions: None,
    }
}

/// The inputs of [`build`].
pub(crate) struct AgentInputs<'a> {
    pub env: &'a Env,
    pub args: &'a CliArgs,
    pub mode: Mode,
    pub settings: &'a Settings,
    pub trusted: bool,
    pub chosen: Chosen,
    pub opened: Opened,
    pub loaded: &'a Loaded,
    pub models: &'a Arc<[pi_config::ModelEntry]>,
    pub resources: Arc<pi_config::resources::Resources>,
    /// The folder new sessions go to.
    pub folder: std::path::PathBuf,
    /// The packages' extension files this run loads.
    pub packages: Vec<pi_config::packages::PackageResource>,
}

/// Build the agent; `session_start` handlers run once it exists, with the
/// session and its tools bound (their failures are reported); tool-set
/// changes they ask for apply before the first request.
pub(crate) async fn build(i: AgentInputs<'_>, report: &mut Report) -> Result<Prepared, Stop> {
    let AgentInputs {
        env,
        args,
        mode,
        settings,
        trusted,
        chosen,
        mut opened,
        loaded,
        models,
        resources,
        folder,
        packages,
    } = i;
    if let Some(name) = args.name.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
        // `--name` names the session as it opens (as the reference).
        let _ = opened.session.append("session_info", serde_json::json!({"name": name}));
    }
    let mut tool_ctx = tool_context(env, args, settings, &chosen, &opened);
    let header = opened.session.header().clone();
    let Opened { mut session, history, context } = opened;
    record_choices(&mut session, &chosen, context.model.as_ref(), context.thinking_level.as_deref());
    let session: pi_agent::SharedSession = Arc::new(Mutex::new(session));
    let input = super::registry::selection_input(args, settings.resolved_default_tools());
    let codemode = pi_runtime::codemode::options(settings, session.clone(), models);
    let builtin_tools = pi_runtime::extensions::builtin_tools(&loaded.builtins, &codemode);
    let mut registry: Registry = super::registry::build(&input, &loaded.tools(), &builtin_tools);
    // A continued session declares the tools its recorded system messages
    // left declared (tool_search loads them).
    let resumed = pi_agent::replay_tool_changes(&history, registry.active());
    registry.set_active(&resumed);
    let mcp = super::mcp::start(env, args, trusted, loaded, &input, &mut registry, report);
    registry.refresh_loadout().await;
    let (sandbox, warnings) = crate::sandbox::from_settings(settings, args.sandbox, &env.cwd, &env.agent_dir);
    for w in warnings.iter().map(String::as_str).chain(crate::sandbox::unavailable(&sandbox).as_deref()) {
        report.warn(w);
    }
    let prompt = PromptSource {
        agent_dir: env.agent_dir.clone(),
        cwd: env.cwd.clone(),
        trusted,
        no_context_files: args.no_context_files,
        system_prompt: args.system_prompt.clone(),
        append_system_prompt: args.append_system_prompt.clone(),
        sandbox: sandbox.prompt_text(&env.cwd),
        skills: resources.skills.skills.clone(),
        mcp_servers: mcp.as_ref().and_then(|m| m.prompt_section()),
    };
    let system_prompt = prompt.build(&registry);
    let mut reload =
        reload_state(args, settings, prompt.clone(), env, &codemode.settings, resources.clone(), mcp.clone());
    reload.mcp_on = super::mcp::enabled(args, loaded);
    reload.llama_on = pi_runtime::llama::enabled(&loaded.builtins);
    tool_ctx.sandbox = Arc::new(sandbox);
    let mut dispatcher = Dispatcher::new(registry);
    dispatcher.interceptors = interceptors(env, loaded)?;
    if let Some(m) = &mcp {
        dispatcher.interceptors.push(Arc::new(pi_mcp::Gate(m.clone())));
    }
    let model = pi_runtime::model_select::ai_model(&chosen.entry);
    let (chosen_provider, chosen_model) = (chosen.entry.provider.clone(), chosen.entry.id.clone());
    let events = sink(mode, &env.front);
    let level = chosen.thinking.clone().unwrap_or_else(|| "off".into());
    let mut builder =
        Agent::builder(model.clone(), system_prompt.text(), dispatcher, tool_ctx, events.clone()).session(session);
    builder.agent().publish_system_prompt();
    let agent = builder.agent();
    let ext = ExtSession::new(SessionParts {
        session: agent.session().clone(),
        sink: events.clone(),
        inbox: agent.inbox().clone(),
        steering: agent.steering().clone(),
        follow_ups: agent.follow_ups().clone(),
        abort: agent.abort_handle(),
        models: models.clone(),
        current: (model, level),
        cwd: env.cwd.clone(),
        agent_dir: env.agent_dir.clone(),
        session_dir: (!args.no_session).then(|| folder.clone()),
        live: agent.live().clone(),
        prompt_view: agent.prompt_view().clone(),
        scope: args.models.clone().unwrap_or_default(),
        packages,
    });
    ext.set_resource_commands(reload.commands());
    // agent_settled handlers find pi idle: what they send runs after them.
    let busy = ext.busy.clone();
    builder = builder.on_settled(Arc::new(move || busy.set(false)));
    ext.bind(&loaded.scripts);
    start_extensions(builder.agent(), loaded, mode, &events, report).await;
    let mut base_tools = pi_agent::BuiltinTool::all();
    base_tools.extend(builtin_tools.iter().cloned());
    reload.extensions = Some(Arc::new(pi_runtime::ext_reload::ExtPlan {
        groups: loaded.groups.clone(),
        trusted,
        flag_values: loaded.flag_values.clone(),
        base_tools,
        tool_changes: builder.agent().dispatcher().tool_changes.clone(),
        ext: ext.clone(),
    }));
    if let Some(plan) = &reload.extensions {
        ext.set_plan(plan);
    }
    // Skills and templates the extensions add (`resources_discover`) load as `--skill` paths do.
    let (found, errors) = pi_runtime::extensions::discover_resources(&loaded.scripts, &env.cwd, "startup").await;
    for e in errors {
        report.line(e);
    }
    let (resources, prompt, system_prompt) = if found == Default::default() {
        (resources, prompt, system_prompt)
    } else {
        reload.resource_flags.discovered = found;
        let fresh = reload.resource_flags.load(&env.agent_dir, &env.cwd, settings, trusted);
        for d in fresh.skills.diagnostics.iter().chain(&fresh.templates.diagnostics) {
            report.warn(d.line());
        }
        let fresh = Arc::new(fresh);
        let mut prompt = prompt;
        prompt.skills = fresh.skills.skills.clone();
        reload.prompt.skills = prompt.skills.clone();
        reload.resources = fresh.clone();
        ext.set_resource_commands(reload.commands());
        let system_prompt = prompt.build(&builder.agent().dispatcher().registry);
        builder.agent_mut().set_system_prompt(system_prompt.text());
        (fresh, prompt, system_prompt)
    };
    builder.agent().publish_system_prompt();
    builder.agent_mut().set_system_sections(Some(system_prompt));
    builder.agent_mut().set_expand_input(Some(pi_runtime::expand::expander(resources)));
    builder = builder
        .on_session_error(Arc::new(|e: &pi_agent::session::SessionError| eprintln!("Warning: {e}")))
        .prompt_builder(Arc::new(move |registry: &Registry| prompt.build(registry)));
    if let Some(m) = &mcp {
        // The first prompt waits (a while) only for servers with direct
        // tools; the tools listed meanwhile then come in the servers' order
        // (as the reference's), not in the order the servers answered.
        m.wait_direct().await;
        super::mcp::bind(m, &builder.agent().dispatcher().tool_changes);
    }
    builder.agent_mut().set_api_key(chosen.api_key);
    builder.agent_mut().set_thinking(chosen.thinking.filter(|t| t != "off"));
    let builder = builder
        .credentials(pi_runtime::auth::credential_source(models.clone(), args.api_key.clone()))
        .messages(history);
    let agent = with_compaction_and_retry(builder, settings, &chosen_provider, &chosen_model).build();
    Ok(Prepared { agent, reload, header, ext })
}

/// Bind the session's tools to the extensions, then run their
/// `session_start` handlers (`pi.getAllTools()` works there, and they may
/// change the tools); failures are reported (RPC clients get them as
/// `extension_error` records, as the reference sends them).
async fn start_extensions(agent: &Agent, loaded: &Loaded, mode: Mode, events: &EventSink, report: &mut Report) {
    for l in &loaded.scripts {
        l.bind_tools(Arc::new(pi_runtime::extensions::ToolsView(agent.dispatcher().tool_changes.clone()))).await;
    }
    for l in &loaded.scripts {
        for e in l.session_start("startup").await {
            if mode == Mode::Rpc {
                events(&AgentEvent::ExtensionError { extension_path: e.path, event: e.event, error: e.error });
            } else {
                report.line(e.to_string());
            }
        }
    }
}

/// The compaction and retry settings of the chosen model.
fn with_compaction_and_retry(builder: AgentBuilder, settings: &Settings, provider: &str, model: &str) -> AgentBuilder {
    let (enabled, reserve_tokens, keep_recent_tokens) = settings.compaction(provider, model);
    builder.agent().live().set_auto_compaction(enabled);
    let retry = settings.retry();
    // The live switch decides (RPC set_auto_retry may turn it on or off).
    builder.agent().live().set_auto_retry(retry.enabled);
    builder.compaction(pi_agent::compaction::CompactionSettings { enabled, reserve_tokens, keep_recent_tokens }).retry(
        pi_agent::RetrySettings {
            enabled: true,
            max_retries: retry.max_retries,
            base_delay_ms: retry.base_delay_ms,
            max_delay_ms: retry.max_delay_ms,
            max_retry_delay_ms: settings.provider_max_retry_delay_ms(),
        },
    )
}
