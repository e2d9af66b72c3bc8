//! `/tree` in the terminal UI: the session's entries as a tree (branches
//! indented where the conversation forked, the current point marked), one
//! chosen, and the conversation moved there as the reference moves it
//! (`session_before_tree` may cancel; a user message's text comes back into
//! the editor). With checkpoints on, when the part of the conversation left
//! behind changed files, the user is asked whether the files go back too
//! (B11: files and conversation rewound together).

use std::collections::{HashMap, HashSet};

use pi_agent::session::{Entry, Session};
use pi_checkpoints::text as cp_text;
use pi_tui::host::{DialogAnswer, DialogRequest, TreeView, UiHandle, Update};
use pi_tui::transcript::Level;

use super::text;
use super::worker::Host;
use pi_runtime::tree_events::{Moved, TreeMove, message_text};
use pi_runtime::{Op, Outcome};

/// Most characters of an entry shown in its row.
const ROW_TEXT_CHARS: usize = 100;

/// One row of the tree: the entry it stands for and what it shows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    /// The entry's id.
    pub id: String,
    /// The row's text (indentation, branch mark, summary).
    pub label: String,
    /// The entry's label, if it has one.
    pub entry_label: Option<String>,
}

/// What the navigator answered.
enum Chosen {
    /// Continue from this entry.
    Entry(String),
    /// Label this entry (`None`: remove its label); the navigator's view then.
    Label { entry: String, label: Option<String>, view: usize },
}

/// Which entries the tree shows (the `treeFilterMode` setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Filter {
    /// The conversation: prompts, answers, tool results, compactions, summaries.
    Default,
    /// As `Default`, without tool results.
    NoTools,
    /// Prompts only.
    UserOnly,
    /// Entries with a label only.
    LabeledOnly,
    /// Every entry, settings changes and extension data included.
    All,
}

impl Filter {
    /// Every filter, in the order the navigator's cycle keys go through them.
    pub(crate) const ALL: [Filter; 5] =
        [Filter::Default, Filter::NoTools, Filter::UserOnly, Filter::LabeledOnly, Filter::All];

    /// Shown under the navigator's list while the filter is on.
    pub(crate) fn tag(self) -> &'static str {
        match self {
            Filter::Default => "",
            Filter::NoTools => text::TREE_TAG_NO_TOOLS,
            Filter::UserOnly => text::TREE_TAG_USER,
            Filter::LabeledOnly => text::TREE_TAG_LABELED,
            Filter::All => text::TREE_TAG_ALL,
        }
    }

    /// The filter a setting names (`default` for anything else).
    pub(crate) fn parse(name: Option<&str>) -> Filter {
        match name {
            Some("no-tools") => Filter::NoTools,
            Some("user-only") => Filter::UserOnly,
            Some("labeled-only") => Filter::LabeledOnly,
            Some("all") => Filter::All,
            _ => Filter::Default,
        }
    }
}

/// Each entry's label, as the last `label` entry for it left it.
fn labels(session: &Session) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for e in session.entries().iter().filter(|e| e.kind() == "label") {
        let Some(target) = e.field("targetId").as_str().map(str::to_string) else { continue };
        match e.field("label").as_str().map(str::trim).filter(|l| !l.is_empty()) {
            Some(l) => out.insert(target, l.to_string()),
            None => out.remove(&target),
        };
    }
    out
}

