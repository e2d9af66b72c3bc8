//! The command line, parsed the way the reference parses it: long flags,
//! multi-letter short flags (`-nt`, `-xt`, `-nbt`), repeatable flags, `@file`
//! arguments, `--` to end options, and unknown `--flags` kept for extensions.
//! (clap cannot express multi-letter short options, hence this small parser.)

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
    /// `--name`.
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
    /// `--models`.
    pub models: Option<String>,
    /// `--no-tools`.
    pub no_tools: bool,
    /// `--no-builtin-tools`.
    pub no_builtin_tools: bool,
    /// `--tools` entries and the flag as typed.
    pub tools: Option<(String, Vec<String>)>,
    /// `--exclude-tools` entries.
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
    /// `--list-models [search]`.
    pub list_models: Option<Option<String>>,
    /// `--verbose`.
    pub verbose: bool,
    /// `--approve` (Some(true)) / `--no-approve` (Some(false)).
    pub approve: Option<bool>,
    /// `--offline`.
    pub offline: bool,
    /// `@file` arguments.
    pub files: Vec<String>,
    /// Messages.
    pub messages: Vec<String>,
    /// Unknown `--flag[=value]` kept for extensions.
    pub unknown: Vec<(String, Option<String>)>,
    /// Warnings to print (`Warning: …`).
    pub warnings: Vec<String>,
}

fn csv(v: &str) -> Vec<String> {
    v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect()
}

/// Parse the arguments after the program name. Errors are the message to print
/// after `Error: `.
pub fn parse(argv: &[String]) -> Result<CliArgs, String> {
    let mut a = CliArgs::default();
    let mut i = 0;
    let mut only_messages = false;
    let value = |i: &mut usize, flag: &str| -> Result<String, String> {
        *i += 1;
        argv.get(*i).cloned().ok_or_else(|| format!("{flag} requires a value"))
    };
    while i < argv.len() {
        let arg = argv[i].clone();
        if only_messages {
            push_positional(&mut a, arg);
            i += 1;
            continue;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let take = |i: &mut usize| -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => value(i, &flag),
            }
        };
        match flag.as_str() {
            "--" => only_messages = true,
            "--help" | "-h" => a.help = true,
            "--version" | "-v" => a.version = true,
            "--mode" => match take(&mut i)?.as_str() {
                "json" => a.mode = Mode::Json,
                "rpc" => a.mode = Mode::Rpc,
                "text" => a.mode = Mode::Text,
                _ => {}
            },
            "--print" | "-p" => {
                a.print = true;
                if let Some(next) = argv.get(i + 1)
                    && (!next.starts_with('-') || next.starts_with("---"))
                    && !next.starts_with('@')
                {
                    a.messages.push(next.clone());
                    i += 1;
                }
            }
            "--continue" | "-c" => a.continue_session = true,
            "--resume" | "-r" => a.resume = true,
            "--provider" => a.provider = Some(take(&mut i)?),
            "--model" => a.model = Some(take(&mut i)?),
            "--api-key" => a.api_key = Some(take(&mut i)?),
            "--system-prompt" => a.system_prompt = Some(take(&mut i)?),
            "--append-system-prompt" => a.append_system_prompt.push(take(&mut i)?),
            "--name" | "-n" => {
                let v = take(&mut i).map_err(|_| "--name requires a value".to_string())?;
                if v.trim().is_empty() {
                    return Err("--name requires a non-empty value".into());
                }
                a.name = Some(v);
            }
            "--no-session" => a.no_session = true,
            "--session" => a.session = Some(take(&mut i)?),
            "--session-id" => a.session_id = Some(take(&mut i)?),
            "--fork" => a.fork = Some(take(&mut i)?),
            "--session-dir" => a.session_dir = Some(take(&mut i)?),
            "--models" => a.models = Some(take(&mut i)?),
            "--no-tools" | "-nt" => a.no_tools = true,
            "--no-builtin-tools" | "-nbt" => a.no_builtin_tools = true,
            "--tools" | "-t" => {
                let v = take(&mut i)?;
                a.tools = Some((flag.clone(), csv(&v)));
            }
            "--exclude-tools" | "-xt" => {
                let v = take(&mut i)?;
                a.exclude_tools.get_or_insert_with(Vec::new).extend(csv(&v));
            }
            "--thinking" => {
                let v = take(&mut i)?;
                if crate::text::THINKING_LEVELS.contains(&v.as_str()) {
                    a.thinking = Some(v);
                } else {
                    a.warnings.push(crate::text::invalid_thinking_level(&v));
                }
            }
            "--extension" | "-e" => a.extensions.push(take(&mut i)?),
            "--no-extensions" | "-ne" => a.no_extensions = true,
            "--no-mcp" => a.no_mcp = true,
            "--no-context-files" | "-nc" => a.no_context_files = true,
            "--skill" | "--prompt-template" | "--theme" | "--use-theme" | "--tui-mode" | "--export" => {
                let _ = take(&mut i)?;
            }
            "--no-skills" | "-ns" | "--no-prompt-templates" | "-np" | "--no-themes" => {}
            "--list-models" => {
                let search = match argv.get(i + 1) {
                    Some(n) if !n.starts_with('-') && inline.is_none() => {
                        i += 1;
                        Some(n.clone())
                    }
                    _ => inline.clone(),
                };
                a.list_models = Some(search);
            }
            "--verbose" => a.verbose = true,
            "--approve" | "-a" => a.approve = Some(true),
            "--no-approve" | "-na" => a.approve = Some(false),
            "--offline" => a.offline = true,
            f if f.starts_with("--") => {
                let v = match inline {
                    Some(v) => Some(v),
                    None => match argv.get(i + 1) {
                        Some(n) if !n.starts_with('-') && !n.starts_with('@') => {
                            i += 1;
                            Some(n.clone())
                        }
                        _ => None,
                    },
                };
                a.unknown.push((f.to_string(), v));
            }
            f if f.starts_with('-') && f.len() > 1 => return Err(format!("Unknown option: {f}")),
            _ => push_positional(&mut a, arg),
        }
        i += 1;
    }
    Ok(a)
}

