//! One session driven by typed operations: [`Runtime`] holds the agent, the
//! extensions' side of the session and what `/reload` remembers, and
//! [`Runtime::apply`] carries out an [`Op`] as every front end wants it done
//! (print mode, the terminal UI and RPC send the same operations). What the
//! session does meanwhile reaches the front end as typed
//! [`pi_agent::AgentEvent`]s through the agent's event sink.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use pi_agent::Agent;
use pi_ai::AssistantMessage;
use pi_checkpoints::CheckpointError;

use crate::ext_input::{Incoming, StepSink};
use crate::ext_session::ExtSession;
use crate::model_change::ModelChoice;
use crate::model_select::NoApiKey;
use crate::reload::ReloadState;
use crate::session_event::SessionEvent;
use crate::session_events::Replacement;
use crate::tree_events::{Moved, TreeMove};
use crate::undo::Undone;

/// What a front end asks of the session.
#[derive(Debug)]
pub enum Op {
    /// A message in (typed, sent, or an extension's): an extension command
    /// runs, the `input` handlers may handle it, the rest goes to the model;
    /// then whatever the extensions asked for meanwhile.
    Submit(Incoming),
    /// [`Op::Submit`] for a front end that answers as it goes (RPC's
    /// `prompt`): `steps` is told when the message is handled, when its run
    /// starts, or why it was refused.
    SubmitTelling {
        /// The message.
        incoming: Incoming,
        /// Told each step.
        steps: StepSink,
    },
    /// An extension's keyboard shortcut, then what its handler asked for.
    Shortcut(String),
    /// What the extensions asked for and is still to do (messages sent, a
    /// triggered turn, a reload, a replaced session): after a command or a
    /// prompt a front end ran step by step, or while the session was idle.
    Settle,
    /// `/reload`: settings, context files, extensions, skills and templates
    /// read again, the system prompt rebuilt.
    Reload,
    /// The front end replaced the session (new, another file, a fork or a
    /// clone): the extensions hear it and load again. `previous` is the
    /// session file before.
    Replaced {
        /// How it was replaced.
        how: Replacement,
        /// The session file before.
        previous: Option<String>,
    },
    /// The session now runs in another folder (a resumed session's own):
    /// trust is decided there and the prompt rebuilt for it.
    MoveTo(PathBuf),
    /// Choose the model (when given) and the thinking level (when given;
    /// else the current one, clamped to the model's).
    Choose {
        /// The model, its key and how it was chosen (boxed: a model entry
        /// is large beside the other operations).
        model: Option<Box<ModelChoice>>,
        /// The thinking level asked for.
        thinking: Option<String>,
    },
    /// Compact the conversation now (`/compact`, RPC `compact`); the
    /// outcome also arrives as `compaction_end`.
    Compact {
        /// What the summary should keep in mind.
        instructions: Option<String>,
    },
    /// Move the conversation to `target` in the session tree (`/tree`): the
    /// extensions are asked first and told after.
    Navigate {
        /// The entry to move to.
        target: String,
        /// How (a summary of the branch left behind, a label).
        how: TreeMove,
    },
    /// Bring the files back to before the last changing turn (`force`: over
    /// files changed since).
    Undo {
        /// Restore over files changed since.
        force: bool,
    },
    /// Bring the files back to before the earliest of these turns (the
    /// part of the conversation a `/tree` move leaves behind).
    Rewind {
        /// The session entries of the turns' answers.
        entries: HashSet<String>,
        /// Restore over files changed since.
        force: bool,
    },
}

/// What an [`Op`] came to.
#[derive(Debug)]
pub enum Outcome {
    /// Done, nothing to tell.
    Done,
    /// The last answer of the runs it started, if any ([`Op::Submit`]).
    Answer(Option<AssistantMessage>),
    /// Done; warnings for the user ([`Op::Replaced`], [`Op::MoveTo`]).
    Warnings(Vec<String>),
    /// `/reload`'s status line and the settings' warnings.
    Reloaded {
        /// The status line.
        status: String,
        /// The warnings.
        warnings: Vec<String>,
    },
    /// The thinking level in use after [`Op::Choose`], and what the
    /// extensions are to be told of it: the front end hands `tell` to
    /// [`Runtime::tell`] (or [`ExtSession::notify`]) once it no longer
    /// holds the session, so a slow handler holds nothing up.
    Chosen {
        /// The level.
        thinking: String,
        /// `thinking_level_select` and `model_select`, when they changed.
        tell: Vec<SessionEvent>,
    },
    /// What a compaction made (the RPC answer's fields).
    Compacted(serde_json::Value),
    /// Where a move in the tree left the conversation (`None`: an extension
    /// cancelled it).
    Navigated(Option<Moved>),
    /// What a restore brought back (`None`: none of the turns changed files).
    Restored(Option<Undone>),
}

