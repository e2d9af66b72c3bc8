//! The `--help` text and other fixed CLI texts.

/// `pi --help`.
pub const HELP: &str = "pi - a coding agent with read, bash, edit and write tools

Usage:
  pi [options] [--] [@files...] [messages...]
  pi tool NAME [ARGS_JSON | -] [--cwd DIR] [--sandbox MODE]
                                             Run one built-in tool as a model would call it
  pi tool --list                             Print every built-in tool's spec as JSON
  pi trust status|yes|no|parent|clear|list [DIR]
                                             Read or save project trust decisions

Model:
  --model <pattern>              provider/id, id or name; \":<thinking>\" sets the thinking level
  --provider <name>              Look the model up in this provider only
  --api-key <key>                Key for this run (otherwise env vars or models.json)
  --thinking <level>             off, minimal, low, medium, high, xhigh or max
  --list-models [search]         List the models that have a key, then exit

Modes:
  --print, -p [message]          Run the messages, print the final answer, exit
  --mode <text|json|rpc>         json: one event per line; rpc: JSONL commands on stdin
  --offline                      No start-up network use (pi makes none anyway)

Prompt:
  --system-prompt <text|file>    Replace the default system prompt
  --append-system-prompt <text|file>
                                 Append to the system prompt (repeatable)
  --no-context-files, -nc        Do not load AGENTS.md / CLAUDE.md files

Tools:
  --tools, -t <list>             Allowlist (names or * patterns), or +name/-name edits of the defaults
  --exclude-tools, -xt <list>    Never offer these tools (names or * patterns)
  --no-tools, -nt                Start with no tools at all
  --no-builtin-tools, -nbt       Start with no built-in tools (extension tools stay)

Extensions:
  --extension, -e <path|builtin:name>
                                 Load an extension or a shipped policy (repeatable):
                                 builtin:permission-gate, builtin:protected-paths, builtin:approval
  --no-extensions, -ne           Load only the -e extensions

Skills and prompt templates:
  --skill <path>                 Load a skill file or folder (repeatable)
  --no-skills, -ns               Load only the --skill skills
  --prompt-template <path>       Load a prompt template file or folder (repeatable)
  --no-prompt-templates, -np     Load only the --prompt-template templates

Sessions:
  --no-session                   Keep the conversation in memory only
  --continue, -c                 Continue the most recent session of this folder
  --resume, -r                   Choose one of this folder's sessions to continue
  --session <path|id>            Continue a session file, or the session with this id (or its start)
  --session-id <id>              Id for a new session
  --fork <path|id>               Start a new session as a copy of another's active branch
  --name, -n <name>              The session's display name
  --session-dir <dir>            Where sessions are kept (also PI_CODING_AGENT_SESSION_DIR)
  --export <file> [output]       Write a session file as an HTML page, then exit

Sandbox (commands, write and edit; docs/sandbox.md):
  --sandbox <mode>               off (default), read-only or workspace-write
  --sandbox-network              Let sandboxed commands use the network

Project trust:
  --approve, -a                  Trust this folder's .pi resources for this run
  --no-approve, -na              Ignore this folder's .pi resources for this run

Other:
  --help, -h                     Show this help
  --version, -v                  Show the version

Environment:
  OPENAI_API_KEY, ANTHROPIC_API_KEY   Keys of the built-in providers
  PI_CODING_AGENT_DIR                 Agent dir (default ~/.pi/agent: models.json, settings.json, trust.json)
  PI_CODING_AGENT_SESSION_DIR         Session folder

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

/// `pi tool` usage.
pub const TOOL_USAGE: &str = "Usage: pi tool NAME [ARGS_JSON | -] [--cwd DIR] [-e PATH|builtin:NAME]... [--sandbox MODE] [--sandbox-network]\n       pi tool --list";
