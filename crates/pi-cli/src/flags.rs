//! Every flag of the command line, written once: its spellings, what it
//! takes, where `--help` lists it and with which words, and what it does to
//! [`CliArgs`]. The parser (`cli_args.rs`) and the help text (`help.rs`)
//! are both read from [`FLAGS`]; a new flag is one entry here.

use crate::cli_args::{CliArgs, Mode, csv};
use crate::text;

/// What a flag takes from the arguments after it.
pub(crate) enum Takes {
    /// Nothing.
    Nothing(fn(&mut CliArgs)),
    /// The next argument, whatever it looks like (the placeholder `--help`
    /// shows, and what to do with the value; the flag is passed as typed).
    /// At the end of the line the flag is not recognised at all: a long one
    /// is kept for extensions, a short one is an unknown option.
    Value(&'static str, fn(&mut CliArgs, &str, String)),
    /// A rule of its own (the placeholder `--help` shows, and the rule:
    /// given the next argument, it returns how many arguments it used).
    Own(&'static str, fn(&mut CliArgs, Option<&String>) -> usize),
}

/// Where `--help` lists a flag, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    Model,
    Modes,
    Prompt,
    Tools,
    Extensions,
    Resources,
    Sessions,
    Sandbox,
    Trust,
    Other,
}

impl Section {
    /// Every section, in the order `--help` shows them.
    pub(crate) const ALL: [Section; 10] = [
        Section::Model,
        Section::Modes,
        Section::Prompt,
        Section::Tools,
        Section::Extensions,
        Section::Resources,
        Section::Sessions,
        Section::Sandbox,
        Section::Trust,
        Section::Other,
    ];

    /// Its heading in `--help`.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Section::Model => "Model",
            Section::Modes => "Modes",
            Section::Prompt => "Prompt",
            Section::Tools => "Tools",
            Section::Extensions => "Extensions",
            Section::Resources => "Skills, prompt templates and themes",
            Section::Sessions => "Sessions",
            Section::Sandbox => "Sandbox (commands, write and edit; docs/sandbox.md)",
            Section::Trust => "Project trust",
            Section::Other => "Other",
        }
    }
}

/// One flag.
pub(crate) struct Flag {
    /// `--name`.
    pub long: &'static str,
    /// `-x`, `-nt` (pi's short flags may have several letters).
    pub short: Option<&'static str>,
    /// What it takes.
    pub takes: Takes,
    /// Where `--help` lists it.
    pub section: Section,
    /// Its lines in `--help`.
    pub help: &'static [&'static str],
}

impl Flag {
    /// Whether `arg` is this flag, exactly as spelled.
    pub(crate) fn is(&self, arg: &str) -> bool {
        self.long == arg || self.short == Some(arg)
    }
}

/// The flag spelled `arg` (exactly: `--model=x` is no known flag).
pub(crate) fn find(arg: &str) -> Option<&'static Flag> {
    FLAGS.iter().find(|f| f.is(arg))
}

/// An optional value: the next argument unless it looks like a flag or a file.
pub(crate) fn optional_value(next: Option<&String>) -> Option<String> {
    next.filter(|n| !n.starts_with('-') && !n.starts_with('@')).cloned()
}

fn mode(a: &mut CliArgs, next: Option<&String>) -> usize {
    let Some(m) = next.filter(|m| !m.starts_with('-')) else {
        a.error(text::MODE_REQUIRES_VALUE.to_string());
        return 0;
    };
    match m.as_str() {
        "text" => a.mode = Mode::Text,
        "json" => a.mode = Mode::Json,
        "rpc" => a.mode = Mode::Rpc,
        "acp" => a.mode = Mode::Acp,
        _ => {
            a.error(text::invalid_mode(m));
            return 1;
        }
    }
    a.mode_given = true;
    1
}

fn print(a: &mut CliArgs, next: Option<&String>) -> usize {
    a.print = true;
    // A message follows unless it is a file or a flag (`---text` is a message).
    match next.filter(|n| !n.starts_with('@') && (!n.starts_with('-') || n.starts_with("---"))) {
        Some(n) => {
            a.messages.push(n.clone());
            1
        }
        None => 0,
    }
}

fn name(a: &mut CliArgs, next: Option<&String>) -> usize {
    match next {
        Some(v) => {
            a.name = Some(v.clone());
            1
        }
        None => {
            a.error(text::NAME_REQUIRES_VALUE.to_string());
            0
        }
    }
}

fn use_theme(a: &mut CliArgs, next: Option<&String>) -> usize {
    match next.filter(|v| !v.starts_with('-')) {
        Some(v) => {
            a.use_theme = Some(v.clone());
            1
        }
        None => {
            a.error(text::USE_THEME_REQUIRES_NAME.to_string());
            0
        }
    }
}

