//! The UI's state and behaviour, apart from the terminal: keys in, host
//! updates in, requests and effects out, and the lines of a frame. Tests
//! drive it directly.

/// The transcript's drawing context from the app's fields (a macro so the
/// borrows stay per field).
macro_rules! ctx {
    ($app:ident, $width:expr) => {
        crate::transcript::Ctx {
            theme: &$app.theme,
            width: $width,
            expanded: $app.expanded,
            show_thinking: $app.show_thinking,
            home: $app.home.as_deref(),
            expand_key: &$app.expand_key,
            now: std::time::Instant::now(),
        }
    };
}

mod actions;
mod keys;
mod ui_calls;
mod view;

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::time::Instant;

use ratatui::text::Line;

use crate::commands::CommandRegistry;
use crate::complete::Completion;
use crate::dialog::Dialog;
use crate::editor::Editor;
use crate::footer::Totals;
use crate::host::{
    CommandInfo, Component, ComponentHandle, Controls, DialogAnswer, ModelInfo, Request, UiHandle, Update,
};
use crate::keys::KeyId;
use crate::keys::Keybindings;
use crate::theme::{Theme, ThemeCatalog};
use crate::transcript::{Kind, Level, Transcript};

pub use view::Frame;

/// Fullscreen (the alternate screen, scrolled by pi) or regular (the
/// terminal's own scrollback).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScreenMode {
    /// The alternate screen.
    #[default]
    Fullscreen,
    /// The terminal's scrollback.
    Regular,
}

impl ScreenMode {
    /// `fullscreen` / `regular` (the setting and flag values).
    pub fn parse(s: &str) -> Option<ScreenMode> {
        match s {
            "fullscreen" => Some(ScreenMode::Fullscreen),
            "regular" => Some(ScreenMode::Regular),
            _ => None,
        }
    }
}

/// Everything the UI starts with.
pub struct Options {
    /// Fullscreen or regular.
    pub mode: ScreenMode,
    /// The theme.
    pub theme: Theme,
    /// The theme setting (for `/settings`).
    pub theme_name: String,
    /// Themes to choose from.
    pub themes: ThemeCatalog,
    /// Whether the terminal shows 24-bit colour.
    pub truecolor: bool,
    /// Key bindings.
    pub keys: Keybindings,
    /// The working folder.
    pub cwd: PathBuf,
    /// The home folder.
    pub home: Option<PathBuf>,
    /// The agent dir (`trust.json` lives there).
    pub agent_dir: PathBuf,
    /// pi's version.
    pub version: String,
    /// Lines the header shows when expanded (loaded resources).
    pub header_more: Vec<String>,
    /// Models that can be used.
    pub models: Vec<ModelInfo>,
    /// Models ctrl+p cycles through (`--models`; empty: all).
    pub cycle: Vec<ModelInfo>,
    /// The model.
    pub model: ModelInfo,
    /// Thinking level.
    pub thinking: Option<String>,
    /// Abort and queues.
    pub controls: Controls,
    /// Commands the host adds.
    pub commands: Vec<CommandInfo>,
    /// Whether the project is trusted this session.
    pub trusted: bool,
    /// Start-up notices.
    pub notices: Vec<(Level, String)>,
    /// Prompts to run first (given on the command line).
    pub initial: Vec<String>,
    /// Thinking blocks folded.
    pub hide_thinking: bool,
    /// Completion rows.
    pub autocomplete_max_visible: usize,
    /// The context is compacted when it fills (the footer says `(auto)`).
    pub auto_compact: bool,
    /// The session's name.
    pub session_name: Option<String>,
    /// Where extension UI calls come from (custom components get handles from it).
    pub ui: UiHandle,
    /// The conversation so far (a continued session).
    pub history: Vec<pi_agent::AgentMessage>,
}

/// What a dialog's answer is for.
pub(crate) enum Purpose {
    /// An extension's dialog.
    Reply(tokio::sync::oneshot::Sender<DialogAnswer>, ReplyKind),
    /// `/trust` (the options it offered).
    Trust(Vec<pi_config::trust::TrustOption>),
    /// The model picker.
    Model,
    /// The thinking level picker.
    Thinking(Vec<String>),
    /// `/settings`.
    Settings,
    /// An extension's component.
    Custom,
}

/// How an extension dialog's answer is shaped.
#[derive(Debug, Clone)]
pub(crate) enum ReplyKind {
    Select(Vec<String>),
    Confirm,
    Text,
    Tree,
}

