//! The `--help` text and other fixed CLI texts.

/// `pi --help`.
pub const HELP: &str = "pi - AI coding assistant with read, bash, edit, write tools

Usage:
  pi [options] [--] [@files...] [messages...]
  pi tool NAME [ARGS_JSON | -] [--cwd DIR]   Run one built-in tool as the model would
  pi tool --list                             Print every built-in tool's spec as JSON

Options:
  --help, -h                     Show this help
  --version, -v                  Show version number

Built-in Tool Names:
  read       - Read file contents
  bash       - Execute bash commands
  powershell - Execute PowerShell commands on Windows
  edit       - Edit files with find/replace
  write      - Write files (creates/overwrites)
  grep       - Search file contents (read-only, off by default)
  find       - Find files by glob pattern (read-only, off by default)
  ls         - List directory contents (read-only, off by default)
";

/// `pi tool` usage.
pub const TOOL_USAGE: &str = "Usage: pi tool NAME [ARGS_JSON | -] [--cwd DIR]\n       pi tool --list";
