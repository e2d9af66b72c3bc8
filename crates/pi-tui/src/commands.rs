//! Slash commands: the built-in ones (some the UI runs itself, the others it
//! hands to the host) and the ones the host adds (extensions, prompt
//! templates, skills). An added command named like a built-in is skipped.

use crate::complete::CommandEntry;
use crate::host::CommandInfo;

/// A command the UI runs itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UiCommand {
    /// `/settings`.
    Settings,
    /// `/model [pattern]`.
    Model,
    /// `/thinking [level]`.
    Thinking,
    /// `/hotkeys`.
    Hotkeys,
    /// `/copy`.
    Copy,
    /// `/trust`.
    Trust,
    /// `/quit`.
    Quit,
}

/// Who runs a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The UI.
    Ui(UiCommand),
    /// The host (sent as [`crate::host::Request::Command`]).
    Host,
    /// Sent as a prompt the host expands (templates, skills).
    Prompt,
}

/// A command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Its name, without the slash.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its argument, as a hint.
    pub argument_hint: Option<String>,
    /// Who runs it.
    pub target: Target,
    /// Suggestions for its argument.
    pub arguments: Option<crate::host::ArgumentCompleter>,
}

/// The built-in commands: name, argument hint, description, target.
const BUILTIN: &[(&str, Option<&str>, &str, Target)] = &[
    ("settings", None, "Open the settings", Target::Ui(UiCommand::Settings)),
    ("model", Some("<provider/model>"), "Choose the model", Target::Ui(UiCommand::Model)),
    ("tree", None, "Move around the session tree", Target::Host),
    ("thinking", Some("<level>"), "Set the thinking level", Target::Ui(UiCommand::Thinking)),
    ("scoped-models", None, "Choose the models model cycling goes through", Target::Host),
    ("export", Some("<path>"), "Export the session (HTML, or JSONL by extension)", Target::Host),
    ("import", Some("<path>"), "Import a JSONL session", Target::Host),
    ("share", None, "Share the session", Target::Host),
    ("bug", Some("<description>"), "Report a bug", Target::Host),
    ("copy", None, "Copy the last answer to the clipboard", Target::Ui(UiCommand::Copy)),
    ("name", Some("<name>"), "Name the session (or show its name)", Target::Host),
    ("session", None, "Show the session's file, messages and usage", Target::Host),
    ("changelog", None, "Show what changed", Target::Host),
    ("hotkeys", None, "Show the keyboard shortcuts", Target::Ui(UiCommand::Hotkeys)),
    ("fork", None, "Start a new session from an earlier prompt", Target::Host),
    ("clone", None, "Copy the session as it is now", Target::Host),
    ("trust", None, "Save a trust decision for this folder for later runs", Target::Ui(UiCommand::Trust)),
    ("login", Some("<provider>"), "Sign in to a provider", Target::Host),
    ("logout", None, "Sign out of a provider", Target::Host),
    ("new", None, "Start a new session", Target::Host),
    ("compact", Some("<instructions>"), "Compact the conversation", Target::Host),
    ("undo", None, "Restore the files as they were before the agent's last changing turn", Target::Host),
    ("resume", None, "Resume another session", Target::Host),
    ("reload", None, "Reload settings, keybindings, themes, extensions and context files", Target::Host),
    ("quit", None, "Quit pi", Target::Ui(UiCommand::Quit)),
    ("mcp", None, "MCP servers: state, tools, exposure, reconnect, enable or disable", Target::Host),
];

/// The commands of a session.
#[derive(Debug, Clone)]
pub struct CommandRegistry {
    commands: Vec<Command>,
}

impl CommandRegistry {
    /// The built-ins plus the host's commands.
    pub fn new(added: &[CommandInfo]) -> CommandRegistry {
        let mut commands: Vec<Command> = BUILTIN
            .iter()
            .map(|(name, hint, description, target)| Command {
                name: name.to_string(),
                description: description.to_string(),
                argument_hint: hint.map(String::from),
                target: *target,
                arguments: None,
            })
            .collect();
        for c in added {
            if commands.iter().any(|b| b.name == c.name) {
                continue;
            }
            commands.push(Command {
                name: crate::sanitize::clean_line(&c.name),
                description: crate::sanitize::clean_line(&c.description),
                argument_hint: c.argument_hint.as_deref().map(crate::sanitize::clean_line),
                target: if c.prompt { Target::Prompt } else { Target::Host },
                arguments: c.arguments.clone(),
            });
        }
        CommandRegistry { commands }
    }

    /// The command called `name`.
    pub fn find(&self, name: &str) -> Option<&Command> {
        self.commands.iter().find(|c| c.name == name)
    }

    /// Every command, for completion.
    pub fn entries(&self) -> Vec<CommandEntry> {
        self.commands
            .iter()
            .map(|c| CommandEntry {
                name: c.name.clone(),
                description: c.description.clone(),
                argument_hint: c.argument_hint.clone(),
                arguments: c.arguments.clone(),
            })
            .collect()
    }
}

/// Split `/name args` into the name and the rest.
pub fn parse(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix('/')?;
    let (name, args) = match rest.find(char::is_whitespace) {
        Some(i) => (&rest[..i], rest[i..].trim()),
        None => (rest, ""),
    };
    (!name.is_empty()).then_some((name, args))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_ins_win_and_commands_parse() {
        let added = [
            CommandInfo {
                name: "deploy".into(),
                description: "Ship it".into(),
                argument_hint: None,
                prompt: false,
                arguments: None,
            },
            CommandInfo {
                name: "model".into(),
                description: "shadow".into(),
                argument_hint: None,
                prompt: false,
                arguments: None,
            },
        ];
        let r = CommandRegistry::new(&added);
        assert_eq!(r.find("deploy").unwrap().target, Target::Host);
        assert_eq!(r.find("model").unwrap().target, Target::Ui(UiCommand::Model));
        assert_eq!(r.entries().iter().filter(|e| e.name == "model").count(), 1);
        assert_eq!(parse("/model  gpt-4 "), Some(("model", "gpt-4")));
        assert_eq!(parse("/quit"), Some(("quit", "")));
        assert_eq!(parse("/"), None);
        assert_eq!(parse("hello"), None);
    }
}
