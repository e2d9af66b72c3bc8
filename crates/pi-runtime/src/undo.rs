//! Undoing the agent's last changing turn (B11), for every front end: the
//! files come back from the session's checkpoints (`pi-checkpoints`) and the
//! conversation gets a note of what was restored, so the model does not
//! build on changes that are gone.

use pi_agent::{Agent, AgentMessage, AgentOnly, CustomMessage};
use pi_checkpoints::{CheckpointError, Kept, KeptPlan, Restored, text as cp_text};

use crate::ext_session::ExtSession;
use crate::session_event::SessionEvent;

/// The custom message type of the conversation's note.
pub const RESTORE_NOTE_TYPE: &str = "checkpoint-restore";

/// What an undo did.
#[derive(Debug)]
pub struct Undone {
    /// The checkpoint the files came back from (its full id).
    pub checkpoint: String,
    /// What was written, removed, or could not be restored.
    pub restored: Restored,
}

impl Undone {
    /// The checkpoint's short id, as messages show it.
    pub fn short(&self) -> &str {
        &self.checkpoint[..self.checkpoint.len().min(12)]
    }

    /// The answer as RPC gives it.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "checkpoint": self.checkpoint,
            "restored": self.restored.changed(),
            "notRestorable": self.restored.not_restorable,
        })
    }
}

/// Undo the last changing turn of `agent`'s session (`force`: files changed
/// since the turn too), and note it in the conversation. The extensions are
/// asked first (`session_before_restore`, which may cancel) and told after
/// (`session_restore`).
pub async fn undo(agent: &mut Agent, ext: &ExtSession, force: bool) -> Result<Undone, CheckpointError> {
    let (kept, session) = open_kept(agent).await;
    let (kept, plan) = {
        let session = session.clone();
        blocking(move || {
            let kept = kept()?;
            let plan = kept.plan_undo(&session)?;
            Ok((kept, plan))
        })
        .await?
    };
    apply(agent, ext, "undo", kept, session, plan, force).await
}

/// What [`undo`] would change now, file by file (nothing is written).
pub async fn preview_undo(agent: &Agent) -> Result<Preview, CheckpointError> {
    let (kept, session) = open_kept(agent).await;
    blocking(move || {
        let kept = kept()?;
        let plan = kept.plan_undo(&session)?;
        Ok(Preview { checkpoint: plan.checkpoint().to_string(), files: kept.summary(&plan)? })
    })
    .await
}

/// What [`rewind`] would change now (`None`: none of those turns changed files).
pub async fn preview_rewind(
    agent: &Agent,
    entries: std::collections::HashSet<String>,
) -> Result<Option<Preview>, CheckpointError> {
    let (kept, session) = open_kept(agent).await;
    blocking(move || {
        let kept = kept()?;
        match kept.plan_rewind(&session, &entries)? {
            Some(plan) => Ok(Some(Preview { checkpoint: plan.checkpoint().to_string(), files: kept.summary(&plan)? })),
            None => Ok(None),
        }
    })
    .await
}

/// What a restore would change, before it happens.
pub struct Preview {
    /// The checkpoint the files would come back from.
    pub checkpoint: String,
    /// The files, and how each would change.
    pub files: Vec<pi_checkpoints::FileChange>,
}

impl Preview {
    /// The answer as RPC gives it (`undo` with `dryRun`).
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({"checkpoint": self.checkpoint, "dryRun": true, "files": self.files})
    }

    /// For people: a heading and a line per file.
    pub fn text(&self) -> String {
        format!("{}\n{}", cp_text::SUMMARY_HEADING, pi_checkpoints::summary_text(&self.files))
    }
}

/// Bring the files back to before the earliest turn whose answer is one of
/// `entries` (the part of the conversation a `/tree` move leaves), as
/// [`undo`] does; `Ok(None)` when none of those turns changed files.
pub async fn rewind(
    agent: &mut Agent,
    ext: &ExtSession,
    entries: std::collections::HashSet<String>,
    force: bool,
) -> Result<Option<Undone>, CheckpointError> {
    let (kept, session) = open_kept(agent).await;
    let (kept, plan) = {
        let session = session.clone();
        blocking(move || {
            let kept = kept()?;
            let plan = kept.plan_rewind(&session, &entries)?;
            Ok((kept, plan))
        })
        .await?
    };
    match plan {
        Some(plan) => apply(agent, ext, "rewind", kept, session, plan, force).await.map(Some),
        None => Ok(None),
    }
}

