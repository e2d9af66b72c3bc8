//! What the user asks for: sending a prompt (or steering, or queueing a
//! follow-up), user commands, slash commands, model and thinking changes,
//! and the answers of the UI's own dialogs.

use serde_json::Value;

use super::{App, Purpose};
use crate::commands::{Target, UiCommand};
use crate::dialog::{Answer, ModelDialog, SelectDialog, SelectItem, SettingsDialog, SettingsState};
use crate::host::{DialogAnswer, ModelInfo, Request};
use crate::keys::Action;
use crate::text;
use crate::transcript::{Kind, Level};

/// Thinking levels of a reasoning model, in cycling order.
pub const THINKING_LEVELS: &[&str] = &["off", "minimal", "low", "medium", "high"];

impl App {
    /// Enter: a command, a user command, a prompt, or (while the agent
    /// works) a steering message.
    pub(crate) fn submit(&mut self) {
        let text = self.editor.expanded_text().trim().to_string();
        self.completion = None;
        if text.is_empty() {
            return;
        }
        if let Some((name, args)) = crate::commands::parse(&text)
            && let Some(cmd) = self.registry.find(name).cloned().filter(|c| c.target != Target::Prompt)
        {
            self.editor.add_history(&text);
            self.editor.clear();
            match cmd.target {
                Target::Ui(c) => self.ui_command(c, args),
                Target::Host | Target::Prompt => self.host_command(name, args),
            }
            return;
        }
        if let Some(rest) = text.strip_prefix('!') {
            let (command, exclude) = match rest.strip_prefix('!') {
                Some(r) => (r.trim(), true),
                None => (rest.trim(), false),
            };
            if command.is_empty() {
                return;
            }
            if self.bash.is_some() {
                self.status(Level::Warning, text::BASH_ALREADY_RUNNING);
                return;
            }
            self.editor.add_history(&text);
            self.editor.clear();
            self.bash = Some(self.transcript.begin_bash(command, exclude));
            self.pending += 1;
            self.scroll = None;
            self.outbox.push(Request::Bash { command: command.to_string(), exclude });
            return;
        }
        self.editor.add_history(&text);
        self.editor.clear();
        if self.running {
            self.controls.push(false, text);
        } else {
            self.send_prompt(text);
        }
    }

    /// The follow-up key: queue after the run, or send when idle.
    pub(crate) fn follow_up(&mut self) {
        if !self.running {
            self.submit();
            return;
        }
        let text = self.editor.expanded_text().trim().to_string();
        if text.is_empty() {
            return;
        }
        self.editor.add_history(&text);
        self.editor.clear();
        self.controls.push(true, text);
    }

    /// Put queued messages back in the editor.
    pub(crate) fn dequeue(&mut self) {
        let queued = self.controls.drain();
        if queued.is_empty() {
            self.status(Level::Info, text::NO_QUEUED);
            return;
        }
        let n = queued.len();
        let current = self.editor.expanded_text();
        let all: Vec<String> =
            queued.into_iter().chain(std::iter::once(current)).filter(|t| !t.trim().is_empty()).collect();
        self.editor.set_text(&all.join("\n\n"));
        self.status(Level::Info, text::restored_queued(n));
    }

    pub(crate) fn host_command(&mut self, name: &str, args: &str) {
        self.pending += 1;
        self.outbox.push(Request::Command { name: name.to_string(), args: args.to_string() });
    }

    fn ui_command(&mut self, c: UiCommand, args: &str) {
        match c {
            UiCommand::Settings => {
                let state = SettingsState {
                    theme: self.theme_name.clone(),
                    themes: self.themes.names(),
                    tui_mode: if self.mode == super::ScreenMode::Regular { "regular" } else { "fullscreen" }.into(),
                    hide_thinking: !self.show_thinking,
                    autocomplete_max_visible: self.autocomplete_max_visible,
                };
                self.open(Box::new(SettingsDialog::new(state)), Purpose::Settings);
            }
            UiCommand::Model => self.model_command(args),
            UiCommand::Thinking => self.thinking_command(args),
            UiCommand::Hotkeys => {
                let md = self.hotkeys();
                self.transcript.push(Kind::Markdown(md));
            }
            UiCommand::Copy => self.copy_last(),
            UiCommand::Trust => self.trust_command(),
            UiCommand::Quit => self.quit = true,
        }
    }

    pub(crate) fn open(&mut self, dialog: Box<dyn crate::dialog::Dialog>, purpose: Purpose) {
        if self.dialog.is_some() {
            self.waiting_dialogs.push_back((dialog, purpose));
        } else {
            self.dialog = Some((dialog, purpose));
        }
    }

