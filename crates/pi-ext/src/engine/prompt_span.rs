//! `ui_prompt_start` and `ui_prompt_end`: around a dialog or component an
//! extension shows, every extension of the run that listens hears that pi
//! waits for the user (not awaited, as the reference). Nested or
//! overlapping prompts make one span: the outer one's start and end.
//!
//! The engines of a run hear each other's spans through one
//! [`PromptSpans`] handle, which every load of the run's extensions is
//! given ([`crate::HostOptions::prompt_spans`]).

use std::sync::{Arc, Mutex, Weak};

use serde_json::{Value, json};

/// One that hears prompt spans: an engine, whose extensions may listen.
pub(crate) trait Listener: Send + Sync {
    /// Whether a handler listens to `event`.
    fn handles(&self, event: &str) -> bool;
    /// Hand it event `event` with `payload` (not awaited).
    fn post_event(&self, event: &str, payload: Value);
}

/// The engines that hear one another's prompt spans (those loaded with
/// clones of one handle: a run's), and the span open among them. A new
/// handle starts a new group.
#[derive(Clone, Default)]
pub struct PromptSpans(Arc<Mutex<Spans>>);

impl std::fmt::Debug for PromptSpans {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let open = self.0.lock().map(|s| s.open).unwrap_or(0);
        f.debug_struct("PromptSpans").field("open", &open).finish_non_exhaustive()
    }
}

/// The engines of the group (dead ones are dropped as they are met), and
/// the open span: how many prompts are open, and the first one's kind and title.
#[derive(Default)]
struct Spans {
    engines: Vec<Weak<dyn Listener>>,
    open: usize,
    first: Option<(String, String)>,
}

/// The kind of a custom component's prompt (it has no title).
pub(crate) const CUSTOM: &str = "custom";

fn tell(engines: &[Weak<dyn Listener>], event: &str, kind: &str, title: &str) {
    let mut payload = json!({"type": event, "reason": "ui_prompt", "kind": kind, "title": title});
    if kind == CUSTOM {
        payload.as_object_mut().map(|p| p.remove("title"));
    }
    for e in engines.iter().filter_map(Weak::upgrade).filter(|e| e.handles(event)) {
        e.post_event(event, payload.clone());
    }
}

impl PromptSpans {
    /// Let `engine` hear the group's prompt spans.
    pub(crate) fn register<L: Listener + 'static>(&self, engine: &Arc<L>) {
        let weak: Weak<L> = Arc::downgrade(engine);
        let weak: Weak<dyn Listener> = weak;
        if let Ok(mut s) = self.0.lock() {
            s.engines.retain(|e| e.strong_count() > 0);
            s.engines.push(weak);
        }
    }

    /// A prompt of `kind` (`select`, `confirm`, `input`, `editor`, `custom`) opens.
    pub(crate) fn begin(&self, kind: &str, title: &str) {
        let Ok(mut s) = self.0.lock() else { return };
        s.open += 1;
        if s.open == 1 {
            s.first = Some((kind.to_string(), title.to_string()));
            tell(&s.engines, "ui_prompt_start", kind, title);
        }
    }

    /// A prompt closes (the span ends with the last one).
    pub(crate) fn end(&self) {
        let Ok(mut s) = self.0.lock() else { return };
        s.open = s.open.saturating_sub(1);
        if s.open == 0
            && let Some((kind, title)) = s.first.take()
        {
            tell(&s.engines, "ui_prompt_end", &kind, &title);
        }
    }
}
