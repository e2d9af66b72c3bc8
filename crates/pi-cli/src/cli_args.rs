//! The command line, parsed the way the reference parses it: long flags,
//! multi-letter short flags (`-nt`, `-xt`, `-nbt`), `@file` arguments, `--` to
//! end options. A value flag takes the next argument whatever it looks like;
//! at the end of the line it is not recognised at all (a long one becomes an
//! unknown flag, a short one an error). Unknown `--flag[=value]` are kept for
//! extensions; `=` is understood for those only. Problems are collected as
//! diagnostics in argument order, not returned at the first one.
//! (clap cannot express multi-letter short options, hence this small parser.)
//! The flags themselves are one table, [`crate::flags::FLAGS`].

use crate::text;

/// Output mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Plain text (print or interactive).
    #[default]
    Text,
    /// JSON event stream.
    Json,
    /// JSONL commands and responses over stdin/stdout.
    Rpc,
    /// The Agent Client Protocol over stdin/stdout (editors).
    Acp,
}

/// A problem found on the command line (or while starting up), printed as
/// `Error: …` or `Warning: …` on standard error; any error ends the run with
/// exit status 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Diagnostic {
    /// Stops the run.
    Error(String),
    /// Reported only.
    Warning(String),
}

impl Diagnostic {
    /// Whether this stops the run.
    pub fn is_error(&self) -> bool {
        matches!(self, Diagnostic::Error(_))
    }

    /// The line printed for it.
    pub fn line(&self) -> String {
        match self {
            Diagnostic::Error(m) => format!("Error: {m}"),
            Diagnostic::Warning(m) => format!("Warning: {m}"),
        }
    }
}

/// Print diagnostics to standard error; whether any was an error.
pub fn report(diagnostics: &[Diagnostic]) -> bool {
    for d in diagnostics {
        eprintln!("{}", d.line());
    }
    diagnostics.iter().any(Diagnostic::is_error)
}

/// Everything the command line said.
#[derive(Debug, Clone, Default)]
pub struct CliArgs {
    /// `--help`.
    pub help: bool,
    /// `--version`.
    pub version: bool,
    /// `--mode`.
    pub mode: Mode,
    /// Whether `--mode` was given (valid).
    pub mode_given: bool,
    /// `--print`/`-p`.
    pub print: bool,
    /// `--continue`/`-c`.
    pub continue_session: bool,
    /// `--resume`/`-r`.
    pub resume: bool,
    /// `--provider`.
    pub provider: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--api-key`.
    pub api_key: Option<String>,
    /// `--system-prompt`.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt` (repeatable).
    pub append_system_prompt: Vec<String>,
    /// `--name` as given (a blank one is an error at start-up).
    pub name: Option<String>,
    /// `--no-session`.
    pub no_session: bool,
    /// `--session`.
    pub session: Option<String>,
    /// `--session-id`.
    pub session_id: Option<String>,
    /// `--fork`.
    pub fork: Option<String>,
    /// `--session-dir`.
    pub session_dir: Option<String>,
    /// `--export <session file>` (the first message is the output path).
    pub export: Option<String>,
    /// `--models` patterns (the last flag's).
    pub models: Option<Vec<String>>,
    /// `--no-tools`.
    pub no_tools: bool,
    /// `--no-builtin-tools`.
    pub no_builtin_tools: bool,
    /// `--tools` entries and the flag as typed (the last valid flag's).
    pub tools: Option<(String, Vec<String>)>,
    /// `--exclude-tools` entries (the last flag's).
    pub exclude_tools: Option<Vec<String>>,
    /// `--thinking`.
    pub thinking: Option<String>,
    /// `--extension`/`-e` (repeatable).
    pub extensions: Vec<String>,
    /// `--no-extensions`.
    pub no_extensions: bool,
    /// `--no-mcp`.
    pub no_mcp: bool,
    /// `--no-context-files`.
    pub no_context_files: bool,
    /// `--skill` paths (repeatable).
    pub skills: Vec<String>,
    /// `--no-skills`/`-ns`.
    pub no_skills: bool,
    /// `--prompt-template` paths (repeatable).
    pub prompt_templates: Vec<String>,
    /// `--no-prompt-templates`/`-np`.
    pub no_prompt_templates: bool,
    /// `--list-models [search]`.
    pub list_models: Option<Option<String>>,
    /// `--verbose`.
    pub verbose: bool,
    /// `--approve` (Some(true)) / `--no-approve` (Some(false)).
    pub approve: Option<bool>,
    /// `--offline`.
    pub offline: bool,
    /// `--sandbox MODE` and `--sandbox-network`.
    pub sandbox: pi_sandbox::Flags,
    /// `--tui-mode regular|fullscreen`.
    pub tui_mode: Option<String>,
    /// `--theme <path>` (repeatable): theme files or folders.
    pub theme_paths: Vec<String>,
    /// `--use-theme <name>`: this run's theme.
    pub use_theme: Option<String>,
    /// `--no-themes`: no theme files are discovered.
    pub no_themes: bool,
    /// `@file` arguments.
    pub files: Vec<String>,
    /// Messages.
    pub messages: Vec<String>,
    /// Unknown `--flag[=value]`, for extensions: the name without `--` and the
    /// value (`None`: given without one). First-seen order; a repeated flag
    /// keeps its place and takes the later value.
    pub unknown: Vec<(String, Option<String>)>,
    /// Problems, in argument order.
    pub diagnostics: Vec<Diagnostic>,
}

