//! Start-up of `pi [options] [messages…]`, in named stages. Each stage takes
//! what the earlier ones decided and returns a typed value or a [`Stop`]:
//!
//! arguments → settings → extensions before trust → trust → the project's
//! extensions → skills and prompt templates → models and start-up
//! diagnostics → input → model → session → registry and agent → mode.

mod agent;
mod input;
pub(crate) mod mcp;
mod model;
pub(crate) mod plan;
mod registry;
mod replaced;
mod report;
mod resources;
mod resume;
mod session;
mod session_cwd;
mod trust;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use pi_config::Settings;

use crate::cli_args::{self, CliArgs, Diagnostic, Mode};
use crate::text;

pub(crate) use agent::{Loaded, Prepared};
pub(crate) use input::Input;
pub(crate) use report::{Report, Stop};
pub(crate) use session::explicit_folder as explicit_session_folder;

/// The facts of the process a run starts in.
#[derive(Debug, Clone)]
pub(crate) struct Env {
    /// The agent dir (`PI_CODING_AGENT_DIR` or `~/.pi/agent`).
    pub agent_dir: PathBuf,
    /// The working folder.
    pub cwd: PathBuf,
    /// Text mode without `-p`, on a terminal: prompts and dialogs are possible.
    pub interactive: bool,
    /// The front end's shared state the run is built with.
    pub front: Front,
    /// The theme the run's extensions style text with (one handle for
    /// every load of them, set by the front end).
    pub ext_theme: pi_ext::ExtTheme,
    /// The run's extensions hear one another's dialogs through this (one
    /// handle for every load of them).
    pub prompt_spans: pi_ext::PromptSpans,
}

/// The front end's shared state a run is built with: what the agent's
/// event sink, the extensions' and the policies' dialogs and the mode itself
/// share (made once per run, here, instead of living in the process).
#[derive(Debug, Clone, Default)]
pub(crate) enum Front {
    /// Print and JSON modes: no dialogs.
    #[default]
    Plain,
    /// The terminal UI.
    Tui(crate::tui::Link),
    /// RPC mode.
    Rpc(crate::rpc::Link),
}

impl Front {
    fn of(mode: Mode, interactive: bool) -> Front {
        match mode {
            Mode::Rpc => Front::Rpc(crate::rpc::Link::default()),
            Mode::Text if interactive => Front::Tui(crate::tui::Link::default()),
            _ => Front::Plain,
        }
    }

    /// The look of dialogs drawn in place (the terminal UI's early look,
    /// else the system theme and default keys).
    pub(crate) fn early_look(&self) -> (pi_tui::theme::Theme, pi_tui::keys::Keybindings) {
        match self {
            Front::Tui(link) => link.early(),
            _ => crate::tui::look::default_look(),
        }
    }
}

impl Env {
    fn current(args: &CliArgs) -> Env {
        let interactive =
            args.mode == Mode::Text && !args.print && std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
        Env {
            agent_dir: pi_config::agent_dir(),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
            interactive,
            front: Front::of(args.mode, interactive),
            ext_theme: Default::default(),
            prompt_spans: Default::default(),
        }
    }

    /// How extensions are told about the run.
    fn host_options(&self, mode: Mode, trusted: bool) -> pi_ext::HostOptions {
        let ui: Option<Arc<dyn pi_ext::UiBridge>> = match &self.front {
            Front::Rpc(link) => Some(link.ui()),
            Front::Tui(link) => Some(Arc::new(crate::tui::TerminalUi(link.clone()))),
            Front::Plain => None,
        };
        pi_ext::HostOptions {
            cwd: self.cwd.clone(),
            has_ui: self.interactive || mode == Mode::Rpc,
            mode: match mode {
                _ if self.interactive => pi_ext::Mode::Tui,
                Mode::Rpc | Mode::Acp => pi_ext::Mode::Rpc,
                Mode::Json => pi_ext::Mode::Json,
                Mode::Text => pi_ext::Mode::Print,
            },
            ui,
            project_trusted: trusted,
            limits: Default::default(),
            theme: self.ext_theme.clone(),
            mcp_check: Some(mcp::registration_check()),
            prompt_spans: self.prompt_spans.clone(),
        }
    }
}

