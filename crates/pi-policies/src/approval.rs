//! `approval`: opt-in per-call approval from tool annotations (beyond.md B6).
//!
//! A call needs approval when its tool's annotations say it may change or
//! reach beyond the machine's files: `destructiveHint` true, or not
//! `readOnlyHint` and (`destructiveHint` or `openWorldHint`), missing hints
//! counting as true (MCP's defaults). This is the heuristic the reference's
//! extension documentation gives. Annotations are unverified author hints
//! (X5): a tool that lies about being read-only is not asked about.

use std::sync::Arc;

use futures::future::BoxFuture;
use pi_agent::{Interceptor, ToolCallDecision, ToolCallEvent};
use pi_tools::Annotations;

use crate::{APPROVAL_ARGS_MAX_BYTES, Approver, text};

/// Whether a tool with these annotations (`None`: unknown tool, every hint
/// missing) needs approval.
pub fn needs_approval(hints: Option<&Annotations>) -> bool {
    let none = Annotations::default();
    let h = hints.unwrap_or(&none);
    h.destructive_hint == Some(true)
        || (!h.read_only_hint.unwrap_or(false)
            && (h.destructive_hint.unwrap_or(true) || h.open_world_hint.unwrap_or(true)))
}

/// The `approval` policy. It reads the annotations of the called tool's
/// live definition (the dispatcher hands it over with the call), so a tool
/// registered after start-up is judged by its own hints.
pub struct Approval {
    ui: Option<Arc<dyn Approver>>,
}

impl Approval {
    /// Its name.
    pub const NAME: &'static str = "approval";
    const SOURCE: &'static str = "builtin:approval";

    /// The policy asking through `ui` (`None`: refuse every call that needs
    /// approval).
    pub fn new(ui: Option<Arc<dyn Approver>>) -> Self {
        Approval { ui }
    }

    async fn decide(&self, ev: &ToolCallEvent) -> Option<ToolCallDecision> {
        if !needs_approval(Some(&ev.definition.annotations)) {
            return None;
        }
        let Some(ui) = &self.ui else {
            return Some(ToolCallDecision::block(text::approval_no_ui(&ev.tool_name)));
        };
        let args = serde_json::to_string(&ev.input).unwrap_or_default();
        let args = pi_tools::truncate::truncate_middle(&args, APPROVAL_ARGS_MAX_BYTES);
        let message = text::approval_message(&ev.tool_name, &args);
        if ui.confirm(text::APPROVAL_TITLE, &message).await {
            None
        } else {
            Some(ToolCallDecision::block(text::not_approved(&ev.tool_name)))
        }
    }
}

impl Interceptor for Approval {
    fn source(&self) -> &str {
        Self::SOURCE
    }

    fn judges_final_input(&self) -> bool {
        true
    }

    fn on_tool_call<'a>(
        &'a self,
        ev: &'a mut ToolCallEvent,
    ) -> BoxFuture<'a, Result<Option<ToolCallDecision>, pi_agent::HandlerError>> {
        Box::pin(async move { Ok(self.decide(ev).await) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin_annotations;

    fn hints(read_only: Option<bool>, destructive: Option<bool>, open_world: Option<bool>) -> Annotations {
        Annotations {
            read_only_hint: read_only,
            destructive_hint: destructive,
            idempotent_hint: None,
            open_world_hint: open_world,
        }
    }

    #[test]
    fn the_documented_heuristic() {
        let t = Some(true);
        let f = Some(false);
        // Missing everything (or an unknown tool): not read-only, may destroy.
        assert!(needs_approval(None));
        assert!(needs_approval(Some(&Annotations::default())));
        // Read-only, nothing else said.
        assert!(!needs_approval(Some(&hints(t, None, None))));
        // destructiveHint true wins even over readOnlyHint.
        assert!(needs_approval(Some(&hints(t, t, f))));
        // Not read-only: destructive or open world (missing = true).
        assert!(!needs_approval(Some(&hints(f, f, f))));
        assert!(needs_approval(Some(&hints(f, f, None))));
        assert!(needs_approval(Some(&hints(f, None, f))));
        assert!(needs_approval(Some(&hints(f, f, t))));
        assert!(!needs_approval(Some(&hints(None, f, f))));
        // Read-only but open world (a web fetch): not asked.
        assert!(!needs_approval(Some(&hints(t, f, t))));
    }

    #[test]
    fn builtins() {
        for (name, asked) in [
            ("read", false),
            ("grep", false),
            ("find", false),
            ("ls", false),
            ("write", true),
            ("edit", true),
            ("bash", true),
            ("powershell", true),
        ] {
            assert_eq!(needs_approval(builtin_annotations(name).as_ref()), asked, "{name}");
        }
    }
}