/// A comma-separated list, trimmed, empty entries dropped.
pub(crate) fn csv(v: &str) -> Vec<String> {
    v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect()
}

impl CliArgs {
    /// The command line's say on skills and templates (kept for `/reload`).
    pub(crate) fn resource_flags(&self) -> pi_runtime::expand::ResourceFlags {
        pi_runtime::expand::ResourceFlags {
            skills: self.skills.clone(),
            no_skills: self.no_skills,
            templates: self.prompt_templates.clone(),
            no_templates: self.no_prompt_templates,
            discovered: Default::default(),
        }
    }

    /// An error found on the command line (it stops the run).
    pub(crate) fn error(&mut self, msg: String) {
        self.diagnostics.push(Diagnostic::Error(msg));
    }

    /// A warning found on the command line.
    pub(crate) fn warning(&mut self, msg: String) {
        self.diagnostics.push(Diagnostic::Warning(msg));
    }

    fn unknown_flag(&mut self, name: &str, value: Option<String>) {
        match self.unknown.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.unknown.push((name.to_string(), value)),
        }
    }

    /// An argument that is no known flag (or a value flag at the end of the
    /// line): an `@file`, a `--flag[=value]` kept for extensions, an unknown
    /// option, or a message. Returns how many arguments after it it used.
    fn other(&mut self, arg: &str, next: Option<&String>) -> usize {
        if arg.starts_with('@') {
            push_positional(self, arg.to_string());
        } else if let Some(long) = arg.strip_prefix("--") {
            match long.split_once('=') {
                Some((name, v)) => self.unknown_flag(name, Some(v.to_string())),
                None => {
                    let v = crate::flags::optional_value(next);
                    let used = usize::from(v.is_some());
                    self.unknown_flag(long, v);
                    return used;
                }
            }
        } else if arg.starts_with('-') {
            self.error(text::unknown_option(arg));
        } else {
            self.messages.push(arg.to_string());
        }
        0
    }
}

/// Parse the arguments after the program name (the flags are those of
/// [`crate::flags::FLAGS`]).
pub fn parse(argv: &[String]) -> CliArgs {
    use crate::flags::Takes;
    let mut a = CliArgs::default();
    let mut i = 0;
    while i < argv.len() {
        let arg = argv[i].as_str();
        let next = argv.get(i + 1);
        if arg == "--" {
            for rest in &argv[i + 1..] {
                push_positional(&mut a, rest.clone());
            }
            break;
        }
        i += 1 + match crate::flags::find(arg).map(|f| &f.takes) {
            Some(Takes::Nothing(apply)) => {
                apply(&mut a);
                0
            }
            Some(Takes::Value(_, apply)) => match next {
                Some(v) => {
                    apply(&mut a, arg, v.clone());
                    1
                }
                // At the end of the line a value flag is not recognised.
                None => a.other(arg, next),
            },
            Some(Takes::Own(_, rule)) => rule(&mut a, next),
            None => a.other(arg, next),
        };
    }
    a
}

fn push_positional(a: &mut CliArgs, arg: String) {
    match arg.strip_prefix('@') {
        Some(f) => a.files.push(f.to_string()),
        None => a.messages.push(arg),
    }
}

/// The values of the extensions' flags given on the command line: `true`
/// for a boolean flag (`takes_value` false), the text for the others (a
/// flag given without its value is left out: that is an error).
pub fn extension_flag_values(
    unknown: &[(String, Option<String>)],
    registered: &[(String, bool)],
) -> serde_json::Map<String, serde_json::Value> {
    let mut out = serde_json::Map::new();
    for (name, value) in unknown {
        match (registered.iter().find(|(n, _)| n == name), value) {
            (Some((_, false)), _) => {
                out.insert(name.clone(), serde_json::Value::Bool(true));
            }
            (Some((_, true)), Some(v)) => {
                out.insert(name.clone(), serde_json::Value::String(v.clone()));
            }
            _ => {}
        }
    }
    out
}

