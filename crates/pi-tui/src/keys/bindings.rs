//! Named actions (`app.tools.expand`, `tui.editor.undo`, …), their default
//! keys (the reference's docs/keybindings.md on Linux and macOS) and the
//! overrides of `<agent-dir>/keybindings.json`: an action mapped to one key
//! or a list replaces its defaults; an empty list disables it.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::{KeyId, key_name_title};
use crate::text;

macro_rules! actions {
    ($($variant:ident $id:literal [$($key:literal),*] $desc:literal;)*) => {
        /// An action keys can be bound to.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum Action { $($variant,)* }

        impl Action {
            /// Every action, in documentation order.
            pub const ALL: &'static [Action] = &[$(Action::$variant,)*];
            /// The id `keybindings.json` uses.
            pub fn id(self) -> &'static str {
                match self { $(Action::$variant => $id,)* }
            }
            /// The default keys.
            pub fn default_keys(self) -> &'static [&'static str] {
                match self { $(Action::$variant => &[$($key),*],)* }
            }
            /// What it does, for `/hotkeys`.
            pub fn description(self) -> &'static str {
                match self { $(Action::$variant => $desc,)* }
            }
        }
    };
}

actions! {
    CursorUp "tui.editor.cursorUp" ["up"] "Move up (older history at the top)";
    CursorDown "tui.editor.cursorDown" ["down"] "Move down (newer history at the bottom)";
    HistoryPrevious "tui.editor.historyPrevious" [] "Previous prompt from history";
    HistoryNext "tui.editor.historyNext" [] "Next prompt from history";
    CursorLeft "tui.editor.cursorLeft" ["left", "ctrl+b"] "Move left";
    CursorRight "tui.editor.cursorRight" ["right", "ctrl+f"] "Move right";
    CursorWordLeft "tui.editor.cursorWordLeft" ["alt+left", "ctrl+left", "alt+b"] "Move one word left";
    CursorWordRight "tui.editor.cursorWordRight" ["alt+right", "ctrl+right", "alt+f"] "Move one word right";
    CursorLineStart "tui.editor.cursorLineStart" ["home", "ctrl+a"] "Go to the start of the line";
    CursorLineEnd "tui.editor.cursorLineEnd" ["end", "ctrl+e"] "Go to the end of the line";
    JumpForward "tui.editor.jumpForward" ["ctrl+]"] "Jump forward to a character";
    JumpBackward "tui.editor.jumpBackward" ["ctrl+alt+]"] "Jump back to a character";
    EditorPageUp "tui.editor.pageUp" ["pageUp", "ctrl+pageUp"] "Scroll the editor up a page";
    EditorPageDown "tui.editor.pageDown" ["pageDown", "ctrl+pageDown"] "Scroll the editor down a page";
    DeleteCharBackward "tui.editor.deleteCharBackward" ["backspace"] "Delete the character before the cursor";
    DeleteCharForward "tui.editor.deleteCharForward" ["delete", "ctrl+d"] "Delete the character under the cursor";
    DeleteWordBackward "tui.editor.deleteWordBackward" ["ctrl+w", "alt+backspace"] "Delete the word before the cursor";
    DeleteWordForward "tui.editor.deleteWordForward" ["alt+d", "alt+delete"] "Delete the word after the cursor";
    DeleteToLineStart "tui.editor.deleteToLineStart" ["ctrl+u"] "Delete to the start of the line";
    DeleteToLineEnd "tui.editor.deleteToLineEnd" ["ctrl+k"] "Delete to the end of the line";
    Yank "tui.editor.yank" ["ctrl+y"] "Paste the last deleted text";
    YankPop "tui.editor.yankPop" ["alt+y"] "Cycle through deleted text after pasting";
    Undo "tui.editor.undo" ["ctrl+-"] "Undo";
    NewLine "tui.input.newLine" ["shift+enter", "ctrl+j"] "New line";
    Submit "tui.input.submit" ["enter"] "Send";
    Tab "tui.input.tab" ["tab"] "Complete a path or accept a suggestion";
    Copy "tui.input.copy" ["ctrl+c"] "Copy the selection";
    SelectUp "tui.select.up" ["up"] "Selection up";
    SelectDown "tui.select.down" ["down"] "Selection down";
    SelectPageUp "tui.select.pageUp" ["pageUp"] "Selection up a page";
    SelectPageDown "tui.select.pageDown" ["pageDown"] "Selection down a page";
    SelectConfirm "tui.select.confirm" ["enter"] "Choose the selection";
    SelectCancel "tui.select.cancel" ["escape", "ctrl+c"] "Cancel";
    ScrollPageUp "tui.altScreen.pageUp" ["pageUp"] "Transcript up a page";
    ScrollPageDown "tui.altScreen.pageDown" ["pageDown"] "Transcript down a page";
    ScrollHalfPageUp "tui.altScreen.halfPageUp" [] "Transcript up half a page";
    ScrollHalfPageDown "tui.altScreen.halfPageDown" [] "Transcript down half a page";
    ScrollLineUp "tui.altScreen.lineUp" [] "Transcript up a line";
    ScrollLineDown "tui.altScreen.lineDown" [] "Transcript down a line";
    PreviousPrompt "tui.altScreen.previousPrompt" ["ctrl+shift+up"] "Jump to the previous prompt";
    NextPrompt "tui.altScreen.nextPrompt" ["ctrl+shift+down"] "Jump to the next prompt";
    Search "tui.altScreen.search" ["ctrl+shift+f"] "Search the transcript";
    SearchNext "tui.altScreen.searchNext" ["enter", "ctrl+g"] "Next match";
    SearchPrevious "tui.altScreen.searchPrevious" ["shift+enter", "ctrl+shift+g"] "Previous match";
    SearchClose "tui.altScreen.searchClose" ["escape"] "Close the search";
    ScrollTop "tui.altScreen.top" ["ctrl+home"] "Go to the start of the transcript";
    ScrollBottom "tui.altScreen.bottom" ["ctrl+end"] "Go to the end and follow new output";
    Interrupt "app.interrupt" ["escape"] "Cancel / stop the run";
    Clear "app.clear" ["ctrl+c"] "Clear the editor (first) / quit (second)";
    Exit "app.exit" ["ctrl+d"] "Quit (editor empty)";
    Suspend "app.suspend" ["ctrl+z"] "Suspend to the background";
    ExternalEditor "app.editor.external" ["ctrl+g"] "Edit the prompt in an external editor";
    PasteImage "app.clipboard.pasteImage" ["ctrl+v"] "Paste an image or text from the clipboard";
    SessionNew "app.session.new" [] "Start a new session";
    SessionTree "app.session.tree" [] "Open the session tree";
    SessionFork "app.session.fork" [] "Fork the session";
    SessionResume "app.session.resume" [] "Resume a session";
    SessionTogglePath "app.session.togglePath" ["ctrl+p"] "Show or hide paths";
    SessionToggleSort "app.session.toggleSort" ["ctrl+s"] "Change the sort order";
    SessionToggleNamedFilter "app.session.toggleNamedFilter" ["ctrl+n"] "Named sessions only";
    SessionRename "app.session.rename" ["ctrl+r"] "Rename the session";
    SessionDelete "app.session.delete" ["ctrl+d"] "Delete the session";
    SessionDeleteNoninvasive "app.session.deleteNoninvasive" ["ctrl+backspace"] "Delete the session (empty query)";
    ModelSelect "app.model.select" ["ctrl+l"] "Open the model selector";
    ModelCycleForward "app.model.cycleForward" ["ctrl+p"] "Next model";
    ModelCycleBackward "app.model.cycleBackward" ["shift+ctrl+p"] "Previous model";
    ModelsSave "app.models.save" ["ctrl+s"] "Save the model choice to settings";
    ThinkingCycle "app.thinking.cycle" ["shift+tab"] "Next thinking level";
    ThinkingSave "app.thinking.save" ["ctrl+s"] "Save the thinking level to settings";
    ThinkingToggle "app.thinking.toggle" ["ctrl+t"] "Show or hide thinking blocks";
    ToolsExpand "app.tools.expand" ["ctrl+o"] "Expand or collapse tool output";
    MessageCopy "app.message.copy" ["ctrl+x"] "Copy the last answer";
    FollowUp "app.message.followUp" ["alt+enter"] "Queue a follow-up message";
    Dequeue "app.message.dequeue" ["alt+up"] "Put queued messages back in the editor";
    TreeFoldOrUp "app.tree.foldOrUp" ["ctrl+left", "alt+left"] "Fold the branch or go up";
    TreeUnfoldOrDown "app.tree.unfoldOrDown" ["ctrl+right", "alt+right"] "Unfold the branch or go down";
    TreeEditLabel "app.tree.editLabel" ["shift+l"] "Edit the label";
    TreeToggleLabelTimestamp "app.tree.toggleLabelTimestamp" ["shift+t"] "Show or hide label times";
    TreeFilterDefault "app.tree.filter.default" ["ctrl+d"] "Default tree view";
    TreeFilterNoTools "app.tree.filter.noTools" ["ctrl+t"] "Hide tool results";
    TreeFilterUserOnly "app.tree.filter.userOnly" ["ctrl+u"] "User messages only";
    TreeFilterLabeledOnly "app.tree.filter.labeledOnly" ["ctrl+l"] "Labelled entries only";
    TreeFilterAll "app.tree.filter.all" ["ctrl+a"] "All entries";
    TreeFilterCycleForward "app.tree.filter.cycleForward" ["ctrl+o"] "Next tree filter";
    TreeFilterCycleBackward "app.tree.filter.cycleBackward" ["shift+ctrl+o"] "Previous tree filter";
    ModelsEnableAll "app.models.enableAll" ["ctrl+a"] "Enable all models";
    ModelsClearAll "app.models.clearAll" ["ctrl+x"] "Clear all models";
    ModelsToggleProvider "app.models.toggleProvider" ["ctrl+p"] "Toggle a provider's models";
    ModelsReorderUp "app.models.reorderUp" ["alt+up"] "Move the model up";
    ModelsReorderDown "app.models.reorderDown" ["alt+down"] "Move the model down";
}