/// Something only the terminal driver can do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Stop for the shell's job control (ctrl+z).
    Suspend,
    /// Edit the prompt in `$VISUAL`/`$EDITOR`.
    ExternalEditor(String),
    /// Paste from the system clipboard (an image becomes a file path).
    PasteClipboard,
    /// Put text on the clipboard.
    Copy(String),
}

/// Transcript search (fullscreen).
#[derive(Debug, Clone, Default)]
pub(crate) struct Search {
    pub query: String,
    pub matches: Vec<usize>,
    pub current: usize,
}

/// A component replacing the header or footer.
pub(crate) struct Replaced {
    pub component: Box<dyn Component>,
    pub _handle: ComponentHandle,
}

/// The UI.
pub struct App {
    /// Fullscreen or regular.
    pub mode: ScreenMode,
    pub(crate) theme: Theme,
    pub(crate) theme_name: String,
    pub(crate) themes: ThemeCatalog,
    pub(crate) truecolor: bool,
    pub(crate) keys: std::sync::Arc<Keybindings>,
    pub(crate) cwd: PathBuf,
    pub(crate) home: Option<PathBuf>,
    pub(crate) agent_dir: PathBuf,
    pub(crate) models: Vec<ModelInfo>,
    pub(crate) cycle: Vec<ModelInfo>,
    pub(crate) model: ModelInfo,
    pub(crate) thinking: Option<String>,
    pub(crate) controls: Controls,
    pub(crate) trusted: bool,
    pub(crate) registry: CommandRegistry,
    /// The extensions' keyboard shortcuts: the key, and its name as registered.
    pub(crate) shortcuts: Vec<(KeyId, String)>,
    pub(crate) ui: UiHandle,
    /// The transcript.
    pub transcript: Transcript,
    /// The prompt editor.
    pub editor: Editor,
    pub(crate) files: Vec<String>,
    pub(crate) completion: Option<Completion>,
    pub(crate) autocomplete_max_visible: usize,
    pub(crate) auto_compact: bool,
    pub(crate) dialog: Option<(Box<dyn Dialog>, Purpose)>,
    pub(crate) waiting_dialogs: VecDeque<(Box<dyn Dialog>, Purpose)>,
    /// An agent run is in progress.
    pub running: bool,
    pub(crate) pending: usize,
    pub(crate) initial: VecDeque<String>,
    pub(crate) bash: Option<usize>,
    pub(crate) expanded: bool,
    pub(crate) show_thinking: bool,
    pub(crate) totals: Totals,
    pub(crate) branch: Option<String>,
    pub(crate) session_name: Option<String>,
    pub(crate) statuses: BTreeMap<String, String>,
    pub(crate) widgets_above: BTreeMap<String, Vec<String>>,
    pub(crate) widgets_below: BTreeMap<String, Vec<String>>,
    pub(crate) footer_component: Option<Replaced>,
    pub(crate) header_component: Option<Replaced>,
    pub(crate) working: Option<String>,
    pub(crate) retry: Option<(u32, u32, Instant)>,
    /// A compaction runs (its reason).
    pub(crate) compacting: Option<String>,
    pub(crate) spinner: usize,
    pub(crate) scroll: Option<crate::transcript::Pos>,
    pub(crate) search: Option<Search>,
    pub(crate) last_clear: Option<Instant>,
    pub(crate) status_entry: Option<usize>,
    pub(crate) outbox: Vec<Request>,
    pub(crate) effects: Vec<Effect>,
    pub(crate) view_height: usize,
    pub(crate) width: usize,
    pub(crate) expand_key: String,
    /// Regular mode must print everything again (expansion or theme changed).
    pub reprint_requested: bool,
    /// Entries regular mode has printed for good.
    pub committed: usize,
    /// The user asked to quit.
    pub quit: bool,
}

/// The header's lines: name, version, the main keys.
fn header(theme: &Theme, keys: &Keybindings, version: &str) -> Vec<Line<'static>> {
    use crate::keys::Action;
    use crate::theme::Token;
    use ratatui::text::Span;
    let key = theme.style(Token::Dim);
    let word = theme.style(Token::Muted);
    let hint = |k: String, w: &str| vec![Span::styled(k, key), Span::styled(format!(" {w}"), word)];
    let mut second = Vec::new();
    let sep = Span::styled(" · ", word);
    let groups = [
        hint(keys.hint(Action::Interrupt), crate::text::HINT_INTERRUPT),
        hint(format!("{}/{}", keys.hint(Action::Clear), keys.hint(Action::Exit)), crate::text::HINT_CLEAR_EXIT),
        hint("/".into(), crate::text::HINT_COMMANDS),
        hint("!".into(), crate::text::HINT_BASH),
        hint(keys.hint(Action::ToolsExpand), crate::text::HINT_MORE),
    ];
    for (i, g) in groups.into_iter().enumerate() {
        if i > 0 {
            second.push(sep.clone());
        }
        second.extend(g);
    }
    vec![
        Line::default(),
        Line::from(vec![
            Span::styled(crate::text::APP_NAME, theme.bold(Token::Accent)),
            Span::styled(format!("  v{version}"), key),
        ]),
        Line::from(second),
    ]
}