/// Stage: the arguments' own consistency.
fn check_arguments(args: &CliArgs) -> Result<(), Stop> {
    if args.mode == Mode::Rpc && !args.files.is_empty() {
        return Err(Stop::Error(text::RPC_NO_FILE_ARGS.into()));
    }
    if args.name.as_deref().is_some_and(|n| n.trim().is_empty()) {
        return Err(Stop::Error(text::NAME_REQUIRES_NON_EMPTY.into()));
    }
    // The reference's session-flag conflicts.
    let given = |pairs: &[(bool, &'static str)]| pairs.iter().filter(|p| p.0).map(|p| p.1).collect::<Vec<_>>();
    let (session, cont, resume) = (args.session.is_some(), args.continue_session, args.resume);
    if args.fork.is_some() {
        let with = given(&[
            (session, "--session"),
            (cont, "--continue"),
            (resume, "--resume"),
            (args.no_session, "--no-session"),
        ]);
        if !with.is_empty() {
            return Err(Stop::Error(text::cannot_combine("--fork", &with)));
        }
    }
    if args.session_id.is_some() {
        let with = given(&[(session, "--session"), (cont, "--continue"), (resume, "--resume")]);
        if !with.is_empty() {
            return Err(Stop::Error(text::cannot_combine("--session-id", &with)));
        }
    }
    Ok(())
}

/// Stage: the user's settings (the project's are read once it is trusted).
/// Problems are warnings; a broken file counts as empty.
fn load_settings(env: &Env, report: &mut Report) -> Settings {
    let (settings, diagnostics) = Settings::load(&env.agent_dir, &env.cwd, false);
    for d in diagnostics {
        report.warn(d);
    }
    settings
}

/// Stage: load script extensions; a failure stops start-up
/// (`Failed to load extension "<path>": …`).
pub(crate) async fn load_extensions(
    paths: &[PathBuf],
    opts: pi_ext::HostOptions,
) -> Result<Option<Arc<pi_ext::LoadedExtensions>>, Stop> {
    match pi_runtime::extensions::load_scripts(paths, opts).await {
        Ok(l) => Ok(l.map(Arc::new)),
        Err(e) => Err(Stop::Error(pi_runtime::text::with_extensions_hint(&e.to_string()))),
    }
}

/// Stage: the start-up diagnostics, reported together once everything they
/// are about is known (the reference's order): unknown flags (extensions'
/// flags get their values), then the model named on the command line.
async fn startup_diagnostics(
    args: &CliArgs,
    loaded: &mut Loaded,
    models: &[pi_config::ModelEntry],
    report: &mut Report,
) -> (model::FromCli, bool) {
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let mut registered: Vec<(String, bool)> = Vec::new();
    for l in &loaded.scripts {
        registered.extend(l.flags().await);
    }
    diagnostics.extend(cli_args::unknown_flag_diagnostics(&args.unknown, &registered));
    let values = cli_args::extension_flag_values(&args.unknown, &registered);
    for l in &loaded.scripts {
        l.set_flag_values(&values).await;
    }
    loaded.flag_values = values;
    let from_cli = model::from_cli(args, models, &mut diagnostics);
    let has_errors = report.diagnostics(&diagnostics);
    (from_cli, has_errors)
}

/// Stage: `--list-models` prints the table and ends the run.
fn list_models(args: &CliArgs, search: Option<&str>, models: &[pi_config::ModelEntry]) {
    let table = crate::model_list::list(models, search);
    // Outside the plain `pi --list-models`, standard output belongs to the mode.
    let ttys = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if args.print || args.mode != Mode::Text || (args.mode_given && !ttys) {
        eprint!("{table}");
    } else {
        print!("{table}");
    }
}

/// What start-up hands to the mode.
pub(crate) struct Started {
    /// The agent and what `/reload` needs.
    pub prepared: Prepared,
    /// The extensions (told when the session ends).
    pub loaded: Loaded,
    /// The mode.
    pub mode: Mode,
    /// On a terminal, without `-p`.
    pub interactive: bool,
    /// The notice for an untrusted project with resources.
    pub notice: Option<&'static str>,
    /// Every configured model (RPC lists and switches them).
    pub models: Arc<[pi_config::ModelEntry]>,
    /// The messages of a print or JSON run.
    pub input: Input,
    /// The folder new sessions go to (`None` with `--no-session`).
    pub session_dir: Option<PathBuf>,
    /// `--models` patterns.
    pub scope: Option<Vec<String>>,
    /// What the terminal UI needs from the command line and the settings.
    pub ui: crate::tui::UiSettings,
    /// The skills and prompt templates (commands of the UI and of RPC).
    pub resources: Arc<pi_config::resources::Resources>,
    /// The front end's shared state the run was built with.
    pub front: Front,
}

/// Run the stages. `Ok(None)`: the run is complete (`--list-models`).
pub(crate) fn start(
    args: &CliArgs,
    runtime: &tokio::runtime::Runtime,
    report: &mut Report,
) -> Result<Option<Started>, Stop> {
    start_in(args, runtime, report, None)
}

/// Run the stages in `cwd` (default: the current folder). A session
/// resumed by `--session` or `--resume` runs in the folder it was made in,
/// as the reference: when that is another folder, the stages run again
/// there (its settings, trust, extensions, context files and tools' folder).
fn start_in(
    args: &CliArgs,
    runtime: &tokio::runtime::Runtime,
    report: &mut Report,
    cwd: Option<PathBuf>,
) -> Result<Option<Started>, Stop> {
    check_arguments(args)?;
    let moved = cwd.is_some();
    let mut env = Env::current(args);
    if let Some(cwd) = cwd {
        env.cwd = cwd;
    }
    let mode = args.mode;
    let mut settings = load_settings(&env, report);
    let mut ui = crate::tui::UiSettings::new(args, &settings, env.agent_dir.clone(), env.cwd.clone());
    crate::tui::look::set_extension_theme(&ui, &env.ext_theme);
    if let Front::Tui(link) = &env.front {
        // The trust question and extensions' dialogs may come before the UI runs.
        link.set_early(&ui);
    }
    // `--offline`, as `PI_OFFLINE`: no installs at start-up.
    let offline = args.offline || crate::packages::offline_env();
    let (mut loaded, trust, packaged) = extensions_stage(args, runtime, &env, &mut settings, offline, report)?;
    let resources = resources::load(&env, args, &settings, trust.trusted, report);
    let mut models = pi_config::load_models(&env.agent_dir).map_err(|e| Stop::Error(e.to_string()))?;
    let llama_on = pi_runtime::llama::enabled(&loaded.builtins);
    pi_runtime::llama::prepare_models(&mut models, llama_on);
    // One list for the run: the agent, extensions, codemode and the credential source share it.
    let models: Arc<[pi_config::ModelEntry]> = models.into();
    let (from_cli, has_errors) = runtime.block_on(startup_diagnostics(args, &mut loaded, &models, report));
    // As the reference: when the run will have no model.
    if from_cli.is_none() && pi_runtime::model_select::default_model(&models).is_none() {
        report.warn(text::no_models_available());
    }
    if let Some(search) = &args.list_models {
        list_models(args, search.as_deref(), &models);
        return Ok(None);
    }
    if has_errors {
        return Err(Stop::Exit(1));
    }
    // As the reference: not in print mode, and not `--offline`.
    if llama_on && !args.offline && (mode == Mode::Rpc || env.interactive) {
        pi_runtime::llama::refresh_in_background(runtime, &env.agent_dir);
    }
    let input = match mode {
        Mode::Rpc => Input::default(),
        _ => input::collect(&env.cwd, input::piped_stdin(), &args.files, &args.messages)?,
    };
    let chosen = model::choose(args, &settings, &models, from_cli)?;
    let folder = session::folder(args, &settings, &env.agent_dir, &env.cwd);
    ui.trusted = trust.trusted;
    ui.skill_commands = settings.get_bool(&["enableSkillCommands"]).unwrap_or(true);
    ui.commands = crate::tui::menu::resource_commands(&resources, ui.skill_commands);
    if llama_on {
        ui.commands.insert(0, crate::tui::menu::llama_command());
    }
    ui.session_dir = (!args.no_session).then(|| folder.clone());
    // The reference's picker comes up on a terminal whatever the mode.
    let ttys = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let chooser = session::Chooser { interactive: ttys, to_stdout: mode == Mode::Text, front: env.front.clone() };
    let opened = session::open(args, &folder, &env.cwd, chooser, report)?;
    if !moved && let Some((file, there)) = session::runs_elsewhere(args, &opened.session, &env.cwd) {
        let again = CliArgs { session: Some(file), resume: false, ..args.clone() };
        drop(opened);
        return start_in(&again, runtime, report, Some(there));
    }
    // A session written where the run says (a resumed one keeps its folder).
    let folder = opened.session.path().and_then(|p| p.parent().map(PathBuf::from)).unwrap_or(folder);
    let trusted = trust.trusted;
    let inputs = agent::AgentInputs {
        env: &env,
        args,
        mode,
        settings: &settings,
        trusted,
        chosen,
        opened,
        loaded: &loaded,
        models: &models,
        resources: resources.clone(),
        folder: folder.clone(),
        packages: packaged,
    };
    let prepared = runtime.block_on(agent::build(inputs, report))?;
    let (interactive, notice) = (env.interactive, trust.untrusted_notice());
    let session_dir = (!args.no_session).then_some(folder);
    let scope = args.models.clone();
    let front = env.front.clone();
    Ok(Some(Started {
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
    }))
}

/// Stage: the extensions, in trust order: packages installed (unless
/// offline), the user's and the command line's extensions loaded, the
/// project's trust resolved (they may decide it), the project's packages and
/// extensions loaded when trusted, conflicts refused, replaced built-ins
/// omitted. Returns them, the trust decision and the packages' extension
/// files this run loads.
fn extensions_stage(
    args: &CliArgs,
    runtime: &tokio::runtime::Runtime,
    env: &Env,
    settings: &mut Settings,
    offline: bool,
    report: &mut Report,
) -> Result<(Loaded, pi_config::trust::TrustOutcome, Vec<pi_config::packages::PackageResource>), Stop> {
    let user = pi_config::settings::Scope::User;
    for w in
        if offline { Vec::new() } else { crate::packages::install_missing(settings, &env.agent_dir, &env.cwd, user) }
    {
        report.warn(w);
    }
    let mut plan = plan::ExtensionPlan::new(&args.extensions, args.no_extensions, settings, &env.agent_dir, offline);
    for w in std::mem::take(&mut plan.warnings) {
        report.warn(w);
    }
    let before = runtime.block_on(load_extensions(&plan.before_trust, env.host_options(args.mode, false)))?;
    let trust = trust::resolve(env, args.approve, settings, before.as_ref(), runtime.handle(), report)?;
    if trust.trusted && !offline {
        let scope = pi_config::settings::Scope::Project;
        for w in crate::packages::install_missing(settings, &env.agent_dir, &env.cwd, scope) {
            report.warn(w);
        }
    }
    let project_scripts = plan.trust_project(settings, &env.cwd, trust.trusted);
    let after = runtime.block_on(load_extensions(&project_scripts, env.host_options(args.mode, true)))?;
    if let Some(later) = &after {
        let earlier: Vec<Arc<pi_ext::LoadedExtensions>> = before.iter().cloned().collect();
        pi_ext::check_conflicts(&earlier, later)
            .map_err(|e| Stop::Error(pi_runtime::text::with_extensions_hint(&e.to_string())))?;
    }
    let groups = vec![
        (plan.before_trust.clone(), env.host_options(args.mode, false)),
        (project_scripts.clone(), env.host_options(args.mode, true)),
    ];
    let mut loaded = Loaded {
        scripts: before.into_iter().chain(after).collect(),
        builtins: plan.builtins.clone(),
        groups,
        flag_values: Default::default(),
    };
    // The packages' extension files this run loads: once, for the warnings
    // below and the commands' `sourceInfo`.
    let loaded_paths: Vec<&PathBuf> = loaded.groups.iter().flat_map(|(paths, _)| paths).collect();
    let mut packaged = pi_config::packages::resolve(settings, &env.agent_dir, &env.cwd).extensions;
    packaged.retain(|r| loaded_paths.contains(&&r.path));
    // As the reference orders them: the replaced built-ins, then the packages' dependencies.
    for w in runtime.block_on(replaced::omit_replaced(&mut loaded)) {
        report.warn(w);
    }
    for w in replaced::host_dependency_warnings(&packaged) {
        report.warn(w);
    }
    for l in &loaded.scripts {
        // ctx.isProjectTrusted() answers the final decision, also for extensions loaded before it.
        runtime.block_on(l.set_project_trusted(trust.trusted));
    }
    Ok((loaded, trust, packaged))
}

/// Shared by the stages' tests: an agent dir and a working folder under `root`.
#[cfg(test)]
pub(crate) fn test_env(root: &std::path::Path) -> Env {
    Env {
        agent_dir: root.join("agent"),
        cwd: root.join("proj"),
        interactive: false,
        front: Front::Plain,
        ext_theme: Default::default(),
        prompt_spans: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_arguments_stop_before_anything_is_read() {
        let rpc_with_file = CliArgs { mode: Mode::Rpc, files: vec!["a".into()], ..Default::default() };
        assert_eq!(check_arguments(&rpc_with_file), Err(Stop::Error(text::RPC_NO_FILE_ARGS.into())));
        let blank_name = CliArgs { name: Some("  ".into()), ..Default::default() };
        assert_eq!(check_arguments(&blank_name), Err(Stop::Error(text::NAME_REQUIRES_NON_EMPTY.into())));
        assert_eq!(check_arguments(&CliArgs::default()), Ok(()));
        let fork = CliArgs { fork: Some("x".into()), resume: true, no_session: true, ..Default::default() };
        let msg = "--fork cannot be combined with --resume, --no-session";
        assert_eq!(check_arguments(&fork), Err(Stop::Error(msg.into())));
        let id = CliArgs { session_id: Some("x".into()), continue_session: true, ..Default::default() };
        let msg = "--session-id cannot be combined with --continue";
        assert_eq!(check_arguments(&id), Err(Stop::Error(msg.into())));
    }

    #[test]
    fn bad_settings_are_warnings_and_the_layer_counts_as_empty() {
        let tmp = tempfile::tempdir().unwrap();
        let env = test_env(tmp.path());
        std::fs::create_dir_all(&env.agent_dir).unwrap();
        std::fs::write(env.agent_dir.join("settings.json"), "{broken").unwrap();
        let mut report = Report::collecting();
        let settings = load_settings(&env, &mut report);
        assert_eq!(settings.default_tools(), None);
        assert_eq!(report.lines().len(), 1);
        assert!(report.lines()[0].starts_with("Warning: ") && report.lines()[0].contains("settings.json"));
        std::fs::write(env.agent_dir.join("settings.json"), r#"{"defaultTools": "read"}"#).unwrap();
        let mut report = Report::collecting();
        let settings = load_settings(&env, &mut report);
        assert_eq!(settings.default_tools(), None, "a wrongly typed key is ignored (B3)");
        assert!(report.lines()[0].contains("defaultTools"), "{:?}", report.lines());
    }

    #[test]
    fn a_failing_extension_stops_start_up_naming_it() {
        let tmp = tempfile::tempdir().unwrap();
        let env = test_env(tmp.path());
        std::fs::create_dir_all(&env.cwd).unwrap();
        let bad = env.cwd.join("bad.ts");
        std::fs::write(&bad, "export default function (pi) { throw new Error('boom'); }").unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        let out = rt.block_on(load_extensions(std::slice::from_ref(&bad), env.host_options(Mode::Text, false)));
        match out {
            Err(Stop::Error(m)) => {
                assert!(m.starts_with("Failed to load extension") && m.contains("bad.ts") && m.contains("boom"), "{m}");
                assert!(m.ends_with("\nHint: Start without extensions using \"pi -ne\"."), "{m}")
            }
            other => panic!("expected a stop, got {:?}", other.map(|l| l.is_some())),
        }
        let none = rt.block_on(load_extensions(&[], env.host_options(Mode::Text, false)));
        assert!(matches!(none, Ok(None)));
    }
}
