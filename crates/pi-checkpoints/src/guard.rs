//! The [`ChangeGuard`] the agent and the dispatcher tell about turns and
//! calls: a run's first turn's folder is staged in the background while the
//! model answers (the costly walk off the turn's path), becomes the `before`
//! checkpoint at the turn's first call that may change files, and the
//! `after` snapshot is taken in the background when the turn ends (the next
//! turn's calls wait for it; the run's end waits for it). The turns that
//! follow in the same run start from that `after` (the folder as the last
//! turn left it, a moment ago) instead of walking the folder again. A
//! checkpoint that fails is reported once and never stops a call.
//!
//! Changes made to the folder between the turn's start and its first
//! changing call (by the user, while the model answers) count as the turn's.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use pi_tools::{ChangeGuard, GuardFuture, ToolContext};

use crate::kept::Kept;
use crate::store::{Kind, Record, Staged};
use crate::{CheckpointError, text};

/// Where failures are told (once per session: the turn goes on).
pub type Notify = Arc<dyn Fn(String) + Send + Sync>;

/// Checkpoints for the turns of a session.
pub struct Checkpoints {
    inner: Arc<Inner>,
}

struct Inner {
    agent_dir: PathBuf,
    max_file_mb: u64,
    /// `(keepDays, maxStoreMb)`: how the store is pruned on its own.
    pruning: (u64, u64),
    notify: Notify,
    state: Arc<tokio::sync::Mutex<State>>,
    /// Turns started so far: a staged folder counts only for its own turn.
    turns: AtomicU64,
    /// The `after` snapshot being taken in the background.
    after: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// The last turn that ended with an `after` snapshot (0: none).
    after_of: AtomicU64,
    /// The turn (continuing its run) that starts from that `after` (0: none).
    chained: AtomicU64,
    told: Mutex<bool>,
}

#[derive(Default)]
struct State {
    /// The stores of the working folder and the sandbox's writable roots.
    kept: Option<Kept>,
    /// The `before` checkpoints of the turn running now: (session, one id per store).
    open: Option<(String, Vec<String>)>,
    /// The folder staged at a turn's start.
    ready: Option<Ready>,
}

struct Ready {
    turn: u64,
    session: String,
    cwd: PathBuf,
    /// One per store.
    staged: Vec<Staged>,
    /// Kept from the previous turn's `after`: serves only a turn of the
    /// same run ([`Inner::chained`]).
    from_after: bool,
}

fn session_of(ctx: &ToolContext) -> String {
    ctx.session.session_id.clone().unwrap_or_else(|| "no-session".into())
}

impl Checkpoints {
    /// Checkpoints kept under `agent_dir`, files over `max_file_mb` left out.
    pub fn new(agent_dir: PathBuf, max_file_mb: u64, notify: Notify) -> Self {
        let inner = Inner {
            agent_dir,
            max_file_mb,
            pruning: (text::DEFAULT_KEEP_DAYS, text::DEFAULT_MAX_STORE_MB),
            notify,
            state: Default::default(),
            turns: AtomicU64::new(0),
            after: Mutex::new(None),
            after_of: AtomicU64::new(0),
            chained: AtomicU64::new(0),
            told: Mutex::new(false),
        };
        Checkpoints { inner: Arc::new(inner) }
    }

    /// Prune the store on its own (at most once a day, when a session first
    /// uses it): sessions older than `keep_days` go, then the oldest while
    /// it is larger than `max_store_mb`; the session running stays.
    pub fn pruning(mut self, keep_days: u64, max_store_mb: u64) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.pruning = (keep_days, max_store_mb);
        }
        self
    }
}

impl Inner {
    fn tell(&self, e: &CheckpointError) {
        // pi ending while a folder was still being staged is not a failure.
        if matches!(e, CheckpointError::Ending) {
            return;
        }
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

    /// The stores of `ctx`'s folder and writable roots (opened once, again
    /// after a change of folder).
    async fn kept(&self, state: &mut State, ctx: &ToolContext) -> Result<Kept, CheckpointError> {
        let cwd = ctx.cwd.canonicalize().unwrap_or_else(|_| ctx.cwd.clone());
        if let Some(k) = state.kept.as_ref().filter(|k| k.primary().work() == cwd) {
            return Ok(k.clone());
        }
        let (dir, cwd, mb) = (self.agent_dir.clone(), ctx.cwd.clone(), self.max_file_mb);
        let roots = ctx.sandbox.extra_writable_roots().to_vec();
        let k = blocking(move || Kept::open(&dir, &cwd, &roots, mb)).await?;
        state.kept = Some(k.clone());
        // On a thread of its own, not waited for: pi may end before git's
        // clean-up does (git finishes it, or the next session does it again).
        let (stores, (days, max_mb), session) = (k.stores().to_vec(), self.pruning, session_of(ctx));
        std::thread::spawn(move || {
            for s in stores {
                let _ = s.auto_prune(days, max_mb, &session);
            }
        });
        Ok(k)
    }

    /// At a turn's start: stage the folder for the turn's `before`.
    async fn stage(&self, ctx: ToolContext, turn: u64) -> Result<(), CheckpointError> {
        let mut state = self.state.lock().await;
        if state.open.is_some() || self.turns.load(Ordering::SeqCst) != turn {
            return Ok(());
        }
        let kept = self.kept(&mut state, &ctx).await?;
        let session = session_of(&ctx);
        let for_session = session.clone();
        let staged = blocking(move || kept.stage(&for_session)).await?;
        state.ready = Some(Ready { turn, session, cwd: ctx.cwd.clone(), staged, from_after: false });
        Ok(())
    }

    /// Before a call that may change files: the turn's `before` checkpoint.
    async fn before(&self, ctx: &ToolContext) -> Result<(), CheckpointError> {
        let mut state = self.state.lock().await;
        if state.open.is_some() {
            return Ok(());
        }
        let kept = self.kept(&mut state, ctx).await?;
        let session = session_of(ctx);
        let turn = self.turns.load(Ordering::SeqCst);
        let chained = self.chained.load(Ordering::SeqCst) == turn;
        let ready = state.ready.take().filter(|r| {
            r.turn == turn
                && r.session == session
                && r.cwd == ctx.cwd
                && r.staged.len() == kept.stores().len()
                && (!r.from_after || chained)
        });
        let record = Record::new(Kind::Before, &session);
        let snaps = match ready {
            Some(r) => blocking(move || kept.commit(record, r.staged, &[])).await?,
            None => blocking(move || kept.snapshot(record, &[]).map(|(snaps, _)| snaps)).await?,
        };
        state.open = Some((session, snaps.into_iter().map(|s| s.id).collect()));
        Ok(())
    }
}

impl Checkpoints {
    /// A turn starts: stage its folder in the background, unless it
    /// continues a run whose last turn's `after` is (being) taken: that
    /// serves it.
    fn start_turn(&self, ctx: &ToolContext, may_change: bool, continues: bool) {
        let turn = self.inner.turns.fetch_add(1, Ordering::SeqCst) + 1;
        if !may_change {
            return;
        }
        if continues && self.inner.after_of.load(Ordering::SeqCst) + 1 == turn {
            self.inner.chained.store(turn, Ordering::SeqCst);
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let (inner, ctx) = (self.inner.clone(), ctx.clone());
        runtime.spawn(async move {
            if let Err(e) = inner.stage(ctx, turn).await {
                inner.tell(&e);
            }
        });
    }
}

impl ChangeGuard for Checkpoints {
    fn turn_started(&self, ctx: &ToolContext, may_change: bool) {
        self.start_turn(ctx, may_change, false);
    }