/// The keys of every action, defaults replaced by `keybindings.json`.
#[derive(Debug, Clone)]
pub struct Keybindings {
    keys: HashMap<Action, Vec<KeyId>>,
    /// Actions the file names that are not built in (extensions' own), kept for them.
    extra: HashMap<String, Vec<KeyId>>,
}

impl Default for Keybindings {
    fn default() -> Self {
        Keybindings::defaults()
    }
}

impl Keybindings {
    /// The default keys.
    pub fn defaults() -> Keybindings {
        let keys = Action::ALL
            .iter()
            .map(|a| (*a, a.default_keys().iter().filter_map(|k| KeyId::parse(k).ok()).collect()))
            .collect();
        Keybindings { keys, extra: HashMap::new() }
    }

    /// The defaults with the overrides of `path` (`keybindings.json`); the
    /// warnings say what was ignored.
    pub fn load(path: &Path) -> (Keybindings, Vec<String>) {
        let mut kb = Keybindings::defaults();
        let body = match pi_config::files::read_config_text(path) {
            Ok(Some(b)) => b,
            Ok(None) => return (kb, Vec::new()),
            Err(e) => return (kb, vec![text::keybindings_unreadable(path, &e.to_string())]),
        };
        let warnings = match serde_json::from_str::<Value>(&body) {
            Ok(v) => kb.apply(&v, path),
            Err(e) => vec![text::keybindings_unreadable(path, &e.to_string())],
        };
        (kb, warnings)
    }

