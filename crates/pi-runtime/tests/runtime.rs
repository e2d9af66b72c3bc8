//! A session driven through [`pi_runtime::Runtime`] in-process, over the
//! faux provider: a submitted message runs and answers, a message without
//! credentials is refused with a typed error before anything is sent, a
//! reload reads the context files again, and an undo without checkpoints
//! fails typed; choosing a model or a thinking level clamps the level and
//! records both in the session.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::Path;
use std::sync::Arc;

use pi_agent::{Agent, AgentEvent, Dispatcher, EventSink, Registry};
use pi_ai::faux::{self, FauxProvider};
use pi_config::ModelEntry;
use pi_runtime::ext_input::Incoming;
use pi_runtime::ext_session::{ExtSession, SessionParts};
use pi_runtime::model_change::{ModelChoice, ModelSource};
use pi_runtime::prompt_source::PromptSource;
use pi_runtime::reload::ReloadState;
use pi_runtime::{Op, OpError, Outcome, Runtime};
use pi_tools::ToolContext;

/// A runtime over an agent that answers from `faux`, in `cwd`, with no
/// extensions, skills or templates.
fn runtime(provider: &str, cwd: &Path, agent_dir: &Path) -> (Runtime, FauxProvider) {
    runtime_with(provider, cwd, agent_dir, Vec::new())
}

/// [`runtime`] with `models` configured.
fn runtime_with(provider: &str, cwd: &Path, agent_dir: &Path, models: Vec<ModelEntry>) -> (Runtime, FauxProvider) {
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
        models: Arc::from(models),
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

/// The session's state entries of `kind`, as JSON.
fn entries_of(rt: &Runtime, kind: &str) -> Vec<serde_json::Value> {
    let session = rt.agent().session().lock().unwrap();
    session.entries().iter().map(|e| serde_json::to_value(e).unwrap()).filter(|e| e["type"] == kind).collect()
}

#[tokio::test]
async fn choosing_a_model_and_a_level_clamps_it_and_records_both() {
    let (_dir, cwd, agent_dir) = folders();
    let thinker = ModelEntry { provider: "lab".into(), id: "thinker".into(), reasoning: true, ..ModelEntry::unknown() };
    let plain = ModelEntry { provider: "lab".into(), id: "plain".into(), reasoning: false, ..ModelEntry::unknown() };
    let (mut rt, _faux) = runtime_with("runtime-choose", &cwd, &agent_dir, vec![thinker.clone(), plain.clone()]);
    let choice = ModelChoice { entry: thinker, key: Some("k".into()), source: ModelSource::Set };
    let chosen = rt.apply(Op::Choose { model: Some(Box::new(choice)), thinking: Some("high".into()) }).await.unwrap();
    let Outcome::Chosen { thinking, tell } = &chosen else { panic!("{chosen:?}") };
    assert_eq!(thinking, "high");
    // The extensions are told once the front end releases the session.
    let told: Vec<&str> = tell.iter().map(|e| e.kind()).collect();
    assert_eq!(told, ["thinking_level_select", "model_select"]);
    rt.tell(tell).await;
    assert_eq!((rt.agent().model().provider.as_str(), rt.agent().model().id.as_str()), ("lab", "thinker"));
    assert_eq!(rt.agent().thinking(), Some("high"));
    assert_eq!(rt.agent().api_key(), Some("k"));
    // A model that does not think takes the level down to off.
    let choice = ModelChoice { entry: plain, key: None, source: ModelSource::Cycle };
    let chosen = rt.apply(Op::Choose { model: Some(Box::new(choice)), thinking: None }).await.unwrap();
    assert!(matches!(&chosen, Outcome::Chosen { thinking, .. } if thinking == "off"), "{chosen:?}");
    assert_eq!(rt.agent().thinking(), None);
    let models: Vec<String> = entries_of(&rt, "model_change").iter().map(|e| e["modelId"].to_string()).collect();
    assert_eq!(models, ["\"thinker\"", "\"plain\""]);
    let levels: Vec<String> =
        entries_of(&rt, "thinking_level_change").iter().map(|e| e["thinkingLevel"].to_string()).collect();
    assert_eq!(levels, ["\"high\"", "\"off\""]);
    // The extensions' view follows.
    assert_eq!(rt.ext().current.lock().unwrap().1, "off");
}

#[tokio::test]
async fn a_level_for_a_model_that_is_not_configured_is_taken_as_asked() {
    // A custom id given with `--model` has no entry to clamp to.
    let (_dir, cwd, agent_dir) = folders();
    let (mut rt, _faux) = runtime("runtime-unlisted", &cwd, &agent_dir);
    let chosen = rt.apply(Op::Choose { model: None, thinking: Some("high".into()) }).await.unwrap();
    assert!(matches!(&chosen, Outcome::Chosen { thinking, .. } if thinking == "high"), "{chosen:?}");
    assert_eq!(rt.agent().thinking(), Some("high"));
    let chosen = rt.apply(Op::Choose { model: None, thinking: Some("loud".into()) }).await.unwrap();
    assert!(matches!(&chosen, Outcome::Chosen { thinking, .. } if thinking == "off"), "an unknown level: {chosen:?}");
}

#[tokio::test]
async fn a_compaction_or_a_move_that_cannot_be_made_fails_typed() {
    let (_dir, cwd, agent_dir) = folders();
    let (mut rt, _faux) = runtime("runtime-compact", &cwd, &agent_dir);
    let failed = rt.apply(Op::Compact { instructions: None }).await.unwrap_err();
    assert!(matches!(failed, OpError::Compaction(_)), "{failed:?}");
    let target = "no-such-entry".to_string();
    let failed = rt.apply(Op::Navigate { target, how: Default::default() }).await.unwrap_err();
    assert!(matches!(failed, OpError::Session(_)), "{failed:?}");
    assert!(rt.agent().messages().is_empty(), "nothing changed");
}