fn tui_mode(a: &mut CliArgs, next: Option<&String>) -> usize {
    match next.map(String::as_str) {
        Some(m @ ("regular" | "fullscreen")) => {
            a.tui_mode = Some(m.to_string());
            1
        }
        Some(m) if !m.starts_with('-') => {
            a.error(text::invalid_tui_mode(m));
            1
        }
        _ => {
            a.error(text::TUI_MODE_REQUIRES_VALUE.to_string());
            0
        }
    }
}

fn list_models(a: &mut CliArgs, next: Option<&String>) -> usize {
    let search = optional_value(next);
    let used = usize::from(search.is_some());
    a.list_models = Some(search);
    used
}

fn sandbox(a: &mut CliArgs, next: Option<&String>) -> usize {
    let Some(m) = next.filter(|m| !m.starts_with('-')) else {
        a.error(pi_sandbox::text::SANDBOX_REQUIRES_MODE.to_string());
        return 0;
    };
    match pi_sandbox::Mode::parse(m) {
        Some(mode) => a.sandbox.mode = Some(mode),
        None => a.error(pi_sandbox::text::invalid_mode(m)),
    }
    1
}

fn tools(a: &mut CliArgs, flag: &str, v: String) {
    let entries = csv(&v);
    match pi_config::tool_selection::tool_list_error(&entries) {
        Some(e) => a.error(text::flag_error(flag, &e)),
        None => a.tools = Some((flag.to_string(), entries)),
    }
}

fn thinking(a: &mut CliArgs, _: &str, v: String) {
    if text::THINKING_LEVELS.contains(&v.as_str()) {
        a.thinking = Some(v);
    } else {
        a.warning(text::invalid_thinking_level(&v));
    }
}