/// The rows of `session`'s tree, in order (each branch under the entry it
/// forked from, oldest first), and the row of the current point.
pub(crate) fn rows(session: &Session, filter: Filter) -> (Vec<Row>, usize) {
    let entries = session.entries();
    let labels = labels(session);
    let mut children: HashMap<Option<&str>, Vec<usize>> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        let parent = e.parent_id().filter(|p| session.get(p).is_some());
        children.entry(parent).or_default().push(i);
    }
    let on_branch: HashSet<&str> = session.branch_to(session.leaf_id()).iter().map(|e| e.id()).collect();
    let (mut rows, mut current) = (Vec::new(), 0);
    // Depth-first without recursion (a conversation is as deep as it is long):
    // (entry, indentation, mark of its first row).
    let mut stack: Vec<(usize, usize, &str)> =
        children.get(&None).map(|r| siblings(r, 0)).unwrap_or_default().into_iter().rev().collect();
    while let Some((i, depth, mark)) = stack.pop() {
        let e = &entries[i];
        let mut mark = mark;
        let label = labels.get(e.id());
        if let Some(summary) = summary(e, filter).filter(|_| filter != Filter::LabeledOnly || label.is_some()) {
            if on_branch.contains(e.id()) {
                current = rows.len();
            }
            let tag = label.map(|l| format!(" [{}]", pi_tui::sanitize::clean_line(l))).unwrap_or_default();
            let label = format!("{}{mark}{summary}{tag}", "  ".repeat(depth));
            rows.push(Row { id: e.id().to_string(), label, entry_label: labels.get(e.id()).cloned() });
            mark = "";
        }
        if let Some(kids) = children.get(&Some(e.id())) {
            let next = if kids.len() > 1 { siblings(kids, depth + 1) } else { vec![(kids[0], depth, mark)] };
            stack.extend(next.into_iter().rev());
        }
    }
    if let Some(row) = rows.get_mut(current) {
        row.label.push_str(text::TREE_CURRENT_MARK);
    }
    unique(&mut rows);
    (rows, current)
}

/// Children of a fork, each marked as a branch.
fn siblings(kids: &[usize], depth: usize) -> Vec<(usize, usize, &'static str)> {
    let last = kids.len().saturating_sub(1);
    let branch = kids.len() > 1;
    kids.iter()
        .enumerate()
        .map(|(n, &k)| {
            (
                k,
                depth,
                if !branch {
                    ""
                } else if n == last {
                    "└─ "
                } else {
                    "├─ "
                },
            )
        })
        .collect()
}

/// Rows that read the same get a number, so each can be told apart.
fn unique(rows: &mut [Row]) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for row in rows {
        let n = seen.entry(row.label.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            row.label = format!("{} #{n}", row.label);
        }
    }
}

/// What an entry's row says; `None` for entries the tree does not show
/// (labels, settings changes, extension data).
fn summary(e: &Entry, filter: Filter) -> Option<String> {
    let role = if e.kind() == "message" { e.field("message")["role"].as_str().map(str::to_string) } else { None };
    let shown = match filter {
        Filter::UserOnly => role.as_deref() == Some("user"),
        Filter::NoTools => !matches!(role.as_deref(), Some("toolResult" | "bashExecution")),
        _ => true,
    };
    if !shown {
        return None;
    }
    let line = match e.kind() {
        "message" => {
            let m = e.field("message");
            match m["role"].as_str().unwrap_or_default() {
                "user" => format!("user: {}", message_text(&m["content"])),
                "assistant" => {
                    let said = message_text(&m["content"]);
                    let calls: Vec<&str> = m["content"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|b| b["type"] == "toolCall")
                        .filter_map(|b| b["name"].as_str())
                        .collect();
                    match (said.is_empty(), calls.is_empty()) {
                        (_, true) => format!("assistant: {said}"),
                        (true, false) => format!("assistant: → {}", calls.join(", ")),
                        (false, false) => format!("assistant: {said} → {}", calls.join(", ")),
                    }
                }
                "toolResult" => format!("[{}]", m["toolName"].as_str().unwrap_or("tool")),
                "bashExecution" => format!("! {}", m["command"].as_str().unwrap_or_default()),
                "custom" => format!("[{}]", m["customType"].as_str().unwrap_or("custom")),
                _ => return None,
            }
        }
        "compaction" => text::TREE_COMPACTION.to_string(),
        "branch_summary" => text::TREE_BRANCH_SUMMARY.to_string(),
        "custom_message" => format!("[{}]", e.field("customType").as_str().unwrap_or("custom")),
        other if filter == Filter::All => match other {
            "model_change" => format!(
                "[model: {}/{}]",
                e.field("provider").as_str().unwrap_or_default(),
                e.field("modelId").as_str().unwrap_or_default()
            ),
            "thinking_level_change" => format!("[thinking: {}]", e.field("thinkingLevel").as_str().unwrap_or_default()),
            "label" => format!("[label: {}]", e.field("label").as_str().unwrap_or_default()),
            "custom" => format!("[data: {}]", e.field("customType").as_str().unwrap_or_default()),
            "session_info" => format!("[name: {}]", e.field("name").as_str().unwrap_or_default()),
            kind => format!("[{kind}]"),
        },
        _ => return None,
    };
    let one: String = pi_tui::sanitize::clean_line(&line.split_whitespace().collect::<Vec<_>>().join(" "));
    Some(match one.char_indices().nth(ROW_TEXT_CHARS) {
        Some((cut, _)) => format!("{}…", &one[..cut]),
        None => one,
    })
}