    /// Apply a `keybindings.json` object; the warnings say what was ignored.
    pub fn apply(&mut self, v: &Value, path: &Path) -> Vec<String> {
        let mut warnings = Vec::new();
        let Some(obj) = v.as_object() else {
            return vec![text::keybindings_unreadable(path, text::KEYBINDINGS_NOT_OBJECT)];
        };
        for (id, value) in obj {
            if id.starts_with('$') {
                continue;
            }
            let names: Vec<&str> = match value {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => {
                    warnings.push(text::keybinding_bad_value(id));
                    continue;
                }
            };
            let mut keys = Vec::new();
            for n in names {
                match KeyId::parse(n) {
                    Ok(k) => keys.push(k),
                    Err(e) => warnings.push(format!("{id}: {e}")),
                }
            }
            match Action::ALL.iter().find(|a| a.id() == id) {
                Some(a) => {
                    self.keys.insert(*a, keys);
                }
                None => {
                    self.extra.insert(id.clone(), keys);
                }
            }
        }
        warnings
    }

    /// Whether `press` triggers `action`.
    pub fn matches(&self, action: Action, press: &KeyId) -> bool {
        self.keys.get(&action).is_some_and(|ks| ks.iter().any(|k| k.matches(press)))
    }

    /// Whether `press` triggers the action with id `id` (built in or an extension's).
    pub fn matches_id(&self, id: &str, press: &KeyId) -> bool {
        match Action::ALL.iter().find(|a| a.id() == id) {
            Some(a) => self.matches(*a, press),
            None => self.extra.get(id).is_some_and(|ks| ks.iter().any(|k| k.matches(press))),
        }
    }

