//! What a tool call runs against: the session's folder, its abort signal and
//! the session facts that commands see.

use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::ToolResult;
use crate::output_file::OutputFiles;
use crate::queue::FileMutationQueue;

/// Receives partial results while a tool runs (bash streaming).
pub type UpdateFn = Arc<dyn Fn(&ToolResult) + Send + Sync>;

/// Receives a command's decoded output, piece by piece, as it arrives.
pub type OutputFn = Arc<dyn Fn(&str) + Send + Sync>;

/// Session facts exposed to commands (`PI_*` variables) and command settings.
#[derive(Debug, Clone, Default)]
pub struct SessionEnv {
    /// `PI_SESSION_ID`.
    pub session_id: Option<String>,
    /// `PI_SESSION_FILE` (only when the session is persisted).
    pub session_file: Option<String>,
    /// `PI_PROVIDER`.
    pub provider: Option<String>,
    /// `PI_MODEL`.
    pub model: Option<String>,
    /// `PI_REASONING_LEVEL`.
    pub reasoning_level: Option<String>,
    /// The agent dir; `<agent-dir>/bin` goes first on the command `PATH`.
    pub agent_dir: Option<PathBuf>,
    /// The `shellPath` setting.
    pub shell_path: Option<String>,
    /// The `shellCommandPrefix` setting.
    pub shell_command_prefix: Option<String>,
    /// `--offline`: commands see `PI_OFFLINE=1` and `PI_SKIP_VERSION_CHECK=1`.
    pub offline: bool,
    /// Variables a command's environment gets last (`None`: removed): an
    /// extension's bash `spawnHook` returning another `env`.
    pub env_overrides: Vec<(String, Option<String>)>,
}

/// A future a [`ChangeGuard`] returns.
pub type GuardFuture<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'a>>;

/// Told before a call that may change files runs, and when the turn that
/// made such calls ends (checkpoints: `pi-checkpoints`). It never blocks a
/// call: a guard that fails says so and lets the call run.
pub trait ChangeGuard: Send + Sync {
    /// A turn starts (its request is about to be made): the guard may
    /// prepare in the background (`may_change`: a tool the model can call
    /// is not read-only). Never waits.
    fn turn_started(&self, _ctx: &ToolContext, _may_change: bool) {}
    /// A turn of the same run starts right after the previous one ended
    /// (its tool results, or a queued message, are about to be sent): what
    /// the guard kept when that turn ended may serve this one. Never waits.
    fn turn_continued(&self, ctx: &ToolContext, may_change: bool) {
        self.turn_started(ctx, may_change)
    }
    /// Before a call whose tool is not read-only runs (once a turn is
    /// enough: the guard keeps track).
    fn before_change<'a>(&'a self, ctx: &'a ToolContext) -> GuardFuture<'a>;
    /// A turn ended; `entry` is the session entry of its answer (the
    /// assistant message whose calls ran).
    fn turn_ended<'a>(&'a self, ctx: &'a ToolContext, entry: Option<&'a str>) -> GuardFuture<'a>;
    /// The run ends: what the last turn left to do in the background (its
    /// `after` checkpoint) is done when this returns.
    fn settle<'a>(&'a self) -> GuardFuture<'a> {
        Box::pin(async {})
    }
    /// Nothing of the guard runs in the background when this returns, not
    /// even work for a turn that changed nothing (before a restore uses
    /// what the guard writes).
    fn quiesce<'a>(&'a self) -> GuardFuture<'a> {
        self.settle()
    }
}

/// Everything a handler may use besides its arguments.
#[derive(Clone)]
pub struct ToolContext {
    /// The session's working directory; relative paths resolve against it.
    pub cwd: PathBuf,
    /// Cancelled when the call is aborted.
    pub abort: CancellationToken,
    /// Streaming updates, when the caller wants them.
    pub on_update: Option<UpdateFn>,
    /// Session facts and command settings.
    pub session: SessionEnv,
    /// Serialises `edit`/`write` calls per file; clones of the context share it.
    pub mutation_queue: FileMutationQueue,
    /// The sandbox commands run in and `write`/`edit` obey (mode `off` by default).
    pub sandbox: Arc<pi_sandbox::Sandbox>,
    /// The full-output files tools made; clones of the context share them.
    pub output_files: OutputFiles,
    /// Told before calls that may change files (checkpoints), when set.
    pub change_guard: Option<Arc<dyn ChangeGuard>>,
}

impl ToolContext {
    /// A context for `cwd` with no abort, no updates and no session facts.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        ToolContext {
            cwd: cwd.into(),
            abort: CancellationToken::new(),
            on_update: None,
            session: SessionEnv::default(),
            mutation_queue: FileMutationQueue::new(),
            sandbox: Arc::new(pi_sandbox::Sandbox::off()),
            output_files: OutputFiles::new(),
            change_guard: None,
        }
    }
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("cwd", &self.cwd)
            .field("session", &self.session)
            .field("sandbox", &self.sandbox.mode())
            .finish_non_exhaustive()
    }
}