/// Why an [`Op`] failed.
#[derive(Debug, thiserror::Error)]
pub enum OpError {
    /// A prompt was refused before it started: its provider has no credentials.
    #[error(transparent)]
    NoApiKey(#[from] NoApiKey),
    /// A restore could not be made (nothing to undo, a file changed since,
    /// the store unreadable, cancelled by an extension).
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// A compaction could not be made (nothing to compact, cancelled, the
    /// summary request failed).
    #[error(transparent)]
    Compaction(#[from] pi_agent::compaction::CompactionError),
    /// A move in the tree could not be made (an unknown entry, the session
    /// unreadable).
    #[error(transparent)]
    Session(#[from] crate::session_error::SessionCallError),
}

/// A session: the agent, the extensions' side of it and what `/reload`
/// remembers, changed only through [`Runtime::apply`] and the agent's own
/// methods.
pub struct Runtime {
    agent: Agent,
    ext: Arc<ExtSession>,
    reload: ReloadState,
}

impl Runtime {
    /// A session over a built agent.
    pub fn new(agent: Agent, ext: Arc<ExtSession>, reload: ReloadState) -> Runtime {
        Runtime { agent, ext, reload }
    }

    /// Carry out `op`.
    pub async fn apply(&mut self, op: Op) -> Result<Outcome, OpError> {
        let (agent, ext, reload) = (&mut self.agent, &*self.ext, &mut self.reload);
        Ok(match op {
            Op::Submit(incoming) => {
                Outcome::Answer(crate::ext_input::submit(agent, ext, incoming, Some(reload)).await?)
            }
            Op::SubmitTelling { incoming, steps } => {
                crate::ext_input::submit_telling(agent, ext, incoming, steps, Some(reload)).await;
                Outcome::Done
            }
            Op::Shortcut(key) => {
                crate::ext_input::shortcut(agent, ext, &key, Some(reload)).await;
                Outcome::Done
            }
            Op::Settle => {
                crate::ext_input::settle_all(agent, ext, Some(reload)).await;
                Outcome::Done
            }
            Op::Reload => {
                let (status, warnings) = crate::reload::reload_collect(agent, reload).await;
                Outcome::Reloaded { status, warnings }
            }
            Op::Replaced { how, previous } => {
                Outcome::Warnings(crate::session_events::replaced(agent, reload, &how, previous).await)
            }
            Op::MoveTo(cwd) => Outcome::Warnings(crate::reload::move_to(agent, reload, cwd).await),
            Op::Choose { model, thinking } => {
                let (thinking, tell) = crate::model_change::choose(agent, ext, model.map(|m| *m), thinking);
                Outcome::Chosen { thinking, tell }
            }
            Op::Compact { instructions } => {
                let reason = pi_agent::compaction::CompactionReason::Manual;
                Outcome::Compacted(agent.compact(reason, instructions.as_deref(), false).await?.0)
            }
            Op::Navigate { target, how } => {
                Outcome::Navigated(crate::tree_events::move_agent(agent, ext, &target, &how).await?)
            }
            Op::Undo { force } => Outcome::Restored(Some(crate::undo::undo(agent, ext, force).await?)),
            Op::Rewind { entries, force } => Outcome::Restored(crate::undo::rewind(agent, ext, entries, force).await?),
        })
    }

    /// Tell the extensions `events` and wait for their handlers.
    pub async fn tell(&self, events: &[SessionEvent]) {
        for e in events {
            self.ext.notify(e).await;
        }
    }

    /// The agent.
    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    /// The agent, to change what is not an [`Op`] (the session it records
    /// into, a user command's record).
    pub fn agent_mut(&mut self) -> &mut Agent {
        &mut self.agent
    }

    /// The extensions' side of the session.
    pub fn ext(&self) -> &Arc<ExtSession> {
        &self.ext
    }

    /// What `/reload` rebuilds from, as last rebuilt.
    pub fn reload_state(&self) -> &ReloadState {
        &self.reload
    }

    /// The agent and the extensions' side together (for the calls that
    /// take both, such as a move in the session tree).
    pub fn parts(&mut self) -> (&mut Agent, &Arc<ExtSession>) {
        (&mut self.agent, &self.ext)
    }

    /// The session's parts back (when the front end ends).
    pub fn into_parts(self) -> (Agent, Arc<ExtSession>, ReloadState) {
        (self.agent, self.ext, self.reload)
    }
}
