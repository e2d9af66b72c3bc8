//! Keys: dialogs first, then transcript search and scrolling (fullscreen),
//! then completion, then the application's actions, then the editor.

use std::time::{Duration, Instant};

use ratatui::crossterm::event::KeyEvent;

use super::{App, ScreenMode, Search};
use crate::complete::{self, Kind as CompletionKind};
use crate::dialog::Outcome;
use crate::editor::Outcome as EditorOutcome;
use crate::keys::{Action, Key, KeyId};

/// Two presses of the clear key this close together quit.
pub const DOUBLE_PRESS: Duration = Duration::from_millis(500);
/// Lines a mouse wheel step scrolls.
pub const WHEEL_LINES: usize = 3;

impl App {
    /// A key press.
    pub fn key(&mut self, ev: &KeyEvent) {
        let Some(press) = KeyId::from_event(ev) else { return };
        if self.dialog.is_some() {
            self.dialog_key(ev);
            return;
        }
        if self.search.is_some() {
            self.search_key(&press);
            return;
        }
        let keys = self.keys.clone();
        let is = |a: Action| keys.matches(a, &press);
        if self.mode == ScreenMode::Fullscreen && self.completion.is_none() && self.scroll_key(&press) {
            return;
        }
        if self.completion.is_some() && self.completion_key(&press) {
            return;
        }
        if is(Action::Interrupt) {
            self.interrupt();
        } else if is(Action::Clear) {
            let now = Instant::now();
            if self.last_clear.is_some_and(|t| now.duration_since(t) < DOUBLE_PRESS) {
                self.quit = true;
            } else {
                self.editor.clear();
                self.completion = None;
                self.last_clear = Some(now);
            }
        } else if is(Action::Exit) && self.editor.is_empty() {
            self.quit = true;
        } else if is(Action::Suspend) {
            self.effects.push(super::Effect::Suspend);
        } else if is(Action::ModelSelect) {
            self.open_model_picker("");
        } else if is(Action::ModelCycleBackward) {
            self.cycle_model(false);
        } else if is(Action::ModelCycleForward) {
            self.cycle_model(true);
        } else if is(Action::ThinkingCycle) {
            self.cycle_thinking();
        } else if is(Action::ThinkingToggle) {
            self.show_thinking = !self.show_thinking;
            self.reprint_requested = self.mode == ScreenMode::Regular;
        } else if is(Action::ToolsExpand) {
            self.expanded = !self.expanded;
            self.reprint_requested = self.mode == ScreenMode::Regular;
        } else if is(Action::MessageCopy) {
            self.copy_last();
        } else if is(Action::FollowUp) {
            self.follow_up();
        } else if is(Action::Dequeue) {
            self.dequeue();
        } else if is(Action::ExternalEditor) {
            self.effects.push(super::Effect::ExternalEditor(self.editor.expanded_text()));
        } else if is(Action::PasteImage) {
            self.effects.push(super::Effect::PasteClipboard);
        } else if is(Action::SessionNew) {
            self.host_command("new", "");
        } else if is(Action::SessionTree) {
            self.host_command("tree", "");
        } else if is(Action::SessionFork) {
            self.host_command("fork", "");
        } else if is(Action::SessionResume) {
            self.host_command("resume", "");
        } else if is(Action::Tab) && !self.editor.jump_pending() {
            let before = self.editor.buffer().before_cursor().to_string();
            self.completion = complete::complete_path(&before, &self.cwd, self.home.as_deref());
            if let Some(c) = &self.completion
                && c.items.len() == 1
            {
                self.accept_completion(false);
            }
        } else if let Some(name) = self.shortcuts.iter().find(|(k, _)| k.matches(&press)).map(|(_, n)| n.clone()) {
            // An extension's shortcut (pi's own bindings come first).
            self.pending += 1;
            self.outbox.push(crate::host::Request::Shortcut(name));
        } else {
            match self.editor.handle_key(ev, &keys) {
                EditorOutcome::Submit => self.submit(),
                EditorOutcome::Handled => self.refresh_completion(),
                EditorOutcome::Ignored => {}
            }
        }
    }

    /// A bracketed paste.
    pub fn paste(&mut self, text: &str) {
        if let Some((d, _)) = &mut self.dialog {
            d.paste(text);
        } else if let Some(s) = &mut self.search {
            s.query.push_str(&crate::sanitize::clean_line(text));
        } else {
            self.insert_text(text);
        }
    }

    /// A mouse wheel step (fullscreen).
    pub fn wheel(&mut self, up: bool) {
        if self.mode != ScreenMode::Fullscreen {
            return;
        }
        let lines = WHEEL_LINES as isize;
        self.scroll_by(if up { -lines } else { lines });
    }

    fn dialog_key(&mut self, ev: &KeyEvent) {
        let Some((dialog, _)) = &mut self.dialog else { return };
        let outcome = dialog.key(ev, &self.keys.clone());
        match outcome {
            Outcome::Continue => {}
            Outcome::Close(answer) => {
                if let Some((_, purpose)) = self.dialog.take() {
                    self.answer(purpose, answer);
                }
                self.dialog = self.waiting_dialogs.pop_front();
            }
            Outcome::Keep(answer) => self.settings_change(answer),
        }
    }