    /// The keys of an action.
    pub fn keys(&self, action: Action) -> &[KeyId] {
        self.keys.get(&action).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The first key of an action as hints show it (`ctrl+o`); empty when unbound.
    pub fn hint(&self, action: Action) -> String {
        self.keys(action).first().map(KeyId::display).unwrap_or_default()
    }

    /// Every key of an action for `/hotkeys` (`Ctrl+P / Shift+Ctrl+P`).
    pub fn titles(&self, action: Action) -> String {
        self.keys(action).iter().map(|k| key_name_title(&k.display())).collect::<Vec<_>>().join(" / ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::Key;

    #[test]
    fn defaults_parse() {
        for a in Action::ALL {
            assert_eq!(Keybindings::defaults().keys(*a).len(), a.default_keys().len(), "{}", a.id());
        }
    }

    #[test]
    fn overrides_replace_and_disable() {
        let mut kb = Keybindings::defaults();
        let w = kb.apply(
            &serde_json::json!({
                "$schema": "x",
                "app.tools.expand": "ctrl+e",
                "tui.altScreen.pageUp": [],
                "app.model.select": ["f2", "nonsense+x"],
                "my.ext.action": "alt+x",
                "app.exit": 5
            }),
            Path::new("kb.json"),
        );
        assert_eq!(w.len(), 2, "{w:?}");
        let ctrl_e = KeyId::parse("ctrl+e").unwrap();
        assert!(kb.matches(Action::ToolsExpand, &ctrl_e));
        assert!(!kb.matches(Action::ToolsExpand, &KeyId::parse("ctrl+o").unwrap()));
        assert!(kb.keys(Action::ScrollPageUp).is_empty());
        assert_eq!(kb.keys(Action::ModelSelect), [KeyId::plain(Key::F(2))]);
        assert!(kb.matches_id("my.ext.action", &KeyId::parse("alt+x").unwrap()));
        assert_eq!(kb.hint(Action::Interrupt), "escape");
        assert_eq!(kb.titles(Action::ModelCycleForward), "Ctrl+P");
    }
}