    fn turn_continued(&self, ctx: &ToolContext, may_change: bool) {
        self.start_turn(ctx, may_change, true);
    }

    fn before_change<'a>(&'a self, ctx: &'a ToolContext) -> GuardFuture<'a> {
        Box::pin(async move {
            if let Err(e) = self.inner.before(ctx).await {
                self.inner.tell(&e);
            }
        })
    }

    fn turn_ended<'a>(&'a self, ctx: &'a ToolContext, entry: Option<&'a str>) -> GuardFuture<'a> {
        let entry = entry.map(str::to_string);
        Box::pin(async move {
            let mut state = self.inner.state.clone().lock_owned().await;
            let (Some((session, before)), Some(kept)) = (state.open.take(), state.kept.clone()) else { return };
            let inner = self.inner.clone();
            let ended = inner.turns.load(Ordering::SeqCst);
            inner.after_of.store(ended, Ordering::SeqCst);
            let cwd = ctx.cwd.clone();
            let record = Record { entry, ..Record::new(Kind::After, &session) };
            // In the background, holding the state: the next turn's calls
            // wait for it, and a turn continuing the run starts from it.
            let task = tokio::spawn(async move {
                let taken = blocking(move || kept.snapshot(record, &before)).await;
                match taken {
                    Ok((_, staged)) => {
                        state.ready = Some(Ready { turn: ended + 1, session, cwd, staged, from_after: true });
                    }
                    Err(e) => inner.tell(&e),
                }
                drop(state);
            });
            if let Ok(mut after) = self.inner.after.lock() {
                *after = Some(task);
            }
        })
    }

    /// Waits for the last turn's `after` snapshot; a folder still being
    /// staged for a turn that made no change is not waited for.
    fn settle<'a>(&'a self) -> GuardFuture<'a> {
        Box::pin(async move {
            let task = self.inner.after.lock().ok().and_then(|mut a| a.take());
            if let Some(task) = task {
                let _ = task.await;
            }
        })
    }

    /// [`ChangeGuard::settle`], and a folder being staged for a turn's
    /// start: it holds the state (and the session's git index) until done.
    fn quiesce<'a>(&'a self) -> GuardFuture<'a> {
        Box::pin(async move {
            self.settle().await;
            drop(self.inner.state.lock().await);
        })
    }
}

/// Run blocking store work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CheckpointError> + Send + 'static,
) -> Result<T, CheckpointError> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| Err(not_run(&e)))
}

/// Why store work did not finish: cancelled, the runtime is shutting down
/// (pi is ending) before it ran; else it panicked.
fn not_run(e: &tokio::task::JoinError) -> CheckpointError {
    if e.is_cancelled() { CheckpointError::Ending } else { CheckpointError::Git("task".into(), e.to_string()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_work_stopped_by_pi_ending_is_not_a_failure() {
        // A task cancelled before it ran (as the runtime cancels the blocking
        // work it has not started when pi ends) reads as `Ending`.
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let cancelled = rt.block_on(async {
            let task = tokio::spawn(std::future::pending::<()>());
            task.abort();
            task.await.unwrap_err()
        });
        assert!(matches!(not_run(&cancelled), CheckpointError::Ending));
        // It is not told as a failure; a real failure is.
        let told = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = told.clone();
        let guard = Checkpoints::new(
            std::env::temp_dir(),
            10,
            Arc::new(move |_: String| {
                count.fetch_add(1, Ordering::SeqCst);
            }),
        );
        guard.inner.tell(&CheckpointError::Ending);
        assert_eq!(told.load(Ordering::SeqCst), 0);
        guard.inner.tell(&CheckpointError::NothingToUndo);
        assert_eq!(told.load(Ordering::SeqCst), 1);
    }
}
