//! Running the agent from the command line: choose the model, the tools and
//! the session, build the system prompt, then hand over to the mode (print,
//! JSON or RPC).

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use pi_agent::session::{self, SessionWriter};
use pi_agent::{Agent, AgentEvent, BuiltinTool, Dispatcher, PromptInputs, Registry, build_system_prompt};
use pi_config::tool_selection::{NoTools, Selection, SelectionInput};
use pi_config::trust::TrustInput;
use pi_config::{Settings, TrustStore, resolve_trust};
use pi_tools::{SessionEnv, ToolContext};

use crate::cli_args::{self, CliArgs, Diagnostic, Mode};
use crate::model_select::{self, Chosen};
use crate::reload::ReloadState;
use crate::{json_mode, print_mode, rpc_mode, text};

/// Print `Error: <msg>` and return exit status 1.
pub fn fail(msg: &str) -> ExitCode {
    eprintln!("Error: {msg}");
    ExitCode::from(1)
}

/// The tools of the session (§5.3): built-ins the selection registers,
/// activated in allowlist order when there is an allowlist.
pub fn build_registry(
    args: &CliArgs,
    default_tools: Option<Vec<String>>,
    ext_tools: Vec<Arc<dyn pi_agent::AgentTool>>,
) -> Registry {
    let input = SelectionInput {
        default_tools,
        tools: args.tools.as_ref().map(|(_, t)| t.clone()),
        exclude: args.exclude_tools.clone(),
        no_tools: if args.no_tools {
            Some(NoTools::All)
        } else if args.no_builtin_tools {
            Some(NoTools::Builtin)
        } else {
            None
        },
    };
    let selection = Selection::compute(&input);
    let mut registry = Registry::new();
    for tool in BuiltinTool::all() {
        if selection.registers(&tool.def().name, false) {
            registry.register(tool);
        }
    }
    // Extension tools: the first registration of a name wins across extensions
    // (already applied by the host); one with a built-in's name replaces it.
    let mut activate_on_registration = Vec::new();
    for tool in ext_tools {
        let def = tool.def().clone();
        if selection.registers(&def.name, false) {
            registry.register(tool);
            if def.activates_on_registration() {
                activate_on_registration.push(def.name);
            }
        }
    }
    let active: Vec<String> = match selection.allowlist() {
        Some(list) => {
            let mut names = Vec::new();
            for pattern in list {
                for t in registry.all() {
                    let n = &t.def().name;
                    if pi_config::tool_selection::name_matches(pattern, n) && !names.contains(n) {
                        names.push(n.clone());
                    }
                }
            }
            names
        }
        None => {
            let mut names = selection.initial_active.clone();
            for n in activate_on_registration {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
            names
        }
    };
    registry.reset_active(&active);
    registry
}

fn text_or_file(v: &str) -> String {
    let p = Path::new(v);
    if p.is_file() { std::fs::read_to_string(p).unwrap_or_else(|_| v.to_string()) } else { v.to_string() }
}

fn today() -> String {
    humantime::format_rfc3339(std::time::SystemTime::now()).to_string()[..10].to_string()
}

/// A configured model as the provider layer's model.
pub fn ai_model(e: &pi_config::ModelEntry) -> pi_ai::Model {
    pi_ai::Model {
        id: e.id.clone(),
        name: e.name.clone(),
        api: e.api.clone(),
        provider: e.provider.clone(),
        base_url: e.base_url.clone(),
        reasoning: e.reasoning,
        input: e.input.clone(),
        context_window: e.context_window,
        max_tokens: e.max_tokens,
        headers: e
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), pi_config::resolve_value(k, v).unwrap_or_default()))
            .collect(),
        compat: pi_ai::OpenAiCompletionsCompat {
            supports_store: e.compat.supports_store,
            supports_developer_role: e.compat.supports_developer_role,
            supports_usage_in_streaming: e.compat.supports_usage_in_streaming,
            max_tokens_field: e.compat.max_tokens_field.and_then(|f| pi_ai::MaxTokensField::from_name(f.as_str())),
        },
        ..Default::default()
    }
}

