//! The plain terminal loop (until the terminal UI exists): one line in, the
//! answer out; `/trust`, `/reload` and `/quit` are commands. Also the numbered
//! prompt used for the start-up trust question.

use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::Arc;

use pi_agent::Agent;
use pi_ai::AssistantMessage;
use pi_config::TrustStore;
use pi_config::trust::{apply_trust_choice, trust_options};

use crate::reload::{ReloadState, reload};
use crate::text;

/// Print `title` and numbered `labels`; read a number from standard input.
/// `None` when dismissed (empty line, end of input, or not a listed number).
pub fn choose(title: &str, labels: &[String]) -> Option<usize> {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{title}");
    for (i, l) in labels.iter().enumerate() {
        let _ = writeln!(err, "  {}. {l}", i + 1);
    }
    let _ = write!(err, "{}", text::CHOOSE_NUMBER);
    let _ = err.flush();
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).ok()?;
    let n: usize = line.trim().parse().ok()?;
    (1..=labels.len()).contains(&n).then(|| n - 1)
}

/// Print `title` and read one line; `None` at end of input.
pub fn read_line(title: &str) -> Option<String> {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{title}\n> ");
    let _ = err.flush();
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_string()),
    }
}

fn answer_text(m: &AssistantMessage) -> Result<String, String> {
    match crate::print_mode::failed(m) {
        Some(err) => Err(err),
        None => Ok(crate::print_mode::texts(m).join("\n")),
    }
}

fn trust_command(agent_dir: &std::path::Path, cwd: &std::path::Path, trusted_now: bool) {
    let cwd = &pi_config::trust::canonical_dir(cwd);
    let store = TrustStore::new(agent_dir);
    let entry = match store.get_entry(cwd) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("Error: {e}");
            return;
        }
    };
    let options = trust_options(cwd, false);
    let labels: Vec<String> = options.iter().map(|o| o.label.clone()).collect();
    let title = format!(
        "{}\n{}",
        pi_config::text::saved_decision_line(entry.as_ref().map(|e| (e.path.as_path(), e.decision)), cwd),
        pi_config::text::current_session_line(trusted_now)
    );
    if let Some(i) = choose(&title, &labels) {
        match apply_trust_choice(&store, cwd, options[i].choice) {
            Ok(t) => println!("{}", pi_config::text::saved_trust_decision(t)),
            Err(e) => eprintln!("Error: {e}"),
        }
    }
}

/// `!cmd` / `!!cmd`: run a user command (the `user_bash` handlers first),
/// its output streamed to the terminal, then recorded for the model (not
/// with `!!`). Ctrl+C stops it (the abort signal of the run).
async fn user_command(agent: &mut Agent, line: &str) {
    let (command, exclude) = match line.strip_prefix("!!") {
        Some(rest) => (rest.trim(), true),
        None => (line.trim_start_matches('!').trim(), false),
    };
    if command.is_empty() {
        return;
    }
    let event = pi_agent::UserBashEvent {
        command: command.to_string(),
        exclude_from_context: exclude,
        cwd: agent.tool_ctx.cwd.clone(),
    };
    let mut ctx = agent.tool_ctx.clone();
    ctx.abort = tokio_util::sync::CancellationToken::new();
    let on_output: pi_tools::OutputFn = Arc::new(|piece: &str| {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(piece.as_bytes());
        let _ = out.flush();
    });
    let on_error = |source: &str, error: &str| eprintln!("{}", pi_ext::text::extension_error(source, error));
    let interceptors = agent.dispatcher.interceptors.clone();
    match pi_agent::run_user_bash(&interceptors, &event, &ctx, Some(on_output), &on_error).await {
        Ok(result) => {
            if let Some(code) = result.exit_code.filter(|c| *c != 0) {
                eprintln!("{}", text::command_exit_code(code));
            }
            agent.record(pi_agent::BashExecutionMessage::new(&event, &result).into());
        }
        Err(e) => eprintln!("Error: {e}"),
    }
}

/// Run `initial` messages, then read prompts from the terminal until end of input.
pub async fn run(mut agent: Agent, initial: Vec<String>, mut state: ReloadState) -> ExitCode {
    let mut pending = initial.into_iter();
    loop {
        let line = match pending.next() {
            Some(m) => m,
            None => {
                print!("> ");
                let _ = std::io::stdout().flush();
                let mut line = String::new();
                match std::io::stdin().lock().read_line(&mut line) {
                    Ok(0) | Err(_) => return ExitCode::SUCCESS,
                    Ok(_) => line.trim().to_string(),
                }
            }
        };
        match line.as_str() {
            "" => continue,
            "/quit" | "/exit" => return ExitCode::SUCCESS,
            "/reload" => println!("{}", reload(&mut agent, &mut state).await),
            l if l == "/compact" || l.starts_with("/compact ") => {
                let instructions = l.strip_prefix("/compact").map(str::trim).filter(|i| !i.is_empty());
                let reason = pi_agent::compaction::CompactionReason::Manual;
                match agent.compact(reason, instructions, false).await {
                    Ok(_) => println!("{}", text::COMPACTED),
                    Err(e) => eprintln!("{}", pi_agent::compaction_failed_text(reason, &e)),
                }
            }
            "/trust" => trust_command(&state.agent_dir, &state.prompt.cwd, state.prompt.trusted),
            l if l.starts_with('!') => user_command(&mut agent, l).await,
            _ => {
                if let Some(last) = agent.prompt(&line).await {
                    match answer_text(&last) {
                        Ok(t) => println!("{t}"),
                        Err(e) => eprintln!("{e}"),
                    }
                }
            }
        }
    }
}
