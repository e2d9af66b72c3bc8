use super::*;
use serde_json::json;

fn doc(name: &str, description: &str) -> SearchDocument {
    document(name, description, &json!({"type": "object"}), None)
}

#[test]
fn more_terms_covered_beats_a_name_match() {
    let docs = [doc("window", "Manage windows."), doc("capture", "Take a screenshot of a window.")];
    assert_eq!(rank("screenshot window", &docs, 8), ["capture", "window"]);
}

#[test]
fn exact_names_first_and_no_match_without_terms() {
    let docs = [doc("app__thread_read", "Read a thread."), doc("thread_list", "List threads, read their titles.")];
    assert_eq!(rank("thread_read", &docs, 8)[0], "app__thread_read");
    assert!(rank("the of", &docs, 8).is_empty());
    assert!(rank("zebra", &docs, 8).is_empty());
    assert_eq!(rank("thread", &docs, 1).len(), 1);
}

#[test]
fn schema_and_namespace_text_count() {
    let ns = pi_agent::Namespace { name: "gh".into(), description: Some("GitHub issues".into()), ..Default::default() };
    let params = json!({"type": "object", "properties": {"repo": {"type": "string", "description": "owner/repo"}},
        "$defs": {"unused": {"description": "zebra"}}});
    let d = document("gh__search", "Search.", &params, Some(&ns));
    assert_eq!(d.text, "Search. repo owner/repo");
    assert_eq!(d.namespace_text, "gh GitHub issues ");
    assert_eq!(rank("github owner", &[doc("other", "x"), d], 8), ["gh__search"]);
}