/// Every flag pi knows, in `--help` order within each section.
pub(crate) static FLAGS: &[Flag] = &[
    // Model
    Flag {
        long: "--model",
        short: None,
        takes: Takes::Value("<pattern>", |a, _, v| a.model = Some(v)),
        section: Section::Model,
        help: &["provider/id, id or name; \":<thinking>\" sets the thinking level"],
    },
    Flag {
        long: "--provider",
        short: None,
        takes: Takes::Value("<name>", |a, _, v| a.provider = Some(v)),
        section: Section::Model,
        help: &["Look the model up in this provider only"],
    },
    Flag {
        long: "--api-key",
        short: None,
        takes: Takes::Value("<key>", |a, _, v| a.api_key = Some(v)),
        section: Section::Model,
        help: &["Key for this run (otherwise env vars, auth.json or models.json)"],
    },
    Flag {
        long: "--thinking",
        short: None,
        takes: Takes::Value("<level>", thinking),
        section: Section::Model,
        help: &["off, minimal, low, medium, high, xhigh or max"],
    },
    Flag {
        long: "--models",
        short: None,
        takes: Takes::Value("<patterns>", |a, _, v| a.models = Some(csv(&v))),
        section: Section::Model,
        help: &["Comma-separated patterns of the models Ctrl+P goes through"],
    },
    Flag {
        long: "--list-models",
        short: None,
        takes: Takes::Own("[search]", list_models),
        section: Section::Model,
        help: &["List the models that have a key, then exit"],
    },
    // Modes
    Flag {
        long: "--print",
        short: Some("-p"),
        takes: Takes::Own("[message]", print),
        section: Section::Modes,
        help: &["Run the messages, print the final answer, exit"],
    },
    Flag {
        long: "--mode",
        short: None,
        takes: Takes::Own("<text|json|rpc|acp>", mode),
        section: Section::Modes,
        help: &["json: one event per line; rpc: JSONL commands on stdin; acp: the Agent Client Protocol for editors"],
    },
    Flag {
        long: "--tui-mode",
        short: None,
        takes: Takes::Own("<mode>", tui_mode),
        section: Section::Modes,
        help: &["The terminal UI: fullscreen (default) or regular"],
    },
    Flag {
        long: "--offline",
        short: None,
        takes: Takes::Nothing(|a| a.offline = true),
        section: Section::Modes,
        help: &["No start-up network use (package installs, update checks)"],
    },
    Flag {
        long: "--verbose",
        short: None,
        takes: Takes::Nothing(|a| a.verbose = true),
        section: Section::Modes,
        help: &["Accepted as Pi accepts it; pi's start-up output does not change with it"],
    },
    // Prompt
    Flag {
        long: "--system-prompt",
        short: None,
        takes: Takes::Value("<text|file>", |a, _, v| a.system_prompt = Some(v)),
        section: Section::Prompt,
        help: &["Replace the default system prompt"],
    },
    Flag {
        long: "--append-system-prompt",
        short: None,
        takes: Takes::Value("<text|file>", |a, _, v| a.append_system_prompt.push(v)),
        section: Section::Prompt,
        help: &["Append to the system prompt (repeatable)"],
    },
    Flag {
        long: "--no-context-files",
        short: Some("-nc"),
        takes: Takes::Nothing(|a| a.no_context_files = true),
        section: Section::Prompt,
        help: &["Do not load AGENTS.md / CLAUDE.md files"],
    },
    // Tools
    Flag {
        long: "--tools",
        short: Some("-t"),
        takes: Takes::Value("<list>", tools),
        section: Section::Tools,
        help: &["Allowlist (names or * patterns), or +name/-name edits of the defaults"],
    },
    Flag {
        long: "--exclude-tools",
        short: Some("-xt"),
        takes: Takes::Value("<list>", |a, _, v| a.exclude_tools = Some(csv(&v))),
        section: Section::Tools,
        help: &["Never offer these tools (names or * patterns, MCP tools included)"],
    },
    Flag {
        long: "--no-tools",
        short: Some("-nt"),
        takes: Takes::Nothing(|a| a.no_tools = true),
        section: Section::Tools,
        help: &["Start with no tools at all"],
    },
    Flag {
        long: "--no-builtin-tools",
        short: Some("-nbt"),
        takes: Takes::Nothing(|a| a.no_builtin_tools = true),
        section: Section::Tools,
        help: &["Start with no built-in tools (extension tools stay)"],
    },
    // Extensions
    Flag {
        long: "--extension",
        short: Some("-e"),
        takes: Takes::Value("<path|builtin:name>", |a, _, v| a.extensions.push(v)),
        section: Section::Extensions,
        help: &[
            "Load an extension or a shipped policy (repeatable):",
            "builtin:permission-gate, builtin:protected-paths, builtin:approval;",
            "npm:<package> and git:<url> load a package for this run only",
        ],
    },
    Flag {
        long: "--no-extensions",
        short: Some("-ne"),
        takes: Takes::Nothing(|a| a.no_extensions = true),
        section: Section::Extensions,
        help: &["Load only the -e extensions"],
    },
    Flag {
        long: "--no-mcp",
        short: None,
        takes: Takes::Nothing(|a| a.no_mcp = true),
        section: Section::Extensions,
        help: &["No MCP servers and no MCP tools for this run"],
    },
    // Skills, prompt templates and themes
    Flag {
        long: "--skill",
        short: None,
        takes: Takes::Value("<path>", |a, _, v| a.skills.push(v)),
        section: Section::Resources,
        help: &["Load a skill file or folder (repeatable)"],
    },
    Flag {
        long: "--no-skills",
        short: Some("-ns"),
        takes: Takes::Nothing(|a| a.no_skills = true),
        section: Section::Resources,
        help: &["Load only the --skill skills"],
    },
    Flag {
        long: "--prompt-template",
        short: None,
        takes: Takes::Value("<path>", |a, _, v| a.prompt_templates.push(v)),
        section: Section::Resources,
        help: &["Load a prompt template file or folder (repeatable)"],
    },
    Flag {
        long: "--no-prompt-templates",
        short: Some("-np"),
        takes: Takes::Nothing(|a| a.no_prompt_templates = true),
        section: Section::Resources,
        help: &["Load only the --prompt-template templates"],
    },
    Flag {
        long: "--theme",
        short: None,
        takes: Takes::Value("<path>", |a, _, v| a.theme_paths.push(v)),
        section: Section::Resources,
        help: &["Load a theme file or folder (repeatable)"],
    },
    Flag {
        long: "--use-theme",
        short: None,
        takes: Takes::Own("<name>", use_theme),
        section: Section::Resources,
        help: &["The terminal UI's theme for this run"],
    },
    Flag {
        long: "--no-themes",
        short: None,
        takes: Takes::Nothing(|a| a.no_themes = true),
        section: Section::Resources,
        help: &["Do not look for theme files"],
    },
    // Sessions
    Flag {
        long: "--no-session",
        short: None,
        takes: Takes::Nothing(|a| a.no_session = true),
        section: Section::Sessions,
        help: &["Keep the conversation in memory only"],
    },
    Flag {
        long: "--continue",
        short: Some("-c"),
        takes: Takes::Nothing(|a| a.continue_session = true),
        section: Section::Sessions,
        help: &["Continue the most recent session of this folder"],
    },
    Flag {
        long: "--resume",
        short: Some("-r"),
        takes: Takes::Nothing(|a| a.resume = true),
        section: Section::Sessions,
        help: &["Choose one of this folder's sessions to continue"],
    },
    Flag {
        long: "--session",
        short: None,
        takes: Takes::Value("<path|id>", |a, _, v| a.session = Some(v)),
        section: Section::Sessions,
        help: &["Continue a session file, or the session with this id (or its start)"],
    },
    Flag {
        long: "--session-id",
        short: None,
        takes: Takes::Value("<id>", |a, _, v| a.session_id = Some(v)),
        section: Section::Sessions,
        help: &["Id for a new session"],
    },
    Flag {
        long: "--fork",
        short: None,
        takes: Takes::Value("<path|id>", |a, _, v| a.fork = Some(v)),
        section: Section::Sessions,
        help: &["Start a new session as a copy of another's active branch"],
    },
    Flag {
        long: "--name",
        short: Some("-n"),
        takes: Takes::Own("<name>", name),
        section: Section::Sessions,
        help: &["The session's display name"],
    },
    Flag {
        long: "--session-dir",
        short: None,
        takes: Takes::Value("<dir>", |a, _, v| a.session_dir = Some(v)),
        section: Section::Sessions,
        help: &["Where sessions are kept (also PI_CODING_AGENT_SESSION_DIR)"],
    },
    Flag {
        long: "--export",
        short: None,
        takes: Takes::Value("<file> [output]", |a, _, v| a.export = Some(v)),
        section: Section::Sessions,
        help: &["Write a session file as an HTML page, then exit"],
    },
    // Sandbox
    Flag {
        long: "--sandbox",
        short: None,
        takes: Takes::Own("<mode>", sandbox),
        section: Section::Sandbox,
        help: &["off (default), read-only or workspace-write"],
    },
    Flag {
        long: "--sandbox-network",
        short: None,
        takes: Takes::Nothing(|a| a.sandbox.network = true),
        section: Section::Sandbox,
        help: &["Let sandboxed commands use the network"],
    },
    // Project trust
    Flag {
        long: "--approve",
        short: Some("-a"),
        takes: Takes::Nothing(|a| a.approve = Some(true)),
        section: Section::Trust,
        help: &["Trust this folder's .pi resources for this run"],
    },
    Flag {
        long: "--no-approve",
        short: Some("-na"),
        takes: Takes::Nothing(|a| a.approve = Some(false)),
        section: Section::Trust,
        help: &["Ignore this folder's .pi resources for this run"],
    },
    // Other
    Flag {
        long: "--help",
        short: Some("-h"),
        takes: Takes::Nothing(|a| a.help = true),
        section: Section::Other,
        help: &["Show this help"],
    },
    Flag {
        long: "--version",
        short: Some("-v"),
        takes: Takes::Nothing(|a| a.version = true),
        section: Section::Other,
        help: &["Show the version"],
    },
];

