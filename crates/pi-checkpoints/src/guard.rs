//! The [`ChangeGuard`] the dispatcher tells before a call that may change
//! files: a `before` snapshot once per turn, an `after` snapshot when the
//! turn ends. A checkpoint that fails is reported once and never stops the
//! call.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pi_tools::{ChangeGuard, GuardFuture, ToolContext};

use crate::store::{Kind, Record, Store, now_ms};
use crate::{CheckpointError, text};

/// Where failures are told (once per session: the turn goes on).
pub type Notify = Arc<dyn Fn(String) + Send + Sync>;

/// Checkpoints for the turns of a session.
pub struct Checkpoints {
    agent_dir: PathBuf,
    max_file_mb: u64,
    notify: Notify,
    state: tokio::sync::Mutex<State>,
    told: Mutex<bool>,
}

#[derive(Default)]
struct State {
    store: Option<Store>,
    /// The `before` snapshot of the turn running now.
    open: Option<(String, String)>,
}

impl Checkpoints {
    /// Checkpoints kept under `agent_dir`, files over `max_file_mb` left out.
    pub fn new(agent_dir: PathBuf, max_file_mb: u64, notify: Notify) -> Self {
        Checkpoints { agent_dir, max_file_mb, notify, state: Default::default(), told: Mutex::new(false) }
    }

    fn tell(&self, e: &CheckpointError) {
        let Ok(mut told) = self.told.lock() else { return };
        if !*told {
            *told = true;
            (self.notify)(match e {
                CheckpointError::NoGit(why) => text::no_git(why),
                CheckpointError::TooBroad(_) => e.to_string(),
                other => text::checkpoint_failed(&other.to_string()),
            });
        }
    }

    async fn before(&self, ctx: &ToolContext) -> Result<(), CheckpointError> {
        let mut state = self.state.lock().await;
        if state.open.is_some() {
            return Ok(());
        }
        let session = ctx.session.session_id.clone().unwrap_or_else(|| "no-session".into());
        let store = match &state.store {
            Some(s) if s.work() == ctx.cwd.canonicalize().unwrap_or_else(|_| ctx.cwd.clone()) => s.clone(),
            _ => {
                let (dir, cwd, mb) = (self.agent_dir.clone(), ctx.cwd.clone(), self.max_file_mb);
                let s = blocking(move || Store::open(&dir, &cwd, mb)).await?;
                state.store = Some(s.clone());
                s
            }
        };
        let record = Record {
            kind: Kind::Before,
            session: session.clone(),
            entry: None,
            of: None,
            time: now_ms(),
            skipped: vec![],
        };
        let snap = blocking(move || store.snapshot(record)).await?;
        state.open = Some((session, snap.id));
        Ok(())
    }

    async fn after(&self, entry: Option<&str>) -> Result<(), CheckpointError> {
        let mut state = self.state.lock().await;
        let (Some((session, before)), Some(store)) = (state.open.take(), state.store.clone()) else { return Ok(()) };
        let record = Record {
            kind: Kind::After,
            session,
            entry: entry.map(str::to_string),
            of: Some(before),
            time: now_ms(),
            skipped: vec![],
        };
        blocking(move || store.snapshot(record)).await.map(|_| ())
    }
}

impl ChangeGuard for Checkpoints {
    fn before_change<'a>(&'a self, ctx: &'a ToolContext) -> GuardFuture<'a> {
        Box::pin(async move {
            if let Err(e) = self.before(ctx).await {
                self.tell(&e);
            }
        })
    }

    fn turn_ended<'a>(&'a self, _ctx: &'a ToolContext, entry: Option<&'a str>) -> GuardFuture<'a> {
        Box::pin(async move {
            if let Err(e) = self.after(entry).await {
                self.tell(&e);
            }
        })
    }
}

/// Run blocking store work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CheckpointError> + Send + 'static,
) -> Result<T, CheckpointError> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| Err(CheckpointError::Git("task".into(), e.to_string())))
}