    /// Close a dialog that finished by itself (a component's `done`).
    pub(crate) fn check_finished_dialog(&mut self) {
        if let Some((d, _)) = &self.dialog
            && let Some(answer) = d.finished()
            && let Some((_, purpose)) = self.dialog.take()
        {
            self.answer(purpose, answer);
            self.dialog = self.waiting_dialogs.pop_front();
        }
    }

    fn completion_key(&mut self, press: &KeyId) -> bool {
        let keys = self.keys.clone();
        let is = |a: Action| keys.matches(a, press);
        let Some(c) = &mut self.completion else { return false };
        if is(Action::SelectUp) {
            c.step(false);
        } else if is(Action::SelectDown) {
            c.step(true);
        } else if is(Action::Tab) {
            self.accept_completion(false);
        } else if is(Action::SelectConfirm) {
            self.accept_completion(true);
        } else if is(Action::SelectCancel) && !is(Action::Clear) {
            self.completion = None;
        } else {
            return false;
        }
        true
    }

    /// Put the chosen suggestion in place; a command chosen with enter runs
    /// (as the reference: from the command-name menu, enter submits).
    fn accept_completion(&mut self, enter: bool) {
        let Some(c) = self.completion.take() else { return };
        let Some(item) = c.current().cloned() else { return };
        self.editor.replace_before_cursor(c.replace, &item.value);
        if c.kind == CompletionKind::Command {
            if enter {
                self.submit();
                return;
            }
            self.editor.insert(" ");
        }
        if c.kind != CompletionKind::Command && item.value.ends_with('/') {
            self.refresh_completion();
        }
    }

    /// Suggestions for what is typed (`/` and `@` open them by themselves).
    pub(crate) fn refresh_completion(&mut self) {
        let buf = self.editor.buffer();
        let (row, _) = buf.cursor();
        self.completion =
            complete::suggest(&buf.text(), buf.before_cursor(), row == 0, &self.registry.entries(), &self.files);
    }

    fn interrupt(&mut self) {
        if self.running {
            let queued = self.controls.drain();
            if !queued.is_empty() {
                let current = self.editor.expanded_text();
                let joined: Vec<String> =
                    queued.into_iter().chain(std::iter::once(current)).filter(|t| !t.trim().is_empty()).collect();
                self.editor.set_text(&joined.join("\n\n"));
            }
            self.controls.abort.abort();
        } else if self.compacting.is_some() {
            self.controls.abort.abort();
        } else if self.bash.is_some() {
            self.outbox.push(crate::host::Request::AbortBash);
        }
    }

    fn search_key(&mut self, press: &KeyId) {
        let keys = self.keys.clone();
        let is = |a: Action| keys.matches(a, press);
        let height = self.transcript_height();
        if is(Action::SearchClose) {
            self.search = None;
            return;
        }
        let next = is(Action::SearchNext);
        let prev = is(Action::SearchPrevious);
        let Some(s) = &mut self.search else { return };
        if next || prev {
            let n = s.matches.len();
            if n > 0 {
                s.current = if next { (s.current + 1) % n } else { (s.current + n - 1) % n };
            }
        } else {
            match press.key {
                Key::Backspace => {
                    s.query.pop();
                }
                Key::Char(c) if !press.ctrl && !press.alt => s.query.push(c),
                _ => return,
            }
            s.current = 0;
        }
        self.run_search(height);
    }

    pub(crate) fn run_search(&mut self, height: usize) {
        let width = self.last_width();
        let Some(query) = self.search.as_ref().map(|s| s.query.clone()) else { return };
        let matches = self.transcript.search(&ctx!(self, width), &query);
        let Some(s) = &mut self.search else { return };
        s.matches = matches;
        if s.current >= s.matches.len() {
            s.current = 0;
        }
        if let Some(&line) = s.matches.get(s.current) {
            let p = self.transcript.pos_of(&ctx!(self, width), line.saturating_sub(height / 2));
            self.set_top(p);
        }
    }

    fn scroll_key(&mut self, press: &KeyId) -> bool {
        let keys = self.keys.clone();
        let is = |a: Action| keys.matches(a, press);
        let page = self.transcript_height().saturating_sub(1).max(1) as isize;
        let delta = if is(Action::ScrollPageUp) {
            -page
        } else if is(Action::ScrollPageDown) {
            page
        } else if is(Action::ScrollHalfPageUp) {
            -page / 2
        } else if is(Action::ScrollHalfPageDown) {
            page / 2
        } else if is(Action::ScrollLineUp) {
            -1
        } else if is(Action::ScrollLineDown) {
            1
        } else if is(Action::ScrollTop) {
            self.set_top(crate::transcript::Pos::default());
            return true;
        } else if is(Action::ScrollBottom) {
            self.scroll = None;
            return true;
        } else if is(Action::PreviousPrompt) || is(Action::NextPrompt) {
            let top = self.top(self.transcript_height());
            let prompts = self.transcript.prompt_positions();
            let found = if is(Action::PreviousPrompt) {
                prompts.iter().rev().find(|p| **p < top).copied().or(prompts.first().copied())
            } else {
                prompts.iter().find(|p| **p > top).copied()
            };
            match found {
                Some(p) => self.set_top(p),
                None => self.scroll = None,
            }
            return true;
        } else if is(Action::Search) {
            self.search = Some(Search::default());
            return true;
        } else {
            return false;
        };
        self.scroll_by(delta);
        true
    }
}
