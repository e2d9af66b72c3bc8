//! Messages of the interactive mode's host side.

use pi_ai::Usage;

/// `/new` done.
pub const NEW_SESSION: &str = "Started a new session";
/// `/name` without a name, and none set.
pub const NAME_USAGE: &str = "Usage: /name <name>";

/// A command another part of pi will provide.
pub fn command_not_available(name: &str) -> String {
    format!("/{name} is not available in this build yet")
}
/// A command nobody runs.
pub fn unknown_command(name: &str) -> String {
    format!("Unknown command: /{name}")
}
/// A model that is gone.
pub fn model_not_found(m: &str) -> String {
    format!("Model {m} not found")
}
/// `/name` without a name.
pub fn session_name_is(name: &str) -> String {
    format!("Session name: {name}")
}
/// `/name <name>` done.
pub fn session_named(name: &str) -> String {
    format!("Session name set: {name}")
}
/// `/clone` with nothing in the session.
pub const NOTHING_TO_CLONE: &str = "Nothing to clone yet";
/// `/clone` done.
pub const CLONED: &str = "Cloned to new session";
/// `/resume` continued the chosen session.
pub const RESUMED: &str = "Resumed session";
/// `/fork` with no prompt in the branch.
pub const NO_MESSAGES_TO_FORK: &str = "No messages to fork from";
/// `/fork` done.
pub const FORKED: &str = "Forked to new session";
/// The title of `/fork`'s list.
pub const FORK_TITLE: &str =
    "Fork from Message\nSelect a user message to copy the active path up to that point into a new session";
/// `/export` done.
pub fn session_exported(path: &str) -> String {
    format!("Session exported to: {path}")
}
/// `/export` failed.
pub fn export_failed(e: &str) -> String {
    format!("Failed to export session: {e}")
}

/// What `/session` shows.
pub struct SessionInfo<'a> {
    /// The file.
    pub file: Option<&'a str>,
    /// The id.
    pub id: &'a str,
    /// The name.
    pub name: Option<&'a str>,
    /// Messages in all.
    pub total: usize,
    /// Prompts.
    pub user: usize,
    /// Answers.
    pub assistant: usize,
    /// Tool calls.
    pub calls: usize,
    /// Tool results.
    pub results: usize,
    /// Usage summed.
    pub usage: &'a Usage,
}

/// `/session` as markdown.
pub fn session_info(i: &SessionInfo<'_>) -> String {
    let mut s = String::from("**Session**\n\n");
    s.push_str(&format!("File: {}  \n", i.file.unwrap_or("(not saved)")));
    s.push_str(&format!("ID: {}  \n", i.id));
    if let Some(n) = i.name {
        s.push_str(&format!("Name: {n}  \n"));
    }
    s.push_str("\n**Messages**\n\n");
    s.push_str(&format!(
        "Total: {}  \nUser: {}  \nAssistant: {}  \nTools: {} calls, {} results\n",
        i.total, i.user, i.assistant, i.calls, i.results
    ));
    let u = i.usage;
    s.push_str("\n**Tokens**\n\n");
    s.push_str(&format!("Input: {}  \nOutput: {}  \n", u.input, u.output));
    if u.cache_read + u.cache_write > 0 {
        s.push_str(&format!("Cache read: {}  \nCache write: {}  \n", u.cache_read, u.cache_write));
    }
    s.push_str(&format!("Total: {}\n", u.input + u.output + u.cache_read + u.cache_write));
    if u.cost.total > 0.0 {
        s.push_str(&format!("\n**Cost**\n\n${:.4}\n", u.cost.total));
    }
    s
}
/// The title of `/tree`'s list.
pub const TREE_TITLE: &str = "Session Tree\nSelect an entry to continue the conversation from it (type to search; ctrl+d/t/u/l/a or ctrl+o: filters)";
/// Under `/tree`'s list while its filter hides tool results.
pub const TREE_TAG_NO_TOOLS: &str = "[no-tools]";
/// Under `/tree`'s list while it shows user messages only.
pub const TREE_TAG_USER: &str = "[user]";
/// Under `/tree`'s list while it shows labeled entries only.
pub const TREE_TAG_LABELED: &str = "[labeled]";
/// Under `/tree`'s list while it shows every entry.
pub const TREE_TAG_ALL: &str = "[all]";
/// Appended to the row of the current point in `/tree`.
pub const TREE_CURRENT_MARK: &str = "  ← current";
/// A compaction's row in `/tree`.
pub const TREE_COMPACTION: &str = "[compaction]";
/// A branch summary's row in `/tree`.
pub const TREE_BRANCH_SUMMARY: &str = "[branch summary]";
/// `/tree` with nothing in the session.
pub const TREE_EMPTY: &str = "No entries in session";
/// `/tree` cancelled by an extension.
pub const TREE_CANCELLED: &str = "Navigation cancelled";
/// `/tree` done.
pub const TREE_MOVED: &str = "Navigated to selected point";
/// `/tree`: the entry chosen is where the conversation is already.
pub const TREE_ALREADY_HERE: &str = "Already at this point";
/// `/tree`'s question before moving (the reference's words).
pub const TREE_SUMMARY_QUESTION: &str = "Summarize branch?";
/// The answers to [`TREE_SUMMARY_QUESTION`]: no, yes, yes with instructions.
pub const TREE_SUMMARY_OPTIONS: [&str; 3] = ["No summary", "Summarize", "Summarize with custom prompt"];
/// The editor for a branch summary's instructions.
pub const TREE_SUMMARY_INSTRUCTIONS: &str = "Custom summarization instructions";
/// While the branch left behind is summarized.
pub const TREE_SUMMARIZING: &str = "Summarizing the branch left behind…";