impl Host {
    /// `/tree`: choose an entry of the session tree, say whether the part
    /// left behind is summarized (the reference's question, unless
    /// `branchSummary.skipPrompt`), and continue from it.
    pub(super) async fn tree(&mut self) {
        let (settings, _) =
            pi_config::Settings::load(&self.ui.agent_dir, &self.ui.cwd, self.rt.reload_state().prompt.trusted);
        let filter = Filter::parse(settings.get_str(&["treeFilterMode"]));
        let skip_question = settings.get_bool(&["branchSummary", "skipPrompt"]) == Some(true);
        let reserve_tokens = settings.get(&["branchSummary", "reserveTokens"]).and_then(serde_json::Value::as_u64);
        let mut selected: Option<String> = None;
        let mut view = Filter::ALL.iter().position(|f| *f == filter).unwrap_or(0);
        loop {
            let target = match self.choose_entry(view, selected.as_deref()).await {
                Some(Chosen::Entry(target)) => target,
                // A label typed in the navigator: saved, and the navigator again where it was.
                Some(Chosen::Label { entry, label, view: at }) => {
                    self.set_label(&entry, label.as_deref());
                    (selected, view) = (Some(entry), at);
                    continue;
                }
                None => return,
            };
            if self.rt.agent().session().lock().is_ok_and(|s| s.leaf_id() == Some(target.as_str())) {
                return self.notice(Level::Info, text::TREE_ALREADY_HERE.to_string());
            }
            let how = if skip_question { Some(TreeMove::default()) } else { self.summary_choice().await };
            // Escape at the question: back to the tree, on the same entry.
            let Some(how) = how else {
                selected = Some(target);
                continue;
            };
            let how = TreeMove { reserve_tokens, ..how };
            if how.summarize {
                self.notice(Level::Info, text::TREE_SUMMARIZING.to_string());
            }
            return self.go_to(&target, &how).await;
        }
    }

    /// Save `label` for `entry` (`None` removes it), as the reference's
    /// navigator does: a `label` entry.
    fn set_label(&mut self, entry: &str, label: Option<&str>) {
        let fields = match label {
            Some(l) => serde_json::json!({"targetId": entry, "label": l}),
            None => serde_json::json!({"targetId": entry}),
        };
        let saved = self
            .rt
            .agent()
            .session()
            .lock()
            .map_err(|e| e.to_string())
            .and_then(|mut s| s.append("label", fields).map_err(|e| e.to_string()));
        if let Err(e) = saved {
            self.notice(Level::Error, pi_tui::text::error_line(&e));
        }
    }

    /// The navigator over every filter's rows (so it switches between them
    /// at once), showing `view` first, on `selected` when given; what was
    /// chosen.
    async fn choose_entry(&mut self, view: usize, selected: Option<&str>) -> Option<Chosen> {
        let views: Vec<TreeView> = match self.rt.agent().session().lock() {
            Ok(s) => Filter::ALL
                .iter()
                .map(|f| {
                    let (rows, current) = rows(&s, *f);
                    let start = selected.and_then(|id| rows.iter().position(|r| r.id == id)).unwrap_or(current);
                    TreeView {
                        tag: f.tag().to_string(),
                        labels: rows.iter().map(|r| r.label.clone()).collect(),
                        entry_labels: rows.iter().map(|r| r.entry_label.clone()).collect(),
                        values: rows.into_iter().map(|r| r.id).collect(),
                        start,
                    }
                })
                .collect(),
            Err(e) => {
                self.notice(Level::Error, pi_tui::text::error_line(&e.to_string()));
                return None;
            }
        };
        if views.iter().all(|v| v.values.is_empty()) {
            self.notice(Level::Info, text::TREE_EMPTY.to_string());
            return None;
        }
        let request = DialogRequest::Tree { title: text::TREE_TITLE.to_string(), views, view };
        match UiHandle::new(self.up.clone()).dialog(request).await {
            DialogAnswer::Value(target) => Some(Chosen::Entry(target)),
            DialogAnswer::Label { entry, label, view } => Some(Chosen::Label { entry, label, view }),
            _ => None,
        }
    }