/// What the system prompt is built from, kept so `/reload` can rebuild it.
#[derive(Debug, Clone)]
pub struct PromptSource {
    /// The agent dir (its context file, `SYSTEM.md`, `APPEND_SYSTEM.md`).
    pub agent_dir: PathBuf,
    /// The session folder.
    pub cwd: PathBuf,
    /// Whether the project's `.pi/SYSTEM.md` and `APPEND_SYSTEM.md` may load.
    pub trusted: bool,
    /// `--no-context-files`.
    pub no_context_files: bool,
    /// `--system-prompt`.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt`.
    pub append_system_prompt: Vec<String>,
}

impl PromptSource {
    /// Read the files and build the prompt for the registry's declared tools.
    pub fn build(&self, registry: &Registry) -> String {
        let (context_files, warnings) = if self.no_context_files {
            (vec![], vec![])
        } else {
            pi_config::load_context_files(&self.agent_dir, &self.cwd)
        };
        for (p, e) in warnings {
            eprintln!("Warning: {}", text::context_file_unreadable(&p, &e));
        }
        let project_file = |name: &str| self.trusted.then(|| self.cwd.join(".pi").join(name)).filter(|p| p.is_file());
        let prompt_file =
            |name: &str| project_file(name).or_else(|| Some(self.agent_dir.join(name)).filter(|p| p.is_file()));
        let read = |p: PathBuf| std::fs::read_to_string(p).ok().map(|t| t.trim_start_matches('\u{feff}').to_string());
        let custom =
            self.system_prompt.as_deref().map(text_or_file).or_else(|| prompt_file("SYSTEM.md").and_then(read));
        let mut appended: Vec<String> = prompt_file("APPEND_SYSTEM.md").and_then(read).into_iter().collect();
        appended.extend(self.append_system_prompt.iter().map(|a| text_or_file(a)));
        let date = today();
        let declared = registry.declared();
        let defs: Vec<&pi_agent::ToolDef> = declared.iter().map(|t| t.def()).collect();
        build_system_prompt(
            &defs,
            &PromptInputs {
                custom: custom.as_deref(),
                append: appended.iter().map(String::as_str).collect(),
                context_files: &context_files,
                cwd: &self.cwd,
                date: &date,
            },
        )
    }
}

/// Shared session file, written as messages end.
pub type SharedSession = Arc<Mutex<Option<SessionWriter>>>;