impl App {
    /// A UI in its start state.
    pub fn new(o: Options) -> App {
        let mut transcript = Transcript::new();
        let more: Vec<Line<'static>> = o
            .header_more
            .iter()
            .map(|l| crate::lines::styled(crate::sanitize::clean_line(l), o.theme.style(crate::theme::Token::Dim)))
            .collect();
        transcript.push(Kind::Header { lines: header(&o.theme, &o.keys, &o.version), more });
        transcript.load_history(&o.history);
        let totals = Totals::of(&o.history);
        for (level, text) in &o.notices {
            transcript.notice(*level, text.clone());
        }
        let branch = crate::footer::git_branch(&o.cwd);
        let mut app = App {
            mode: o.mode,
            theme: o.theme,
            theme_name: o.theme_name,
            themes: o.themes,
            truecolor: o.truecolor,
            registry: CommandRegistry::new(&o.commands),
            shortcuts: Vec::new(),
            keys: std::sync::Arc::new(o.keys),
            cwd: o.cwd,
            home: o.home,
            agent_dir: o.agent_dir,
            models: o.models,
            cycle: o.cycle,
            model: o.model,
            thinking: o.thinking,
            controls: o.controls,
            trusted: o.trusted,
            ui: o.ui,
            transcript,
            editor: Editor::new(),
            files: Vec::new(),
            completion: None,
            autocomplete_max_visible: o.autocomplete_max_visible.clamp(3, 20),
            auto_compact: o.auto_compact,
            dialog: None,
            waiting_dialogs: VecDeque::new(),
            running: false,
            pending: 0,
            initial: o.initial.into_iter().collect(),
            bash: None,
            expanded: false,
            show_thinking: !o.hide_thinking,
            totals,
            branch,
            session_name: o.session_name,
            statuses: BTreeMap::new(),
            widgets_above: BTreeMap::new(),
            widgets_below: BTreeMap::new(),
            footer_component: None,
            header_component: None,
            working: None,
            retry: None,
            compacting: None,
            spinner: 0,
            scroll: None,
            search: None,
            last_clear: None,
            status_entry: None,
            outbox: vec![Request::ListFiles],
            effects: Vec::new(),
            view_height: 24,
            width: 80,
            expand_key: String::new(),
            committed: 0,
            reprint_requested: false,
            quit: false,
        };
        app.expand_key = app.keys.hint(crate::keys::Action::ToolsExpand);
        app.next_initial();
        app
    }