    fn model_command(&mut self, pattern: &str) {
        if !pattern.is_empty() {
            let low = pattern.to_lowercase();
            let exact: Vec<&ModelInfo> = self
                .models
                .iter()
                .filter(|m| format!("{}/{}", m.provider, m.id).to_lowercase() == low || m.id.to_lowercase() == low)
                .collect();
            if let [m] = exact.as_slice() {
                let m = (*m).clone();
                self.switch_model(&m, false);
                return;
            }
        }
        self.open_model_picker(pattern);
    }

    pub(crate) fn open_model_picker(&mut self, query: &str) {
        if self.models.is_empty() {
            self.status(Level::Warning, text::NO_MODELS);
            return;
        }
        let dialog = ModelDialog::new(self.models.clone(), &self.model, query);
        self.open(Box::new(dialog), Purpose::Model);
    }

    fn switch_model(&mut self, m: &ModelInfo, save: bool) {
        self.pending += 1;
        self.outbox.push(Request::SetModel { provider: m.provider.clone(), id: m.id.clone(), save });
        self.status(Level::Info, text::model_switched(&m.provider, &m.id));
    }

    pub(crate) fn cycle_model(&mut self, forward: bool) {
        let pool = if self.cycle.is_empty() { self.models.clone() } else { self.cycle.clone() };
        if pool.len() < 2 {
            self.status(Level::Info, text::ONLY_ONE_MODEL);
            return;
        }
        let at = pool.iter().position(|m| m.provider == self.model.provider && m.id == self.model.id);
        let next = match (at, forward) {
            (Some(i), true) => (i + 1) % pool.len(),
            (Some(i), false) => (i + pool.len() - 1) % pool.len(),
            (None, _) => 0,
        };
        let m = pool[next].clone();
        self.switch_model(&m, false);
    }

    fn thinking_levels(&self) -> Vec<String> {
        THINKING_LEVELS.iter().map(|s| s.to_string()).collect()
    }

    pub(crate) fn cycle_thinking(&mut self) {
        if !self.model.reasoning {
            self.status(Level::Info, text::NO_THINKING);
            return;
        }
        let levels = self.thinking_levels();
        let current = self.thinking.clone().unwrap_or_else(|| "off".into());
        let at = levels.iter().position(|l| *l == current).unwrap_or(0);
        let next = levels[(at + 1) % levels.len()].clone();
        self.set_thinking(next);
    }

    fn set_thinking(&mut self, level: String) {
        self.thinking = (level != "off").then(|| level.clone());
        self.status(Level::Info, text::thinking_level(&level));
        self.pending += 1;
        self.outbox.push(Request::SetThinking(level));
    }

    fn thinking_command(&mut self, arg: &str) {
        if !self.model.reasoning {
            self.status(Level::Info, text::NO_THINKING);
            return;
        }
        let levels = self.thinking_levels();
        if levels.iter().any(|l| l == arg) {
            self.set_thinking(arg.to_string());
            return;
        }
        let current = self.thinking.clone().unwrap_or_else(|| "off".into());
        let items =
            levels.iter().map(|l| SelectItem { label: l.clone(), detail: None, marked: *l == current }).collect();
        let at = levels.iter().position(|l| *l == current).unwrap_or(0);
        let d = SelectDialog::new(text::THINKING_TITLE, items).selected(at);
        self.open(Box::new(d), Purpose::Thinking(levels));
    }

    pub(crate) fn copy_last(&mut self) {
        match self.transcript.last_answer() {
            Some(t) => {
                self.effects.push(super::Effect::Copy(t));
                self.status(Level::Info, text::COPIED);
            }
            None => self.status(Level::Info, text::NOTHING_TO_COPY),
        }
    }

    fn trust_command(&mut self) {
        let store = pi_config::TrustStore::new(&self.agent_dir);
        match crate::dialog::trust::command(&store, &self.cwd, self.trusted) {
            Ok((d, options)) => self.open(Box::new(d), Purpose::Trust(options)),
            Err(e) => self.error(&e.to_string()),
        }
    }