/// `pi [options] [messages…]` (everything but `pi tool`).
pub fn main(args: CliArgs) -> ExitCode {
    if args.mode == Mode::Rpc && !args.files.is_empty() {
        return fail(text::RPC_NO_FILE_ARGS);
    }
    if args.name.as_deref().is_some_and(|n| n.trim().is_empty()) {
        return fail(text::NAME_REQUIRES_NON_EMPTY);
    }
    let agent_dir = pi_config::agent_dir();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));

    // Trust first (B2): the project's settings are read only once it is decided.
    let (mut settings, diagnostics) = Settings::load(&agent_dir, &cwd, false);
    for d in diagnostics {
        eprintln!("Warning: {d}");
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => return fail(&e.to_string()),
    };
    let ext_mode = match args.mode {
        Mode::Rpc => pi_ext::Mode::Rpc,
        Mode::Json => pi_ext::Mode::Json,
        Mode::Text => pi_ext::Mode::Print,
    };
    let interactive =
        args.mode == Mode::Text && !args.print && std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let mut trust_input = TrustInput::new(&cwd, TrustStore::new(&agent_dir));
    trust_input.cli_override = args.approve;
    trust_input.default_trust = settings.default_project_trust();
    // Extensions that load before trust: -e paths, the agent dir's, the user's setting.
    let host_opts = |trusted: bool| pi_ext::HostOptions {
        cwd: cwd.clone(),
        has_ui: interactive || args.mode == Mode::Rpc,
        mode: if interactive { pi_ext::Mode::Tui } else { ext_mode },
        ui: if args.mode == Mode::Rpc {
            Some(crate::rpc_ui::bridge() as Arc<dyn pi_ext::UiBridge>)
        } else if interactive {
            Some(Arc::new(crate::extensions::TerminalUi) as Arc<dyn pi_ext::UiBridge>)
        } else {
            None
        },
        project_trusted: trusted,
        limits: Default::default(),
    };
    let user_specs = crate::extensions::specs(&args.extensions, settings.extensions(), args.no_extensions);
    let mut pre_paths: Vec<PathBuf> =
        user_specs.iter().filter(|s| !s.starts_with("builtin:")).map(|s| pi_config::expand_tilde(s)).collect();
    if !args.no_extensions {
        pre_paths.extend(crate::extensions::discover(&agent_dir.join("extensions")));
    }
    let pre_loaded = match runtime.block_on(crate::extensions::load_scripts(&pre_paths, host_opts(false))) {
        Ok(l) => l.map(Arc::new),
        Err(e) => return fail(&e),
    };
    if let Some(loaded) = pre_loaded.clone() {
        let handle = runtime.handle().clone();
        trust_input.handlers.push(pi_config::trust::ProjectTrustHandler {
            extension: loaded.paths().join(", "),
            decide: Box::new(move |dir: &Path| {
                let out = handle.block_on(loaded.project_trust(dir));
                for w in out.warnings {
                    eprintln!("Warning: {w}");
                }
                Ok(match out.decision {
                    Some(d) => pi_config::trust::TrustAnswer { decision: Some(d.trusted), remember: d.remember },
                    None => pi_config::trust::TrustAnswer::default(),
                })
            }),
        });
    }
    if interactive {
        trust_input.prompt = Some(Box::new(|p: &pi_config::trust::TrustPrompt| {
            let labels: Vec<String> = p.options.iter().map(|o| o.label.clone()).collect();
            crate::interactive::choose(&p.title, &labels).map(|i| p.options[i].choice)
        }));
    }
    let trust = match resolve_trust(trust_input) {
        Ok(t) => t,
        Err(e) => return fail(&e.to_string()),
    };
    for w in &trust.warnings {
        eprintln!("Warning: {w}");
    }
    if trust.trusted {
        for d in settings.trust_project() {
            eprintln!("Warning: {d}");
        }
    } else if let Some(d) = settings.ignored_project_session_dir() {
        eprintln!("Warning: {d}");
    }

    // Project extensions load only once the project is trusted.
    let post_paths: Vec<PathBuf> = if trust.trusted && !args.no_extensions {
        let mut p = crate::extensions::discover(&cwd.join(".pi").join("extensions"));
        p.extend(
            settings
                .resources(pi_config::settings::ResourceKind::Extensions)
                .into_iter()
                .filter(|r| r.scope == pi_config::settings::Scope::Project)
                .filter(|r| !r.entry.starts_with("builtin:") && !r.entry.starts_with('-') && !r.entry.starts_with('!'))
                .map(|r| r.base_dir.join(r.entry.trim_start_matches('+'))),
        );
        p.retain(|x| !pre_paths.contains(x));
        p
    } else {
        vec![]
    };
    let post_loaded = match runtime.block_on(crate::extensions::load_scripts(&post_paths, host_opts(true))) {
        Ok(l) => l.map(Arc::new),
        Err(e) => return fail(&e),
    };
    let models = match pi_config::load_models(&agent_dir) {
        Ok(m) => m,
        Err(e) => return fail(&e.to_string()),
    };
    // Start-up diagnostics, reported together once everything they are about
    // is known (the reference's runtime diagnostics, in its order).
    let mut diagnostics = Vec::new();
    // Unknown flags are the extensions' flags, or errors; extensions get
    // the values of theirs.
    let loaded_sets: Vec<&Arc<pi_ext::LoadedExtensions>> = [&pre_loaded, &post_loaded].into_iter().flatten().collect();
    let registered_flags: Vec<(String, bool)> = loaded_sets.iter().flat_map(|l| l.flags()).collect();
    diagnostics.extend(cli_args::unknown_flag_diagnostics(&args.unknown, &registered_flags));
    let flag_values = cli_args::extension_flag_values(&args.unknown, &registered_flags);
    for l in &loaded_sets {
        l.set_flag_values(&flag_values);
    }
    if let (Some(p), None) = (&args.provider, &args.model) {
        diagnostics.push(Diagnostic::Error(text::provider_requires_model(p)));
    }
    let from_cli = args.model.as_deref().and_then(|pattern| {
        match model_select::resolve(&models, pattern, args.provider.as_deref(), args.thinking.as_deref()) {
            Ok(r) => {
                diagnostics.extend(r.warning.map(Diagnostic::Warning));
                Some((r.entry, r.thinking))
            }
            Err(e) => {
                diagnostics.push(Diagnostic::Error(e));
                None
            }
        }
    });
    if args.api_key.is_some() && from_cli.is_none() {
        diagnostics.push(Diagnostic::Error(text::API_KEY_REQUIRES_MODEL.to_string()));
    }
    let has_errors = cli_args::report(&diagnostics);
    if let Some(search) = &args.list_models {
        let table = model_select::list(&models, search.as_deref());
        // Outside the plain `pi --list-models`, standard output belongs to the mode.
        let ttys = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
        if args.print || args.mode != Mode::Text || (args.mode_given && !ttys) {
            eprint!("{table}");
        } else {
            print!("{table}");
        }
        return ExitCode::SUCCESS;
    }
    if has_errors {
        return ExitCode::from(1);
    }
    // The first message: piped standard input, then the `@file` texts, then
    // the first message argument, joined without separators.
    let mut first_images = Vec::new();
    let messages = if args.mode == Mode::Rpc {
        vec![]
    } else {
        let piped = if std::io::stdin().is_terminal() {
            None
        } else {
            let mut buf = Vec::new();
            let _ = std::io::stdin().read_to_end(&mut buf);
            let text = String::from_utf8_lossy(&buf);
            let text = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
            (!text.is_empty()).then(|| text.to_string())
        };
        let files = match attach_files(&cwd, &args.files) {
            Ok((t, images)) => {
                first_images = images;
                t
            }
            Err(e) => return fail(&e),
        };
        let mut rest = args.messages.clone().into_iter();
        let initial: String = [piped, Some(files), rest.next()].into_iter().flatten().collect();
        // An empty first message is not sent; the others always are.
        Some(initial).filter(|m| !m.is_empty()).into_iter().chain(rest).collect::<Vec<_>>()
    };
    let chosen = match from_cli {
        Some(found) => found,
        None => {
            let preferred = settings.default_model().and_then(|id| {
                let pattern = match settings.default_provider() {
                    Some(p) => format!("{p}/{id}"),
                    None => id.to_string(),
                };
                model_select::find(&models, &pattern, None)
            });
            match preferred
                .map(|(m, t)| (m.clone(), t))
                .or_else(|| model_select::available(&models).first().map(|m| ((*m).clone(), None)))
            {
                Some(found) => found,
                None => return fail(text::NO_MODEL),
            }
        }
    };
    let api_key = match model_select::api_key_for(&chosen.0, args.api_key.as_deref()) {
        Ok(Some(k)) => Some(k),
        Ok(None) => return fail(text::NO_API_KEY),
        Err(e) => return fail(&e),
    };
    let requested_thinking = args
        .thinking
        .clone()
        .or(chosen.1)
        .or_else(|| settings.default_thinking_level().map(String::from))
        .unwrap_or_else(|| text::DEFAULT_THINKING_LEVEL.to_string());
    let thinking = Some(model_select::clamp_thinking_level(&chosen.0, &requested_thinking).to_string());
    let chosen = Chosen { entry: chosen.0, api_key, thinking };

    let mode = if args.mode == Mode::Rpc {
        Mode::Rpc
    } else if args.mode == Mode::Json {
        Mode::Json
    } else {
        Mode::Text
    };

    // Session file.
    let sessions_root = args
        .session_dir
        .as_deref()
        .map(pi_config::expand_tilde)
        .or_else(|| {
            std::env::var("PI_CODING_AGENT_SESSION_DIR")
                .ok()
                .filter(|s| !s.is_empty())
                .map(|s| pi_config::expand_tilde(&s))
        })
        .map(|root| (root, true))
        .unwrap_or_else(|| (agent_dir.join("sessions"), false));
    let session_dir =
        if sessions_root.1 { sessions_root.0.clone() } else { session::session_dir(&sessions_root.0, &cwd) };
    let mut history = Vec::new();
    let writer = if args.no_session {
        None
    } else if args.continue_session || args.session.is_some() {
        let path = match &args.session {
            Some(p) => Ok(PathBuf::from(p)),
            None => session::most_recent(&session_dir),
        };
        match path.and_then(|p| session::load(&p)) {
            Ok(loaded) => {
                for (line, err) in &loaded.bad_lines {
                    eprintln!("Warning: {}", text::session_bad_line(&loaded.path, *line, err));
                }
                history = loaded.messages.clone();
                match SessionWriter::append_to(&loaded) {
                    Ok(w) => Some(w),
                    Err(e) => return fail(&e.to_string()),
                }
            }
            Err(session::SessionError::NoneFound(_)) if args.session.is_none() => {
                match SessionWriter::create(&session_dir, &cwd, args.session_id.clone()) {
                    Ok(w) => Some(w),
                    Err(e) => return fail(&e.to_string()),
                }
            }
            Err(e) => return fail(&e.to_string()),
        }
    } else {
        match SessionWriter::create(&session_dir, &cwd, args.session_id.clone()) {
            Ok(w) => Some(w),
            Err(e) => return fail(&e.to_string()),
        }
    };
    let session_id = writer.as_ref().map(|w| w.id.clone()).unwrap_or_else(uuid_like);
    let session_file = writer.as_ref().map(|w| w.path().to_string_lossy().into_owned());
    let session: SharedSession = Arc::new(Mutex::new(writer));

    let ext_tools: Vec<Arc<dyn pi_agent::AgentTool>> =
        [&pre_loaded, &post_loaded].into_iter().flatten().flat_map(|l| l.tools.iter().cloned()).collect();

    // Tools and prompt.
    let registry = build_registry(&args, settings.resolved_default_tools(), ext_tools);
    let prompt_source = PromptSource {
        agent_dir: agent_dir.clone(),
        cwd: cwd.clone(),
        trusted: trust.trusted,
        no_context_files: args.no_context_files,
        system_prompt: args.system_prompt.clone(),
        append_system_prompt: args.append_system_prompt.clone(),
    };
    let system_prompt = prompt_source.build(&registry);
    let cli_tools = args.tools.as_ref().map(|(_, t)| t.clone());
    let reload_state = ReloadState {
        prompt: prompt_source.clone(),
        agent_dir: agent_dir.clone(),
        uses_default_tools: (cli_tools.is_none()
            || cli_tools.as_ref().is_some_and(|t| t.iter().any(|e| pi_config::tool_selection::is_modifier(e))))
            && !args.no_tools
            && !args.no_builtin_tools,
        cli_tools,
        last_default: settings
            .resolved_default_tools()
            .unwrap_or_else(|| pi_config::tool_selection::DEFAULT_TOOL_NAMES.iter().map(|s| s.to_string()).collect()),
    };

    let mut tool_ctx = ToolContext::new(cwd.clone());
    tool_ctx.session = SessionEnv {
        session_id: Some(session_id.clone()),
        session_file,
        provider: Some(chosen.entry.provider.clone()),
        model: Some(chosen.entry.id.clone()),
        reasoning_level: chosen.thinking.clone(),
        agent_dir: Some(agent_dir.clone()),
        shell_path: settings.shell_path().map(|p| p.to_string_lossy().into_owned()),
        shell_command_prefix: settings.shell_command_prefix().map(String::from),
        offline: args.offline,
    };

    let model = ai_model(&chosen.entry);
    let header = serde_json::json!({"type": "session", "version": session::SESSION_VERSION, "id": session_id, "timestamp": session::iso_now(), "cwd": cwd.to_string_lossy()});
    let out_sink: Arc<dyn Fn(&AgentEvent) + Send + Sync> = match mode {
        Mode::Json => json_mode::sink(),
        Mode::Rpc => rpc_mode::sink(),
        // Print mode: only failing extension handlers are reported, on stderr.
        Mode::Text => Arc::new(|ev: &AgentEvent| {
            if let AgentEvent::ExtensionError { extension_path, error, .. } = ev {
                eprintln!("{}", pi_ext::text::extension_error(extension_path, error));
            }
        }),
    };
    let session_for_sink = session.clone();
    let sink: pi_agent::EventSink = Arc::new(move |ev: &AgentEvent| {
        if let AgentEvent::MessageEnd { message } = ev
            && let Ok(mut guard) = session_for_sink.lock()
            && let Some(w) = guard.as_mut()
            && let Err(e) = w.append_message(message)
        {
            eprintln!("Warning: {e}");
            *guard = None;
        }
        out_sink(ev);
    });
    let ext_specs = crate::extensions::specs(&args.extensions, settings.extensions(), args.no_extensions);
    let approver: Option<Arc<dyn pi_policies::Approver>> = if interactive {
        Some(Arc::new(crate::extensions::TerminalApprover))
    } else if args.mode == Mode::Rpc {
        Some(Arc::new(crate::rpc_ui::RpcApprover(crate::rpc_ui::bridge())))
    } else {
        None
    };
    let mut interceptors = match crate::extensions::load_builtins(&ext_specs, &cwd, &registry, approver) {
        Ok(i) => i,
        Err(e) => return fail(&e),
    };
    let mut dispatcher = Dispatcher::new(registry);
    for loaded in [&pre_loaded, &post_loaded].into_iter().flatten() {
        interceptors.extend(loaded.interceptors.iter().cloned());
        for errors in [runtime.block_on(loaded.session_start("startup"))] {
            for e in errors {
                eprintln!("{e}");
            }
        }
    }
    dispatcher.interceptors = interceptors;
    let mut agent = Agent::new(model, system_prompt, dispatcher, tool_ctx, sink);
    let prompt_for_changes = prompt_source.clone();
    agent.prompt_builder = Some(Arc::new(move |registry: &Registry| prompt_for_changes.build(registry)));
    for loaded in [&pre_loaded, &post_loaded].into_iter().flatten() {
        loaded.bind_tools(Arc::new(crate::extensions::ToolsView(agent.dispatcher.tool_changes.clone())));
    }
    agent.api_key = chosen.api_key.clone();
    agent.thinking = chosen.thinking.clone().filter(|t| t != "off");
    agent.messages = history;
    let retry = settings.retry();
    agent.retry = pi_agent::RetrySettings {
        enabled: retry.enabled,
        max_retries: retry.max_retries,
        base_delay_ms: retry.base_delay_ms,
        max_delay_ms: retry.max_delay_ms,
    };

    {
        let _guard = runtime.enter();
        crate::signals::install(agent.abort_handle());
    }
    let code = match mode {
        Mode::Rpc => runtime.block_on(rpc_mode::run(agent, header, models, reload_state)),
        Mode::Json | Mode::Text => {
            if mode == Mode::Json {
                json_mode::print_line(&header);
            }
            if interactive {
                if let Some(notice) = trust.untrusted_notice() {
                    eprintln!("{notice}");
                }
                runtime.block_on(crate::interactive::run(agent, messages, reload_state))
            } else {
                runtime.block_on(print_mode::run(agent, messages, first_images, mode == Mode::Text))
            }
        }
    };
    for loaded in [&pre_loaded, &post_loaded].into_iter().flatten() {
        for e in runtime.block_on(loaded.session_shutdown("quit")) {
            eprintln!("{e}");
        }
    }
    code
}