fn push_positional(a: &mut CliArgs, arg: String) {
    match arg.strip_prefix('@') {
        Some(f) if !f.is_empty() => a.files.push(f.to_string()),
        _ => a.messages.push(arg),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> CliArgs {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn print_takes_the_next_argument_as_message() {
        let a = p(&["-p", "hello", "--model", "mock/mock-1"]);
        assert!(a.print);
        assert_eq!(a.messages, ["hello"]);
        assert_eq!(a.model.as_deref(), Some("mock/mock-1"));
        let a = p(&["-p", "--", "- item"]);
        assert_eq!(a.messages, ["- item"]);
    }

    #[test]
    fn tool_flags() {
        let a = p(&["-t", "read, grep,,find", "-xt", "bash", "-nbt"]);
        assert_eq!(a.tools, Some(("-t".to_string(), vec!["read".into(), "grep".into(), "find".into()])));
        assert_eq!(a.exclude_tools, Some(vec!["bash".into()]));
        assert!(a.no_builtin_tools);
        assert_eq!(p(&["--tools", ""]).tools.unwrap().1, Vec::<String>::new());
    }

    #[test]
    fn errors_and_unknown_flags() {
        assert_eq!(parse(&["-zz".to_string()]).unwrap_err(), "Unknown option: -zz");
        assert_eq!(parse(&["--name".to_string()]).unwrap_err(), "--name requires a value");
        assert_eq!(parse(&["--name".to_string(), " ".to_string()]).unwrap_err(), "--name requires a non-empty value");
        let a = p(&["--plan", "x", "--flag=1", "@f.md", "msg"]);
        assert_eq!(
            a.unknown,
            [("--plan".to_string(), Some("x".to_string())), ("--flag".to_string(), Some("1".to_string()))]
        );
        assert_eq!(a.files, ["f.md"]);
        assert_eq!(a.messages, ["msg"]);
    }
}
