//! `permission-gate`: ask before dangerous shell commands, block them when no
//! one can be asked. A guard against accidents, not a security boundary: it
//! reads the command's text, so anything that hides the text (a script, a
//! variable, `base64 -d | sh`) passes. Use the command sandbox for that.

use std::sync::{Arc, LazyLock};

use futures::future::BoxFuture;
use pi_agent::{Interceptor, ToolCallDecision, ToolCallEvent};
use regex::Regex;

use crate::Approver;
use crate::text;

/// The patterns, all case-insensitive. The first three are the reference
/// example's; the fourth also catches a recursive `rm` whose flag is not
/// first or is bundled (`rm -fr`, `rm -f -r`, `rm dir -Rf`, `rm -dir`), up to
/// the end of the command (`;`, `&`, `|`, a line break).
const PATTERNS: &[&str] = &[
    r"(?i)\brm\s+(-rf?|--recursive)",
    r"(?i)\bsudo\b",
    r"(?i)\b(chmod|chown)\b.*777",
    r"(?i)\brm\b[^;&|\n]*\s(-[a-z]*r|--recursive)",
];

static DANGEROUS: LazyLock<Vec<Regex>> = LazyLock::new(|| PATTERNS.iter().filter_map(|p| Regex::new(p).ok()).collect());

/// Whether the gate treats `command` as dangerous.
pub fn is_dangerous_command(command: &str) -> bool {
    DANGEROUS.iter().any(|re| re.is_match(command))
}

/// The `permission-gate` policy.
pub struct PermissionGate {
    ui: Option<Arc<dyn Approver>>,
}

impl PermissionGate {
    /// Its name.
    pub const NAME: &'static str = "permission-gate";
    const SOURCE: &'static str = "builtin:permission-gate";

    /// A gate asking through `ui` (`None`: block without asking).
    pub fn new(ui: Option<Arc<dyn Approver>>) -> Self {
        PermissionGate { ui }
    }

    async fn decide(&self, ev: &ToolCallEvent) -> Option<ToolCallDecision> {
        if ev.tool_name != "bash" && ev.tool_name != "powershell" {
            return None;
        }
        let command = ev.input.get("command")?.as_str()?;
        if !is_dangerous_command(command) {
            return None;
        }
        let Some(ui) = &self.ui else {
            return Some(ToolCallDecision::block(text::DANGEROUS_NO_UI));
        };
        let question = text::dangerous_command_question(command);
        let choice = ui.select(&question, &[text::YES, text::NO]).await;
        if choice.as_deref() == Some(text::YES) { None } else { Some(ToolCallDecision::block(text::BLOCKED_BY_USER)) }
    }
}

impl Interceptor for PermissionGate {
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

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(DANGEROUS.len(), PATTERNS.len());
    }

    #[test]
    fn the_reference_patterns() {
        for c in [
            "rm -rf /tmp/x",
            "rm -r x",
            "RM -RF x",
            "rm --recursive x",
            "/bin/rm -rf x",
            "cd a && rm -rfv b",
            "sudo ls",
            "echo x | SUDO tee y",
            "chmod 777 f",
            "chmod -R 0777 d",
            "chown root:root f && chmod 777 f",
            "rm\n-rf x",
        ] {
            assert!(is_dangerous_command(c), "{c:?} should be dangerous");
        }
    }

    #[test]
    fn recursive_rm_the_reference_misses() {
        for c in ["rm -fr x", "rm -f -r x", "rm -v -R x", "rm x -rf", "rm -dir x", "rm -f --recursive x"] {
            assert!(is_dangerous_command(c), "{c:?} should be dangerous");
        }
    }

    #[test]
    fn harmless_commands() {
        for c in [
            "ls -la",
            "rm file.txt",
            "rm -f file.txt",
            "rm -i -- my-report",
            "rm --force x",
            "rm a.txt; grep -r x .",
            "rm a && ls -R",
            "rm a | cat -r",
            "farm -r",
            "chmod 755 f",
            "pseudo x",
            "sudoku",
        ] {
            assert!(!is_dangerous_command(c), "{c:?} should not be dangerous");
        }
    }

    #[test]
    fn what_it_does_not_catch() {
        // Documented in docs/policies.md: text tests cannot see through these.
        for c in ["find . -delete", "git clean -fdx", "doas ls", "chmod a+rwx f", "r=rm; $r -rf x"] {
            assert!(!is_dangerous_command(c), "{c:?}");
        }
        // And, like the reference, it flags some harmless text.
        assert!(is_dangerous_command("chmod 644 f; echo 777"));
        assert!(is_dangerous_command("echo 'never use rm -rf'"));
    }
}