    /// `/hotkeys`: the active keys as markdown tables.
    fn hotkeys(&self) -> String {
        let table = |title: &str, rows: &[(String, &str)]| {
            let mut s = format!("**{title}**\n\n| {} | {} |\n|---|---|\n", text::KEY, text::ACTION);
            for (k, d) in rows.iter().filter(|(k, _)| !k.is_empty()) {
                s.push_str(&format!("| {} | {d} |\n", k.replace('|', "\\|")));
            }
            s
        };
        let row = |a: Action| (self.keys.titles(a), a.description());
        use Action::*;
        let editing: Vec<(String, &str)> = [
            CursorUp,
            CursorDown,
            CursorLeft,
            CursorRight,
            CursorWordLeft,
            CursorWordRight,
            CursorLineStart,
            CursorLineEnd,
            JumpForward,
            JumpBackward,
            NewLine,
            Submit,
            DeleteCharBackward,
            DeleteCharForward,
            DeleteWordBackward,
            DeleteWordForward,
            DeleteToLineStart,
            DeleteToLineEnd,
            Yank,
            YankPop,
            Undo,
        ]
        .into_iter()
        .map(row)
        .collect();
        let mut other: Vec<(String, &str)> = [
            Tab,
            Interrupt,
            Clear,
            Exit,
            Suspend,
            ThinkingCycle,
            ModelCycleForward,
            ModelSelect,
            ToolsExpand,
            ThinkingToggle,
            ExternalEditor,
            MessageCopy,
            FollowUp,
            Dequeue,
            PasteImage,
        ]
        .into_iter()
        .map(row)
        .collect();
        if self.mode == super::ScreenMode::Fullscreen {
            other.extend(
                [ScrollPageUp, ScrollPageDown, PreviousPrompt, NextPrompt, Search, ScrollTop, ScrollBottom]
                    .into_iter()
                    .map(row),
            );
        }
        other.push(("/".to_string(), text::HOTKEY_COMMANDS));
        other.push(("!".to_string(), text::HOTKEY_BASH));
        other.push(("!!".to_string(), text::HOTKEY_BASH_EXCLUDED));
        format!("{}\n{}", table(text::HOTKEYS_EDITOR, &editing), table(text::HOTKEYS_OTHER, &other))
    }

    /// The answer of a dialog, for what it was opened for.
    pub(crate) fn answer(&mut self, purpose: Purpose, answer: Answer) {
        match purpose {
            Purpose::Reply(tx, kind) => {
                let a = match (kind, answer) {
                    (super::ReplyKind::Select(opts), Answer::Index(i)) => {
                        opts.get(i).cloned().map_or(DialogAnswer::Cancelled, DialogAnswer::Value)
                    }
                    (super::ReplyKind::Confirm, Answer::Index(i)) => DialogAnswer::Confirmed(i == 0),
                    (super::ReplyKind::Confirm, _) => DialogAnswer::Confirmed(false),
                    (super::ReplyKind::Text, Answer::Text(t)) => DialogAnswer::Value(t),
                    (super::ReplyKind::Tree, a) => crate::dialog::tree_answer(a),
                    _ => DialogAnswer::Cancelled,
                };
                let _ = tx.send(a);
            }
            Purpose::Trust(options) => {
                if let Answer::Index(i) = answer
                    && let Some(o) = options.get(i)
                {
                    let store = pi_config::TrustStore::new(&self.agent_dir);
                    match pi_config::trust::apply_trust_choice(&store, &self.cwd, o.choice) {
                        Ok(t) => self.status(Level::Info, pi_config::text::saved_trust_decision(t)),
                        Err(e) => self.error(&e.to_string()),
                    }
                }
            }
            Purpose::Model => {
                let models = self.models.clone();
                match answer {
                    Answer::Index(i) => {
                        if let Some(m) = models.get(i) {
                            self.switch_model(m, false);
                        }
                    }
                    Answer::Save(i) => {
                        if let Some(m) = models.get(i) {
                            self.switch_model(m, true);
                        }
                    }
                    _ => {}
                }
            }
            Purpose::Thinking(levels) => {
                if let Answer::Index(i) = answer
                    && let Some(l) = levels.get(i)
                {
                    self.set_thinking(l.clone());
                }
            }
            Purpose::Settings | Purpose::Custom => {}
        }
    }

    /// One change made in `/settings`: saved, and applied where it can be.
    pub(crate) fn settings_change(&mut self, answer: Answer) {
        let Answer::Value(v) = answer else { return };
        let path: Vec<String> = v["key"]
            .as_array()
            .map(|a| a.iter().filter_map(|k| k.as_str().map(String::from)).collect())
            .unwrap_or_default();
        let value = v["value"].clone();
        match (path.first().map(String::as_str), &value) {
            (Some("theme"), Value::String(name)) => self.apply_theme(name),
            (Some("hideThinkingBlock"), Value::Bool(b)) => self.show_thinking = !b,
            (Some("autocompleteMaxVisible"), Value::Number(n)) => {
                self.autocomplete_max_visible = n.as_u64().unwrap_or(5) as usize;
            }
            (Some("tuiMode"), _) => self.status(Level::Info, text::TUI_MODE_RESTART),
            _ => {}
        }
        self.outbox.push(Request::SaveSetting { path, value });
    }

    /// Use the theme called `name`.
    pub fn apply_theme(&mut self, name: &str) {
        let appearance = crate::theme::appearance_from_env();
        match self.themes.get(name, self.truecolor, appearance) {
            Some(t) => {
                self.theme = t;
                self.theme_name = name.to_string();
                self.transcript.theme_generation += 1;
                self.reprint_requested = self.mode == super::ScreenMode::Regular;
            }
            None => self.status(Level::Warning, crate::text::theme_not_found(name)),
        }
    }
}