/// The start-up diagnostics about unknown `--flags` (reported once the
/// extensions have loaded): one error naming every flag no extension
/// registered, and one per registered value flag given without a value.
/// `registered` lists the extensions' flags and whether each takes a value.
pub fn unknown_flag_diagnostics(
    unknown: &[(String, Option<String>)],
    registered: &[(String, bool)],
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut unknown_names = Vec::new();
    for (name, value) in unknown {
        match registered.iter().find(|(n, _)| n == name) {
            None => unknown_names.push(name.as_str()),
            Some((_, true)) if value.is_none() => {
                out.push(Diagnostic::Error(text::extension_flag_requires_value(name)))
            }
            Some(_) => {}
        }
    }
    if !unknown_names.is_empty() {
        out.push(Diagnostic::Error(text::unknown_options(&unknown_names)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> CliArgs {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    fn errors(args: &[&str]) -> Vec<String> {
        p(args).diagnostics.iter().map(Diagnostic::line).collect()
    }

    #[test]
    fn the_terminal_ui_flags_are_kept() {
        let a =
            p(&["--tui-mode", "regular", "--use-theme", "light", "--theme", "a.json", "--theme", "dir", "--no-themes"]);
        assert_eq!(a.tui_mode.as_deref(), Some("regular"));
        assert_eq!(a.use_theme.as_deref(), Some("light"));
        assert_eq!(a.theme_paths, ["a.json", "dir"]);
        assert!(a.no_themes);
        assert!(a.diagnostics.is_empty());
    }

    #[test]
    fn print_takes_the_next_argument_as_message() {
        let a = p(&["-p", "hello", "--model", "mock/mock-1"]);
        assert!(a.print);
        assert_eq!(a.messages, ["hello"]);
        assert_eq!(a.model.as_deref(), Some("mock/mock-1"));
        let a = p(&["-p", "--", "- item", "@f"]);
        assert_eq!(a.messages, ["- item"]);
        assert_eq!(a.files, ["f"]);
        assert_eq!(p(&["-p", "---x"]).messages, ["---x"]);
        assert!(p(&["-p", "@f"]).messages.is_empty());
        assert_eq!(p(&["-p", ""]).messages, [""]);
    }

    #[test]
    fn tool_flags_and_the_last_one_wins() {
        let a = p(&["-t", "read, grep,,find", "-xt", "bash", "-nbt"]);
        assert_eq!(a.tools, Some(("-t".to_string(), vec!["read".into(), "grep".into(), "find".into()])));
        assert_eq!(a.exclude_tools, Some(vec!["bash".into()]));
        assert!(a.no_builtin_tools);
        assert_eq!(p(&["--tools", ""]).tools.unwrap().1, Vec::<String>::new());
        assert_eq!(p(&["-xt", "bash", "--exclude-tools", "read"]).exclude_tools, Some(vec!["read".into()]));
        assert_eq!(p(&["-t", "ls", "--tools", "read"]).tools.unwrap().1, ["read"]);
        assert_eq!(
            errors(&["-t", "read,+bash"]),
            ["Error: -t: tool names cannot be mixed with +name or -name entries"]
        );
        // A value flag takes the next argument whatever it looks like.
        assert_eq!(p(&["--model", "--foo"]).model.as_deref(), Some("--foo"));
        assert_eq!(p(&["--models", " a, ,b"]).models, Some(vec!["a".into(), "b".into()]));
    }

    #[test]
    fn a_value_flag_without_its_value() {
        for flag in ["--tools", "--thinking", "--model", "--provider", "--api-key", "--session", "--extension"] {
            let a = p(&[flag]);
            assert_eq!(a.unknown, [(flag[2..].to_string(), None)], "{flag}");
            assert!(a.diagnostics.is_empty(), "{flag}");
        }
        for flag in ["-t", "-xt", "-e"] {
            assert_eq!(errors(&[flag]), [format!("Error: Unknown option: {flag}")]);
        }
        assert_eq!(errors(&["--use-theme"]), ["Error: --use-theme requires a theme name"]);
        assert_eq!(
            errors(&["--use-theme", "-x"]),
            ["Error: --use-theme requires a theme name", "Error: Unknown option: -x"]
        );
        assert_eq!(errors(&["--tui-mode"]), ["Error: --tui-mode requires regular or fullscreen"]);
        assert_eq!(errors(&["--name"]), ["Error: --name requires a value"]);
        assert_eq!(p(&["--name", " "]).name.as_deref(), Some(" "));
    }

    #[test]
    fn modes() {
        let a = p(&["--mode", "json"]);
        assert_eq!((a.mode, a.mode_given), (Mode::Json, true));
        assert_eq!(errors(&["--mode", "xml"]), ["Error: Invalid mode \"xml\". Valid values: text, json, rpc"]);
        assert!(p(&["--mode", "xml", "go"]).messages == ["go"]);
        assert_eq!(errors(&["--mode"]), ["Error: --mode requires text, json, or rpc"]);
        assert_eq!(errors(&["--mode", "-p"]), ["Error: --mode requires text, json, or rpc"]);
        assert!(p(&["--mode", "-p"]).print);
        assert_eq!(
            errors(&["--tui-mode", "bad"]),
            ["Error: Invalid TUI mode \"bad\". Valid values: regular, fullscreen"]
        );
        assert!(errors(&["--tui-mode", "fullscreen"]).is_empty());
    }

    #[test]
    fn sandbox_flags() {
        use pi_sandbox::Mode;
        let a = p(&["--sandbox", "read-only", "--sandbox-network", "go"]);
        assert_eq!(
            (a.sandbox.mode, a.sandbox.network, a.messages.as_slice()),
            (Some(Mode::ReadOnly), true, &["go".to_string()][..])
        );
        assert_eq!(p(&["--sandbox", "workspace-write"]).sandbox.mode, Some(Mode::WorkspaceWrite));
        assert_eq!(
            errors(&["--sandbox", "strict"]),
            ["Error: Invalid sandbox mode \"strict\". Valid values: off, read-only, workspace-write"]
        );
        assert_eq!(errors(&["--sandbox"]), ["Error: --sandbox requires off, read-only or workspace-write"]);
        assert_eq!(errors(&["--sandbox", "-p"]), ["Error: --sandbox requires off, read-only or workspace-write"]);
    }

    #[test]
    fn diagnostics_are_collected_in_order() {
        assert_eq!(
            errors(&["--thinking", "bad", "--mode", "xml", "-z"]),
            [
                "Warning: Invalid thinking level \"bad\". Valid values: off, minimal, low, medium, high, xhigh, max",
                "Error: Invalid mode \"xml\". Valid values: text, json, rpc",
                "Error: Unknown option: -z",
            ]
        );
        assert!(!p(&["--thinking", "bad"]).diagnostics.iter().any(Diagnostic::is_error));
    }

    #[test]
    fn unknown_and_short_options() {
        assert_eq!(errors(&["-zz"]), ["Error: Unknown option: -zz"]);
        assert_eq!(errors(&["-"]), ["Error: Unknown option: -"]);
        let a = p(&["--plan", "x", "--flag=1", "--tools=ls", "@f.md", "msg", "--bare", "--plan=y", "---x"]);
        assert_eq!(
            a.unknown,
            [
                ("plan".to_string(), Some("y".to_string())),
                ("flag".to_string(), Some("1".to_string())),
                ("tools".to_string(), Some("ls".to_string())),
                ("bare".to_string(), None),
                ("-x".to_string(), None),
            ]
        );
        assert!(a.tools.is_none());
        assert_eq!(a.files, ["f.md"]);
        assert_eq!(a.messages, ["msg"]);
        // The next argument is a value unless it looks like an option or a file.
        let a = p(&["--plan", "@f", "--x", "-y"]);
        assert_eq!(a.unknown, [("plan".to_string(), None), ("x".to_string(), None)]);
        assert_eq!(a.files, ["f"]);
        assert_eq!(p(&["@"]).files, [""]);
    }

    #[test]
    fn unknown_flags_are_checked_against_the_registered_ones() {
        let unknown =
            vec![("foo".to_string(), None), ("plan".to_string(), None), ("bar".to_string(), Some("1".into()))];
        let lines = |registered: &[(String, bool)]| -> Vec<String> {
            unknown_flag_diagnostics(&unknown, registered).iter().map(Diagnostic::line).collect()
        };
        assert_eq!(lines(&[]), ["Error: Unknown options: --foo, --plan, --bar"]);
        assert_eq!(
            lines(&[("plan".into(), true), ("bar".into(), true)]),
            ["Error: Extension flag \"--plan\" requires a value", "Error: Unknown option: --foo"]
        );
        assert!(lines(&[("plan".into(), false), ("foo".into(), false), ("bar".into(), true)]).is_empty());
    }
}
