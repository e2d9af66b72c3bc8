//! A session driven through [`pi_runtime::Runtime`] in-process, over the
//! faux provider: a submitted message runs and answers, a message without
//! credentials is refused with a typed error before anything is sent, a
//! reload reads the context files again, and an undo without checkpoints
//! fails typed.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::Path;
use std::sync::Arc;

use pi_agent::{Agent, AgentEvent, Dispatcher, EventSink, Registry};
use pi_ai::faux::{self, FauxProvider};
use pi_runtime::ext_input::Incoming;
use pi_runtime::ext_session::{ExtSession, SessionParts};
use pi_runtime::prompt_source::PromptSource;
use pi_runtime::reload::ReloadState;
use pi_runtime::{Op, OpError, Outcome, Runtime};
use pi_tools::ToolContext;

/// A runtime over an agent that answers from `faux`, in `cwd`, with no
/// extensions, skills or templates.
fn runtime(provider: &str, cwd: &Path, agent_dir: &Path) -> (Runtime, FauxProvider) {
    let faux = faux::register(provider);
    let sink: EventSink = Arc::new(|_: &AgentEvent| {});
    let agent = Agent::builder(
        faux.model(),
        "system".into(),
        Dispatcher::new(Registry::new()),
        ToolContext::new(cwd),
        sink.clone(),
    )
    .build();
    let ext = ExtSession::new(SessionParts {
        session: agent.session().clone(),
        sink,
        inbox: agent.inbox().clone(),
        steering: agent.steering().clone(),
        follow_ups: agent.follow_ups().clone(),
        abort: agent.abort_handle(),
        models: Arc::from(Vec::new()),
        current: (faux.model(), "off".into()),
        cwd: cwd.to_path_buf(),
        agent_dir: agent_dir.to_path_buf(),
        session_dir: None,
        live: agent.live().clone(),
        prompt_view: agent.prompt_view().clone(),
        scope: Vec::new(),
        packages: Vec::new(),
    });
    let reload = ReloadState {
        prompt: PromptSource {
            agent_dir: agent_dir.to_path_buf(),
            cwd: cwd.to_path_buf(),
            trusted: false,
            no_context_files: false,
            system_prompt: None,
            append_system_prompt: Vec::new(),
            sandbox: None,
            skills: Vec::new(),
            mcp_servers: None,
        },
        agent_dir: agent_dir.to_path_buf(),
        cli_tools: None,
        uses_default_tools: false,
        last_default: Vec::new(),
        codemode: Default::default(),
        resource_flags: Default::default(),
        resources: Default::default(),
        mcp: None,
        mcp_on: false,
        llama_on: false,
        approve: None,
        extensions: None,
    };
    (Runtime::new(agent, ext, reload), faux)
}

fn folders() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (cwd, agent_dir) = (dir.path().join("work"), dir.path().join("agent"));
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&agent_dir).unwrap();
    (dir, cwd, agent_dir)
}

#[tokio::test]
async fn a_submitted_message_runs_and_its_answer_comes_back() {
    let (_dir, cwd, agent_dir) = folders();
    let (mut rt, faux) = runtime("runtime-submit", &cwd, &agent_dir);
    rt.agent_mut().set_api_key(Some("key".into()));
    faux.set_responses(vec![faux::assistant_message(vec![faux::text("hello")])]);
    let outcome = rt.apply(Op::Submit(Incoming::user("hi", Vec::new(), "rpc"))).await.unwrap();
    let Outcome::Answer(Some(answer)) = outcome else { panic!("no answer: {outcome:?}") };
    assert_eq!(answer.text(), "hello");
    assert_eq!(faux.contexts().len(), 1);
    assert_eq!(rt.agent().messages().len(), 2, "the message and its answer are in the conversation");
}

#[tokio::test]
async fn a_message_without_credentials_is_refused_before_anything_is_sent() {
    let (_dir, cwd, agent_dir) = folders();
    let (mut rt, faux) = runtime("runtime-no-key-provider", &cwd, &agent_dir);
    faux.set_responses(vec![faux::assistant_message(vec![faux::text("never")])]);
    let refused = rt.apply(Op::Submit(Incoming::user("hi", Vec::new(), "rpc"))).await.unwrap_err();
    match &refused {
        OpError::NoApiKey(why) => assert_eq!(why.provider, faux.model().provider),
        other => panic!("not a refusal: {other:?}"),
    }
    assert!(refused.to_string().starts_with("No API key found for "), "{refused}");
    assert!(faux.contexts().is_empty(), "nothing reached the model");
}

#[tokio::test]
async fn a_reload_reads_the_context_files_again_and_says_so() {
    let (_dir, cwd, agent_dir) = folders();
    let (mut rt, _faux) = runtime("runtime-reload", &cwd, &agent_dir);
    std::fs::write(cwd.join("AGENTS.md"), "Always answer in haiku.").unwrap();
    assert!(!rt.agent().system_prompt().contains("Always answer in haiku."));
    let Outcome::Reloaded { status, warnings } = rt.apply(Op::Reload).await.unwrap() else { panic!("not reloaded") };
    assert_eq!(status, pi_runtime::text::RELOADED);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(rt.agent().system_prompt().contains("Always answer in haiku."));
    // A second reload reads them again.
    std::fs::write(cwd.join("AGENTS.md"), "Always answer in prose.").unwrap();
    rt.apply(Op::Reload).await.unwrap();
    let prompt = rt.agent().system_prompt();
    assert!(prompt.contains("Always answer in prose.") && !prompt.contains("haiku"), "{prompt}");
}

#[tokio::test]
async fn an_undo_without_checkpoints_fails_with_a_typed_error() {
    let (_dir, cwd, agent_dir) = folders();
    let (mut rt, _faux) = runtime("runtime-undo", &cwd, &agent_dir);
    let failed = rt.apply(Op::Undo { force: false }).await.unwrap_err();
    assert!(matches!(failed, OpError::Checkpoint(_)), "{failed:?}");
    assert!(!failed.to_string().is_empty());
}