    /// "Summarize branch?": no, yes, or yes with instructions typed next
    /// (escape there asks again); `None` when the question is dismissed.
    async fn summary_choice(&mut self) -> Option<TreeMove> {
        let ui = UiHandle::new(self.up.clone());
        loop {
            let options = text::TREE_SUMMARY_OPTIONS.iter().map(|o| o.to_string()).collect();
            let request = DialogRequest::Select { title: text::TREE_SUMMARY_QUESTION.to_string(), options };
            let DialogAnswer::Value(choice) = ui.dialog(request).await else { return None };
            if choice == text::TREE_SUMMARY_OPTIONS[0] {
                return Some(TreeMove::default());
            }
            if choice == text::TREE_SUMMARY_OPTIONS[1] {
                return Some(TreeMove { summarize: true, ..TreeMove::default() });
            }
            let request = DialogRequest::Editor { title: text::TREE_SUMMARY_INSTRUCTIONS.to_string(), prefill: None };
            if let DialogAnswer::Value(instructions) = ui.dialog(request).await {
                return Some(TreeMove {
                    summarize: true,
                    custom_instructions: Some(instructions),
                    ..TreeMove::default()
                });
            }
        }
    }

    /// Move the conversation to `target` (the reference's navigation), then
    /// offer to bring the files back to match.
    async fn go_to(&mut self, target: &str, how: &TreeMove) {
        let navigate = Op::Navigate { target: target.to_string(), how: how.clone() };
        let Moved { editor, left } = match self.rt.apply(navigate).await {
            Ok(Outcome::Navigated(Some(moved))) => moved,
            Ok(_) => return self.notice(Level::Info, text::TREE_CANCELLED.to_string()),
            Err(e) => return self.notice(Level::Error, pi_tui::text::error_line(&e.to_string())),
        };
        self.show_conversation(editor);
        if self.rt.agent().tool_ctx().change_guard.is_some() && !left.is_empty() {
            self.offer_rewind(left).await;
        }
    }

    /// Show the conversation as it now is, with `editor` in the editor.
    fn show_conversation(&mut self, editor: Option<String>) {
        let history = self.rt.agent().messages().to_vec();
        let _ = self.up.send(Update::Session { history, editor });
        self.notice(Level::Info, text::TREE_MOVED.to_string());
    }

