//! Settings a controller changes while a run holds the agent (RPC
//! `set_steering_mode`, `set_follow_up_mode`, `set_auto_retry`,
//! `set_auto_compaction`): shared, read by the loop when it needs them.

use std::sync::{Arc, Mutex};

/// How queued messages are delivered: `"one-at-a-time"` (default) or
/// `"all"`; another value is kept as given (as the reference keeps it) and
/// delivers one at a time.
pub const QUEUE_ONE_AT_A_TIME: &str = "one-at-a-time";
/// Deliver every queued message at once.
pub const QUEUE_ALL: &str = "all";

#[derive(Debug, Clone)]
struct Live {
    steering_mode: String,
    follow_up_mode: String,
    auto_retry: bool,
    auto_compaction: bool,
    model_choice: Option<ModelChoice>,
    thinking_choice: Option<ThinkingChoice>,
}

/// A model an extension chose (`pi.setModel`), taken by the agent before
/// its next request.
#[derive(Debug, Clone)]
pub struct ModelChoice {
    /// The model.
    pub model: pi_ai::Model,
    /// Its key, resolved.
    pub api_key: Option<String>,
    /// The thinking level clamped to the new model, when that changed it.
    pub thinking: Option<ThinkingChoice>,
}

/// A thinking level chosen (`pi.setThinkingLevel`, or clamped by a model change).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThinkingChoice {
    /// The new level (`off`, `low`, …).
    pub level: String,
    /// The level before.
    pub previous: String,
}

impl Default for Live {
    fn default() -> Self {
        Live {
            steering_mode: QUEUE_ONE_AT_A_TIME.into(),
            follow_up_mode: QUEUE_ONE_AT_A_TIME.into(),
            auto_retry: true,
            auto_compaction: true,
            model_choice: None,
            thinking_choice: None,
        }
    }
}

/// The shared settings; clones share them.
#[derive(Debug, Clone, Default)]
pub struct LiveSettings {
    inner: Arc<Mutex<Live>>,
    retry: Arc<tokio::sync::Notify>,
    /// Whether a retry waits now (what `abort_retry` would stop), and what
    /// to do once it has ended (after `auto_retry_end` is announced).
    retry_wait: Arc<Mutex<RetryWait>>,
}

/// The state of a waiting retry, for [`LiveSettings::abort_retry`].
#[derive(Default)]
struct RetryWait {
    waiting: bool,
    on_end: Vec<Box<dyn FnOnce() + Send>>,
}

impl std::fmt::Debug for RetryWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RetryWait").field("waiting", &self.waiting).finish_non_exhaustive()
    }
}

impl LiveSettings {
    fn with<R>(&self, f: impl FnOnce(&mut Live) -> R) -> R {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut g)
    }

    /// Stop a retry that waits (`abort_retry`): the failure stands. When
    /// one waits, `then` runs once the agent has ended it, right after it
    /// announced `auto_retry_end` (a front end answers there, as the
    /// reference does); otherwise `then` runs at once.
    pub fn abort_retry(&self, then: impl FnOnce() + Send + 'static) {
        let then: Box<dyn FnOnce() + Send> = Box::new(then);
        let now = {
            let mut w = self.retry_wait.lock().unwrap_or_else(|p| p.into_inner());
            if w.waiting {
                w.on_end.push(then);
                None
            } else {
                Some(then)
            }
        };
        self.retry.notify_waiters();
        if let Some(then) = now {
            then();
        }
    }

    /// A retry starts waiting (`true`) or has ended (`false`: what
    /// [`LiveSettings::abort_retry`] asked to run after it runs now).
    pub(crate) fn set_retry_waiting(&self, waiting: bool) {
        let ended = {
            let mut w = self.retry_wait.lock().unwrap_or_else(|p| p.into_inner());
            w.waiting = waiting;
            std::mem::take(&mut w.on_end)
        };
        for f in ended {
            f();
        }
    }

    /// A wait that resolves when [`LiveSettings::abort_retry`] is called
    /// from now on: armed before the retry is announced, so an abort sent
    /// the moment the announcement arrives is not lost.
    pub fn retry_aborted(&self) -> std::pin::Pin<Box<tokio::sync::futures::Notified<'_>>> {
        let mut wait = Box::pin(self.retry.notified());
        wait.as_mut().enable();
        wait
    }

    /// The steering delivery mode.
    pub fn steering_mode(&self) -> String {
        self.with(|l| l.steering_mode.clone())
    }
    /// Set the steering delivery mode.
    pub fn set_steering_mode(&self, mode: &str) {
        self.with(|l| l.steering_mode = mode.to_string());
    }
    /// The follow-up delivery mode.
    pub fn follow_up_mode(&self) -> String {
        self.with(|l| l.follow_up_mode.clone())
    }
    /// Set the follow-up delivery mode.
    pub fn set_follow_up_mode(&self, mode: &str) {
        self.with(|l| l.follow_up_mode = mode.to_string());
    }
    /// Whether failed requests are retried.
    pub fn auto_retry(&self) -> bool {
        self.with(|l| l.auto_retry)
    }
    /// Switch retries on or off.
    pub fn set_auto_retry(&self, on: bool) {
        self.with(|l| l.auto_retry = on);
    }
    /// Whether the context is compacted when it fills.
    pub fn auto_compaction(&self) -> bool {
        self.with(|l| l.auto_compaction)
    }
    /// Switch automatic compaction on or off.
    pub fn set_auto_compaction(&self, on: bool) {
        self.with(|l| l.auto_compaction = on);
    }
    /// Use `choice` from the next request on (the latest choice wins).
    pub fn choose_model(&self, choice: ModelChoice) {
        self.with(|l| l.model_choice = Some(choice));
    }
    /// Use thinking level `choice` from the next request on.
    pub fn choose_thinking(&self, choice: ThinkingChoice) {
        self.with(|l| l.thinking_choice = Some(choice));
    }
    /// The choices not applied yet (taken).
    pub(crate) fn take_choices(&self) -> (Option<ModelChoice>, Option<ThinkingChoice>) {
        self.with(|l| (l.model_choice.take(), l.thinking_choice.take()))
    }
}
