//! Print mode (`-p`, or output not a terminal): run the messages in order,
//! then print the text of the conversation's last message when it is an answer; an error or abort goes
//! to standard error with exit status 1.

use std::io::Write;
use std::process::ExitCode;

use pi_ai::{AssistantMessage, ContentBlock, StopReason};
use pi_runtime::ext_input::Incoming;
use pi_runtime::{Op, Runtime};

use crate::text;

/// The text blocks of an answer, in order.
pub(crate) fn texts(m: &AssistantMessage) -> Vec<&str> {
    m.content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The error text of a failed or aborted answer.
pub(crate) fn failed(m: &AssistantMessage) -> Option<String> {
    matches!(m.stop_reason, StopReason::Error | StopReason::Aborted)
        .then(|| m.error_message.as_deref().unwrap_or(text::REQUEST_FAILED).to_string())
}

/// Run `messages` one after another (a failed one does not stop the rest);
/// print the final answer's text when `print_text`, or its error.
/// No messages: nothing is sent or printed (exit status 0).
/// `first_images` (from `@file` arguments) go with the first message.
/// A message may be an extension command (`/name args`) or be handled by an
/// `input` handler: then it sends nothing ([`pi_runtime::ext_input`]).
pub async fn run(
    mut rt: Runtime,
    messages: Vec<String>,
    mut first_images: Vec<pi_ai::ContentBlock>,
    print_text: bool,
) -> ExitCode {
    // Messages extensions sent before the first prompt (in `session_start`).
    rt.agent_mut().drain_inbox();
    for m in &messages {
        // A failed message does not stop the others (as the reference); a
        // refused one (no credentials) ends the run with its reason.
        let incoming = Incoming::user(m, std::mem::take(&mut first_images), "interactive");
        if let Err(why) = rt.apply(Op::Submit(incoming)).await {
            eprintln!("{why}");
            return ExitCode::from(1);
        }
    }
    rt.agent_mut().drain_inbox();
    // As the reference: the conversation's last message decides what is
    // printed and the exit status, when it is an answer (a command that
    // added a message, moved in the tree or started a new session after
    // the last answer leaves nothing to print).
    let last = match rt.agent().messages().last() {
        Some(pi_agent::AgentMessage::Llm(pi_ai::Message::Assistant(a))) => a.clone(),
        _ => return ExitCode::SUCCESS,
    };
    if let Some(err) = failed(&last) {
        eprintln!("{err}");
        return ExitCode::from(1);
    }
    if print_text {
        let mut out = std::io::stdout().lock();
        for t in texts(&last) {
            let _ = writeln!(out, "{t}");
        }
        let _ = out.flush();
    }
    ExitCode::SUCCESS
}