/// Where the help text of a flag starts (the spellings are padded to it).
const HELP_COLUMN: usize = 33;

/// The options part of `--help`, generated from [`FLAGS`].
pub(crate) fn options_help() -> String {
    let mut out = String::new();
    for section in Section::ALL {
        out.push_str(section.title());
        out.push_str(":\n");
        for flag in FLAGS.iter().filter(|f| f.section == section) {
            let mut left = format!("  {}", flag.long);
            if let Some(s) = flag.short {
                left.push_str(", ");
                left.push_str(s);
            }
            let placeholder = match flag.takes {
                Takes::Nothing(_) => "",
                Takes::Value(p, _) | Takes::Own(p, _) => p,
            };
            if !placeholder.is_empty() {
                left.push(' ');
                left.push_str(placeholder);
            }
            let mut lines = flag.help.iter();
            if left.len() < HELP_COLUMN - 1 {
                let first = lines.next().copied().unwrap_or_default();
                out.push_str(&format!("{left:<HELP_COLUMN$}{first}\n"));
            } else {
                out.push_str(&left);
                out.push('\n');
            }
            for line in lines {
                out.push_str(&format!("{:HELP_COLUMN$}{line}\n", ""));
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_is_unique_and_looks_like_a_flag() {
        let mut seen = std::collections::HashSet::new();
        for f in FLAGS {
            assert!(f.long.starts_with("--") && f.long.len() > 3, "{}", f.long);
            assert!(seen.insert(f.long), "{} twice", f.long);
            if let Some(s) = f.short {
                assert!(s.starts_with('-') && !s.starts_with("--"), "{s}");
                assert!(seen.insert(s), "{s} twice");
            }
            assert!(!f.help.is_empty(), "{} has no help", f.long);
        }
    }

    #[test]
    fn the_help_lists_every_flag_in_its_section() {
        let help = options_help();
        for f in FLAGS {
            assert!(help.contains(f.long), "{} missing", f.long);
            if let Some(s) = f.short {
                assert!(help.contains(&format!("{}, {s}", f.long)), "{s} missing");
            }
        }
        for s in Section::ALL {
            assert!(help.contains(&format!("{}:\n", s.title())), "{s:?}");
        }
        assert!(help.contains("  --model <pattern>              provider/id"), "{help}");
        // A long left part goes on a line of its own.
        assert!(
            help.contains("  --append-system-prompt <text|file>\n                                 Append"),
            "{help}"
        );
    }
}