    /// When turns of the conversation just left changed files: ask, then
    /// bring the files back to before the first of them.
    async fn offer_rewind(&mut self, left: HashSet<String>) {
        let changing = pi_runtime::undo::changing_entries(self.rt.agent()).await;
        if left.is_disjoint(&changing) {
            return;
        }
        let preview = match pi_runtime::undo::preview_rewind(self.rt.agent(), left.clone()).await {
            Ok(Some(preview)) => preview,
            Ok(None) => return,
            Err(e) => return self.notice(Level::Warning, e.to_string()),
        };
        let request = DialogRequest::Confirm {
            title: cp_text::REWIND_FILES_TITLE.to_string(),
            message: format!("{}\n\n{}", cp_text::REWIND_FILES_MESSAGE, preview.text()),
        };
        if UiHandle::new(self.up.clone()).dialog(request).await != DialogAnswer::Confirmed(true) {
            return self.notice(Level::Info, cp_text::FILES_KEPT.to_string());
        }
        let mut force = false;
        loop {
            let attempt = self.rt.apply(Op::Rewind { entries: left.clone(), force }).await;
            if !self.after_restore(attempt, force).await {
                return;
            }
            force = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn say(s: &mut Session, role: &str, text: &str) -> String {
        s.append_message(&json!({"role": role, "content": [{"type": "text", "text": text}], "timestamp": 0})).unwrap()
    }

    #[test]
    fn branches_are_indented_under_their_fork_and_the_current_point_is_marked() {
        let mut s = Session::in_memory();
        say(&mut s, "user", "first\nquestion");
        let b = say(&mut s, "assistant", "answer");
        let c = say(&mut s, "user", "try one");
        s.set_leaf(Some(&b)).unwrap();
        say(&mut s, "user", "try two");
        say(&mut s, "assistant", "done");
        s.append("label", json!({"targetId": b, "label": "x"})).unwrap();
        s.set_leaf(Some(&c)).unwrap();
        let (rows, current) = rows(&s, Filter::Default);
        let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "user: first question",
                "assistant: answer [x]",
                &format!("  ├─ user: try one{}", text::TREE_CURRENT_MARK),
                "  └─ user: try two",
                "  assistant: done",
            ]
        );
        assert_eq!((rows[current].id.as_str(), current), (c.as_str(), 2));
    }

    #[test]
    fn a_long_conversation_is_walked_without_recursion_and_rows_stay_apart() {
        let mut s = Session::in_memory();
        for i in 0..20_000 {
            say(&mut s, if i % 2 == 0 { "user" } else { "assistant" }, "same");
        }
        let (rows, current) = rows(&s, Filter::Default);
        assert_eq!(rows.len(), 20_000);
        assert_eq!(current, 19_999);
        let distinct: HashSet<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(distinct.len(), rows.len(), "every row can be told apart");
    }

    #[test]
    fn each_filter_shows_its_entries_and_labels_are_shown() {
        let mut s = Session::in_memory();
        let a = say(&mut s, "user", "go");
        s.append_message(&json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "ls", "arguments": {}}], "timestamp": 0}))
            .unwrap();
        s.append_message(&json!({"role": "toolResult", "toolCallId": "c", "toolName": "ls", "content": [], "isError": false, "timestamp": 0}))
            .unwrap();
        s.append("model_change", json!({"provider": "p", "modelId": "m"})).unwrap();
        let d = say(&mut s, "assistant", "done");
        s.append("label", json!({"targetId": a, "label": "start"})).unwrap();
        s.append("label", json!({"targetId": d, "label": "old"})).unwrap();
        s.append("label", json!({"targetId": d, "label": ""})).unwrap();
        let shown =
            |f| rows(&s, f).0.into_iter().map(|r| r.label.replace(text::TREE_CURRENT_MARK, "")).collect::<Vec<_>>();
        assert_eq!(shown(Filter::Default), ["user: go [start]", "assistant: → ls", "[ls]", "assistant: done"]);
        assert_eq!(shown(Filter::NoTools), ["user: go [start]", "assistant: → ls", "assistant: done"]);
        assert_eq!(shown(Filter::UserOnly), ["user: go [start]"]);
        assert_eq!(shown(Filter::LabeledOnly), ["user: go [start]"], "a cleared label is no label");
        let all = shown(Filter::All);
        assert!(all.contains(&"[model: p/m]".to_string()) && all.contains(&"[label: start]".to_string()), "{all:?}");
        assert_eq!(Filter::parse(Some("user-only")), Filter::UserOnly);
        assert_eq!(Filter::parse(Some("nonsense")), Filter::Default);
    }

    #[test]
    fn terminal_controls_in_a_message_do_not_reach_the_row() {
        let mut s = Session::in_memory();
        say(&mut s, "user", "hi \u{1b}[2Jthere \u{7}");
        let (rows, _) = rows(&s, Filter::Default);
        assert!(!rows[0].label.contains('\u{1b}') && !rows[0].label.contains('\u{7}'), "{:?}", rows[0].label);
        assert!(rows[0].label.starts_with("user: hi"), "{:?}", rows[0].label);
    }
}
