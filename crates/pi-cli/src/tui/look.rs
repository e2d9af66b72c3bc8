//! What the terminal UI looks like and listens to: the screen mode, the
//! theme (`--use-theme`, the `theme` setting; theme files from
//! `<agent-dir>/themes`, a trusted project's `.pi/themes` and `--theme`,
//! none with `--no-themes`) and the keys (`<agent-dir>/keybindings.json`).

use std::path::PathBuf;

use pi_config::Settings;
use pi_tui::ScreenMode;
use pi_tui::keys::Keybindings;
use pi_tui::theme::{Theme, ThemeCatalog, appearance_from_env, choose_from_setting, truecolor_from_env};

use crate::cli_args::CliArgs;

/// Completion rows when the setting is absent.
const DEFAULT_AUTOCOMPLETE_ROWS: usize = 5;

/// The UI's settings and flags, gathered at start-up.
#[derive(Debug, Clone)]
pub(crate) struct UiSettings {
    /// Fullscreen or regular (`--tui-mode`, the `tuiMode` setting).
    pub mode: ScreenMode,
    /// The theme asked for (`--use-theme`, else the `theme` setting).
    pub theme: Option<String>,
    /// `--theme` paths.
    pub theme_paths: Vec<PathBuf>,
    /// `--no-themes`.
    pub no_themes: bool,
    /// `hideThinkingBlock`.
    pub hide_thinking: bool,
    /// `autocompleteMaxVisible`.
    pub autocomplete_rows: usize,
    /// `--models` patterns (model cycling).
    pub cycle: Option<Vec<String>>,
    /// `--api-key` (kept for switching models).
    pub api_key: Option<String>,
    /// The agent dir.
    pub agent_dir: PathBuf,
    /// The working folder.
    pub cwd: PathBuf,
    /// Whether the project is trusted this session.
    pub trusted: bool,
    /// Where new sessions go (`None` with `--no-session`).
    pub session_dir: Option<PathBuf>,
    /// `--name`.
    pub session_name: Option<String>,
    /// Commands of the prompt templates and skills.
    pub commands: Vec<pi_tui::host::CommandInfo>,
    /// `enableSkillCommands` (skills in `/` completion).
    pub skill_commands: bool,
}

impl UiSettings {
    /// From the command line and the settings.
    pub(crate) fn new(args: &CliArgs, settings: &Settings, agent_dir: PathBuf, cwd: PathBuf) -> UiSettings {
        let mode =
            args.tui_mode.as_deref().or(settings.get_str(&["tuiMode"])).and_then(ScreenMode::parse).unwrap_or_default();
        UiSettings {
            mode,
            theme: args.use_theme.clone().or_else(|| settings.get_str(&["theme"]).map(String::from)),
            theme_paths: args.theme_paths.iter().map(|p| pi_config::expand_tilde(p)).collect(),
            no_themes: args.no_themes,
            hide_thinking: settings.get_bool(&["hideThinkingBlock"]).unwrap_or(false),
            autocomplete_rows: settings
                .get(&["autocompleteMaxVisible"])
                .and_then(|v| v.as_u64())
                .map_or(DEFAULT_AUTOCOMPLETE_ROWS, |n| n as usize),
            cycle: args.models.clone(),
            api_key: args.api_key.clone(),
            agent_dir,
            cwd,
            trusted: false,
            session_dir: None,
            session_name: args.name.clone(),
            commands: Vec::new(),
            skill_commands: settings.get_bool(&["enableSkillCommands"]).unwrap_or(true),
        }
    }

    /// Every theme this run can use.
    pub(crate) fn catalog(&self) -> ThemeCatalog {
        let mut dirs = Vec::new();
        if !self.no_themes {
            dirs.push(self.agent_dir.join("themes"));
            if self.trusted {
                dirs.push(self.cwd.join(".pi").join("themes"));
            }
        }
        ThemeCatalog::load(&dirs, &self.theme_paths)
    }

    /// The theme to start with, its name, and warnings.
    pub(crate) fn theme(&self, catalog: &ThemeCatalog) -> (Theme, String, Vec<String>) {
        let appearance = appearance_from_env();
        let name = choose_from_setting(self.theme.as_deref(), appearance);
        match catalog.get(&name, truecolor_from_env(), appearance) {
            Some(t) => (t, name, Vec::new()),
            None => (
                Theme::system(appearance),
                pi_tui::text::SYSTEM_THEME.to_string(),
                vec![pi_tui::text::theme_not_found(&name)],
            ),
        }
    }
}

/// Give extensions (`ctx.ui.theme`, through `to`, the run's handle) the
/// theme this run uses, in every mode (the reference styles their text with
/// it in print and RPC modes too).
pub(crate) fn set_extension_theme(ui: &UiSettings, to: &pi_ext::ExtTheme) {
    let (theme, _, _) = ui.theme(&ui.catalog());
    to.set(theme.ansi_table(), truecolor_from_env());
}

/// The keys, with the warnings of `keybindings.json`.
pub(crate) fn keys(agent_dir: &std::path::Path) -> (Keybindings, Vec<String>) {
    Keybindings::load(&agent_dir.join("keybindings.json"))
}

/// The look of dialogs before a run's settings are read: the system theme
/// and the default keys.
pub(crate) fn default_look() -> (Theme, Keybindings) {
    (Theme::system(appearance_from_env()), Keybindings::defaults())
}
