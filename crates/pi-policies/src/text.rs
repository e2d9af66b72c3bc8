//! Every message the policies send to the model or show the user. The
//! permission gate's and protected paths' texts are the reference examples'
//! (`permission-gate.ts`, `protected-paths.ts`), byte for byte.

/// The permission gate's reason when there is no UI to ask.
pub const DANGEROUS_NO_UI: &str = "Dangerous command blocked (no UI for confirmation)";

/// The permission gate's reason when the user did not choose `Yes`.
pub const BLOCKED_BY_USER: &str = "Blocked by user";

/// The option that allows a dangerous command.
pub const YES: &str = "Yes";

/// The option that refuses it.
pub const NO: &str = "No";

/// The permission gate's question: `⚠️ Dangerous command:\n\n  <cmd>\n\nAllow?`.
pub fn dangerous_command_question(command: &str) -> String {
    format!("⚠️ Dangerous command:\n\n  {command}\n\nAllow?")
}

/// The protected-paths reason, with the path as the model gave it.
pub fn path_protected(path: &str) -> String {
    format!("Path \"{path}\" is protected")
}

/// The protected-paths warning shown when there is a UI.
pub fn blocked_write_notice(path: &str) -> String {
    format!("Blocked write to protected path: {path}")
}

/// The title of the approval question (the reference documentation's).
pub const APPROVAL_TITLE: &str = "Allow tool call?";

/// The body of the approval question: the tool's name, then its arguments.
pub fn approval_message(tool: &str, args: &str) -> String {
    format!("{tool}\n\n{args}")
}

/// The approval reason when the user says no (the reference documentation's).
pub fn not_approved(tool: &str) -> String {
    format!("{tool} was not approved")
}

/// The approval reason when there is no UI to ask.
pub fn approval_no_ui(tool: &str) -> String {
    format!("Blocked: {tool} needs approval but no UI is available (approval policy)")
}

/// Why a policy failed (it then blocks the call: handlers fail closed).
pub fn policy_failed(policy: &str, error: &str) -> String {
    format!("Policy {policy} failed: {error}")
}