/// RPC `rewind`: move the conversation to `target` as `/tree` does (the
/// extensions asked first; a user message's text comes back as
/// `editorText`), then, with `files`, bring the files back to before the
/// agent's turns in the part left behind. A files failure (a file changed
/// since, without `force`) is told in the answer (`filesError`); the
/// conversation has moved either way.
pub async fn rewind_conversation(
    agent: &mut Agent,
    ext: &ExtSession,
    target: &str,
    files: bool,
    force: bool,
) -> Result<serde_json::Value, crate::session_error::SessionCallError> {
    let Some(moved) = crate::tree_events::move_agent(agent, ext, target, &Default::default()).await? else {
        return Ok(serde_json::json!({"cancelled": true}));
    };
    let mut answer = serde_json::json!({"cancelled": false, "editorText": moved.editor, "restored": null});
    if files && agent.tool_ctx().change_guard.is_some() && !moved.left.is_empty() {
        match rewind(agent, ext, moved.left, force).await {
            Ok(Some(done)) => answer["restored"] = done.json(),
            Ok(None) => {}
            Err(e) => answer["filesError"] = serde_json::json!(e.to_string()),
        }
    }
    Ok(answer)
}

/// Which turns of this session's checkpoints changed files, by the session
/// entry of their answer (for showing where files can be rewound).
pub async fn changing_entries(agent: &Agent) -> std::collections::HashSet<String> {
    let (kept, session) = open_kept(agent).await;
    let turns = blocking(move || {
        let kept = kept()?;
        let mut all = Vec::new();
        for store in kept.stores() {
            all.extend(store.turns(&session)?);
        }
        Ok(all)
    })
    .await
    .unwrap_or_default();
    turns.into_iter().filter_map(|t| t.after.and_then(|a| a.record.entry)).collect()
}

/// Opens the checkpoint stores of the folder and of the sandbox's writable
/// roots (run it off the async threads), and the session's id; once the
/// checkpoint the last turn ends with is taken (it is taken in the
/// background: a restore asked for right after a turn must see it).
async fn open_kept(agent: &Agent) -> (impl FnOnce() -> Result<Kept, CheckpointError> + Send + 'static, String) {
    if let Some(guard) = agent.tool_ctx().change_guard.clone() {
        guard.quiesce().await;
    }
    let ctx = agent.tool_ctx();
    let session = ctx.session.session_id.clone().unwrap_or_default();
    let agent_dir = ctx.session.agent_dir.clone().unwrap_or_else(pi_config::agent_dir);
    let cwd = ctx.cwd.clone();
    let roots = ctx.sandbox.extra_writable_roots().to_vec();
    (move || Kept::open(&agent_dir, &cwd, &roots, cp_text::DEFAULT_MAX_FILE_MB), session)
}

/// Carry out `plan`: ask the extensions, restore, note it in the
/// conversation, tell the extensions (`reason`: `undo` or `rewind`).
async fn apply(
    agent: &mut Agent,
    ext: &ExtSession,
    reason: &'static str,
    kept: Kept,
    session: String,
    plan: KeptPlan,
    force: bool,
) -> Result<Undone, CheckpointError> {
    let checkpoint = plan.checkpoint().to_string();
    let files = serde_json::json!(kept.files(&plan));
    let asked = SessionEvent::SessionBeforeRestore { reason, checkpoint: checkpoint.clone(), files };
    let (kind, asked) = (asked.kind(), asked.to_value());
    for l in ext.scripts() {
        let (cancel, errors) = l.gate(kind, asked.clone()).await;
        ext.report(errors);
        if cancel {
            return Err(CheckpointError::Cancelled);
        }
    }
    let restored = blocking(move || kept.restore(&session, &plan, force)).await?;
    let done = Undone { checkpoint, restored };
    let changed = done.restored.changed();
    let note = CustomMessage {
        custom_type: RESTORE_NOTE_TYPE.to_string(),
        content: serde_json::json!(cp_text::conversation_note(done.short(), &changed)),
        display: true,
        details: Some(Box::new(serde_json::json!({"checkpoint": done.checkpoint, "files": changed}))),
        timestamp: pi_ai::now_ms(),
    };
    agent.record(AgentMessage::Agent(AgentOnly::Custom(note)));
    ext.notify(&SessionEvent::SessionRestore { restored: done.json(), reason }).await;
    Ok(done)
}

/// Run blocking store work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CheckpointError> + Send + 'static,
) -> Result<T, CheckpointError> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| Err(CheckpointError::Git("undo".into(), e.to_string())))
}