fn uuid_like() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// The text and images of `@file` arguments: each file as `<file name="ABS">`
/// with its text (a UTF-8 BOM removed), empty files skipped; an image (as
/// `read` recognises one) is attached after the text, its tag holding only
/// the processing notes (or why it was left out); a missing file or one that
/// cannot be read is an error.
fn attach_files(cwd: &Path, files: &[String]) -> Result<(String, Vec<pi_ai::ContentBlock>), String> {
    let mut out = String::new();
    let mut images = Vec::new();
    for f in files {
        let path = pi_tools::paths::resolve_read_path(cwd, f).map_err(|e| text::attach_failed(Path::new(f), e))?;
        let meta = std::fs::metadata(&path).map_err(|_| text::file_not_found(&path))?;
        if meta.len() == 0 {
            continue;
        }
        let content = std::fs::read(&path).map_err(|e| text::attach_failed(&path, &e.to_string()))?;
        if let Some(image) = pi_tools::attachment::prepare_image(content.clone()) {
            let note = match image {
                Ok(p) => {
                    images.push(pi_ai::ContentBlock::image(p.data, p.mime_type));
                    p.hints.join("\n")
                }
                Err(note) => note,
            };
            out.push_str(&format!("<file name=\"{}\">{note}</file>\n", path.display()));
            continue;
        }
        let content = String::from_utf8_lossy(&content);
        let content = content.strip_prefix('\u{feff}').unwrap_or(&content);
        out.push_str(&format!("<file name=\"{}\">\n{content}\n</file>\n", path.display()));
    }
    Ok((out, images))
}
