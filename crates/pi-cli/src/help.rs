//! The `--help` text and other fixed CLI texts.

/// What `pi --help` says before the options.
const HELP_HEAD: &str = "pi - a coding agent with read, bash, edit and write tools

Usage:
  pi [options] [--] [@files...] [messages...]

Commands:
  pi tool NAME [ARGS_JSON | -] [--cwd DIR] [--sandbox MODE]
                                 Run one built-in tool as a model would call it
  pi tool --list                 Print every built-in tool's spec as JSON
  pi trust status|yes|no|parent|clear|list [DIR]
                                 Read or save project trust decisions
  pi install <source> [-l]       Install a package (npm:, git: or a path) into the settings
  pi remove <source> [-l]        Remove a package from the settings (also: uninstall)
  pi update [source]             Update the installed packages
  pi list                        List the installed packages
  pi config [-l]                 Choose which resources of the packages load
  pi auth <command>              Log in or out, and see which providers are ready
  pi mcp <command>               Add, remove and list MCP servers
  pi checkpoints <command>       List, undo and restore the agent's changes to this folder
  pi <command> --help            The help of one command

";

/// What `pi --help` says after the options.
const HELP_TAIL: &str = "Extensions may add flags of their own (--plan, say); unknown --flags are kept for them.

Environment:
  OPENAI_API_KEY, ANTHROPIC_API_KEY, …  Keys of the built-in providers (docs/providers.md)
  PI_CODING_AGENT_DIR                 Agent dir (default ~/.pi/agent: models.json, auth.json, settings.json, trust.json)
  PI_CODING_AGENT_SESSION_DIR         Session folder
  PI_OFFLINE                          No start-up network use, as --offline

Built-in tools:
  read       - Read file contents
  bash       - Execute bash commands
  powershell - Execute PowerShell commands (pwsh)
  edit       - Edit files with find/replace
  write      - Write files (creates/overwrites)
  grep       - Search file contents (read-only, off by default)
  find       - Find files by glob pattern (read-only, off by default)
  ls         - List directory contents (read-only, off by default)
";

/// `pi --help`: the commands, every flag of [`crate::flags::FLAGS`] by
/// section, the environment and the built-in tools.
pub fn help() -> String {
    format!("{HELP_HEAD}{}{HELP_TAIL}", crate::flags::options_help())
}

/// `pi tool` usage.
pub const TOOL_USAGE: &str = "Usage: pi tool NAME [ARGS_JSON | -] [--cwd DIR] [-e PATH|builtin:NAME]... [--sandbox MODE] [--sandbox-network]\n       pi tool --list";
