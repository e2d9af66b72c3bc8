//! The session as a tree of entries (RPC `get_tree`), written as JSON
//! text without recursion: every root (entries
//! whose parent is missing count as roots), children in append order, labels
//! from `label` entries (the latest for each target wins).

use std::collections::HashMap;

use serde_json::Value;

use super::Session;

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

    /// Every root with its descendants, as JSON text: an array of nodes
    /// `{"entry", "children", "label"?, "labelTimestamp"?}`. Written without
    /// recursion and without a nested value in memory: a long conversation is
    /// a chain as deep as it is long.
    pub fn tree_json(&self) -> String {
        let labels = self.labels();
        let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut roots = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            match e.parent_id().filter(|p| self.index.contains(p, &self.entries)) {
                Some(p) => children.entry(p).or_default().push(i),
                None => roots.push(i),
            }
        }
        let kids = |i: usize| children.get(self.entries[i].id()).map(Vec::as_slice).unwrap_or_default();
        let mut out = String::from("[");
        // One frame per open array: the node it belongs to (none for the
        // roots), the nodes still to write in it, whether one was written.
        let mut stack = vec![(None, roots.iter(), false)];
        while let Some((owner, pending, written)) = stack.last_mut() {
            let owner = *owner;
            match pending.next() {
                Some(&i) => {
                    if std::mem::replace(written, true) {
                        out.push(',');
                    }
                    out.push_str("{\"entry\":");
                    out.push_str(&self.entries[i].value().to_string());
                    out.push_str(",\"children\":[");
                    stack.push((Some(i), kids(i).iter(), false));
                }
                None => {
                    stack.pop();
                    out.push(']');
                    let Some(node) = owner else { continue };
                    if let Some((label, at)) = labels.get(self.entries[node].id()) {
                        out.push_str(",\"label\":");
                        out.push_str(&Value::String(label.clone()).to_string());
                        out.push_str(",\"labelTimestamp\":");
                        out.push_str(&Value::String(at.clone()).to_string());
                    }
                    out.push('}');
                }
            }
        }
        out
    }
}