    /// Requests for the host (taken).
    pub fn take_requests(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.outbox)
    }

    /// Effects for the driver (taken).
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// Whether something animates (a spinner or a running timer needs ticks).
    pub fn animating(&self) -> bool {
        self.running || self.bash.is_some() || self.retry.is_some() || self.compacting.is_some()
    }

    /// Advance animations.
    pub fn tick(&mut self) {
        self.spinner = self.spinner.wrapping_add(1);
    }

    /// Whether the UI is busy with something that sending a prompt would interrupt.
    fn busy(&self) -> bool {
        self.running || self.pending > 0
    }

    /// Run the next prompt given on the command line, when idle.
    fn next_initial(&mut self) {
        if !self.busy()
            && let Some(p) = self.initial.pop_front()
        {
            self.send_prompt(p);
        }
    }

    pub(crate) fn send_prompt(&mut self, text: String) {
        self.running = true;
        self.pending += 1;
        self.scroll = None;
        self.outbox.push(Request::Prompt(text));
    }

    /// A status line: replaces the previous one when nothing came between.
    pub(crate) fn status(&mut self, level: Level, text: impl Into<String>) {
        let text = text.into();
        if let Some(i) = self.status_entry
            && i + 1 == self.transcript.len()
        {
            self.transcript.replace_last(Kind::Notice(level, text));
            return;
        }
        self.transcript.notice(level, text);
        self.status_entry = Some(self.transcript.len() - 1);
    }

    /// An error line (`Error: …`).
    pub(crate) fn error(&mut self, text: &str) {
        self.transcript.notice(Level::Error, crate::text::error_line(text));
    }

    /// Apply an update from the host.
    pub fn update(&mut self, u: Update) {
        match u {
            Update::Agent(ev) => self.agent_event(&ev),
            Update::BashOutput(chunk) => {
                if let Some(i) = self.bash {
                    let clean = crate::sanitize::clean(&chunk);
                    self.transcript.update_bash(i, |b| b.output.push_str(&clean));
                }
            }
            Update::BashDone { exit_code, cancelled, full_output_path } => {
                if let Some(i) = self.bash.take() {
                    self.transcript.update_bash(i, |b| {
                        b.exit_code = exit_code;
                        b.cancelled = cancelled;
                        b.full_output_path = full_output_path;
                        b.done = true;
                    });
                }
            }
            Update::Model(m) => {
                self.model = m;
            }
            Update::Thinking(t) => self.thinking = t.filter(|t| t != "off"),
            Update::Notice(level, text) => self.transcript.notice(level, text),
            Update::Markdown(md) => self.transcript.push(Kind::Markdown(md)),
            Update::SessionName(n) => self.session_name = n,
            Update::Folder(cwd) => {
                self.branch = crate::footer::git_branch(&cwd);
                self.cwd = cwd;
            }
            Update::Reset => self.start_over(&[]),
            Update::Session { history, editor } => {
                self.start_over(&history);
                if let Some(t) = editor {
                    self.editor.set_text(&t);
                }
            }
            Update::Commands(c) => self.registry = CommandRegistry::new(&c),
            Update::Renderers(r) => self.transcript.set_renderers(r),
            Update::ToolRenderers(r) => self.transcript.set_tool_renderers(r),
            Update::EntryRenderers(r) => self.transcript.set_entry_renderers(r),
            Update::Shortcuts(list) => {
                self.shortcuts =
                    list.into_iter().filter_map(|(k, _)| KeyId::parse(&k).ok().map(|id| (id, k))).collect();
            }
            Update::Look { keys, themes } => {
                self.keys = std::sync::Arc::new(*keys);
                self.expand_key = self.keys.hint(crate::keys::Action::ToolsExpand);
                self.themes = *themes;
                let name = self.theme_name.clone();
                self.apply_theme(&name);
            }
            Update::Files(f) => self.files = f,
            Update::Done => {
                self.pending = self.pending.saturating_sub(1);
                if self.pending == 0 {
                    self.running = false;
                }
                self.next_initial();
            }
            Update::Ui(call) => self.ui_call(call),
            Update::Redraw => self.check_finished_dialog(),
            Update::Exit => self.quit = true,
        }
    }

    /// The transcript starts over (its header kept) with `history` shown.
    fn start_over(&mut self, history: &[pi_agent::AgentMessage]) {
        let header = self.transcript.entries().first().cloned();
        self.transcript.clear();
        if let Some(h) = header {
            self.transcript.push(h.kind);
        }
        self.transcript.load_history(history);
        self.totals = Totals::of(history);
        self.committed = 0;
        self.scroll = None;
    }

    fn agent_event(&mut self, ev: &pi_agent::AgentEvent) {
        use pi_agent::AgentEvent;
        match ev {
            AgentEvent::AgentStart => self.running = true,
            AgentEvent::AgentSettled { aborted } => {
                // A run stopped during its tools has no aborted answer to say so.
                if *aborted && !self.transcript.last_answer_aborted() {
                    self.transcript.notice(Level::Error, crate::text::OPERATION_ABORTED);
                }
                self.running = false;
                self.retry = None;
                self.outbox.push(Request::ListFiles);
            }
            AgentEvent::MessageEnd { message: pi_ai::Message::Assistant(m) } => self.totals.add(&m.usage),
            AgentEvent::AutoRetryStart { attempt, max_attempts, delay_ms, .. } => {
                self.retry =
                    Some((*attempt, *max_attempts, Instant::now() + std::time::Duration::from_millis(*delay_ms)));
            }
            AgentEvent::AutoRetryEnd { .. } => self.retry = None,
            AgentEvent::CompactionStart { reason } => self.compacting = Some(reason.clone()),
            AgentEvent::CompactionEnd { .. } => self.compacting = None,
            _ => {}
        }
        self.transcript.apply(ev);
    }

    /// Text from the clipboard or an external editor.
    pub fn insert_text(&mut self, text: &str) {
        self.editor.paste(text);
        self.refresh_completion();
    }

    /// Replace the prompt (after the external editor).
    pub fn set_prompt(&mut self, text: &str) {
        self.editor.set_text(text);
        self.refresh_completion();
    }

    /// Show a notice.
    pub fn notify(&mut self, level: Level, text: &str) {
        self.transcript.notice(level, text.to_string());
    }
}
