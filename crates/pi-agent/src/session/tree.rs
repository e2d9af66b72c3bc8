//! The session as a tree of entries (RPC `get_tree`): every root (entries
//! whose parent is missing count as roots), children in append order, labels
//! from `label` entries (the latest for each target wins).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use super::Session;

/// One node of the tree.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TreeNode {
    /// The entry.
    pub entry: Value,
    /// Its children.
    pub children: Vec<TreeNode>,
    /// Its label, when one is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// When the label was set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_timestamp: Option<String>,
}

impl Session {
    /// The user messages of the active branch, oldest first: (entry id,
    /// text), a message's text parts joined (what a fork starts from).
    pub fn user_messages(&self) -> Vec<(String, String)> {
        self.branch()
            .into_iter()
            .filter(|e| e.kind() == "message")
            .filter_map(|e| {
                let message = e.field("message");
                if message["role"] != "user" {
                    return None;
                }
                let text = match &message["content"] {
                    Value::String(t) => t.clone(),
                    Value::Array(b) => b.iter().filter_map(|x| x["text"].as_str()).collect::<Vec<_>>().join(""),
                    _ => String::new(),
                };
                Some((e.id().to_string(), text))
            })
            .collect()
    }

    /// The latest label of each labelled entry: (label, its time).
    pub fn labels(&self) -> HashMap<String, (String, String)> {
        let mut out = HashMap::new();
        for e in self.entries.iter().filter(|e| e.kind() == "label") {
            let e = e.value();
            let Some(target) = e["targetId"].as_str() else { continue };
            match e["label"].as_str().filter(|l| !l.is_empty()) {
                Some(l) => {
                    out.insert(target.to_string(), (l.to_string(), e["timestamp"].as_str().unwrap_or_default().into()));
                }
                None => {
                    out.remove(target);
                }
            }
        }
        out
    }

    /// Every root with its descendants.
    pub fn tree(&self) -> Vec<TreeNode> {
        let labels = self.labels();
        let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut roots = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            match e.parent_id().filter(|p| self.index.contains_key(*p)) {
                Some(p) => children.entry(p).or_default().push(i),
                None => roots.push(i),
            }
        }
        // Iterative build (a long session is a deep chain): children first.
        let mut built: HashMap<usize, TreeNode> = HashMap::new();
        let mut order: Vec<usize> = Vec::with_capacity(self.entries.len());
        let mut stack: Vec<usize> = roots.clone();
        while let Some(i) = stack.pop() {
            order.push(i);
            let id = self.entries[i].id();
            stack.extend(children.get(id).into_iter().flatten().copied());
        }
        for &i in order.iter().rev() {
            let e = &self.entries[i];
            let id = e.id();
            let kids =
                children.get(id).map(|list| list.iter().filter_map(|k| built.remove(k)).collect()).unwrap_or_default();
            let label = labels.get(id);
            built.insert(
                i,
                TreeNode {
                    entry: e.value(),
                    children: kids,
                    label: label.map(|l| l.0.clone()),
                    label_timestamp: label.map(|l| l.1.clone()),
                },
            );
        }
        roots.iter().filter_map(|r| built.remove(r)).collect()
    }
}
