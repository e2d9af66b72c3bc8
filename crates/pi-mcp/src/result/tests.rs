use super::*;
use serde_json::json;

const O: Origin<'static> = Origin { server: "s", tool: "t", resources: true };

#[test]
fn small_results_pass_and_errors_get_a_text() {
    let r = convert(&json!({"content": [{"type": "text", "text": "hi"}], "_meta": {"x": 1}}), O, &OutputFiles::new());
    assert_eq!(r.text_content(), "hi");
    assert!(!r.is_error);
    assert_eq!(r.structured, Some(json!({"content": [{"type": "text", "text": "hi"}]})));
    let e = convert(&json!({"content": [], "isError": true}), O, &OutputFiles::new());
    assert!(e.is_error && e.text_content() == "MCP tool s/t returned an error");
    let own =
        convert(&json!({"content": [{"type": "text", "text": "bad input"}], "isError": true}), O, &OutputFiles::new());
    assert_eq!(own.text_content(), "bad input", "the server's own text");
}

#[test]
fn big_results_are_cut_in_the_middle_with_the_full_text_saved() {
    let big: String = (0..3000).map(|i| format!("line {i} ééé\n")).collect();
    let raw =
        json!({"content": [{"type": "text", "text": big}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}]});
    let r = convert(&raw, O, &OutputFiles::new());
    assert_eq!(r.content.len(), 2, "one text block, then the images");
    let t = r.text_content();
    assert!(
        t.starts_with(&format!(
            "Warning: truncated output (original token count: {})\nTotal output lines: 3000\n\nline 0 ",
            big.len().div_ceil(4)
        )),
        "{}",
        &t[..120]
    );
    assert!(t.contains("chars truncated…") && t.contains("line 2999 ééé"));
    let path = r.details.as_ref().unwrap()["fullOutputPath"].as_str().unwrap().to_string();
    assert!(t.ends_with(&format!("[Full output: {path} (read it with offset/limit)]")));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), big);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    assert!(t.len() < text::MCP_OUTPUT_MAX_BYTES + 400);
    assert_eq!(r.structured.unwrap()["content"][0]["text"].as_str().unwrap().len(), big.len(), "scripts get it whole");
    let _ = std::fs::remove_file(path);
}

#[test]
fn resource_links_and_embedded_resources() {
    let raw = json!({"content": [
        {"type": "resource_link", "uri": "file:///a", "name": "a", "mimeType": "text/plain", "size": 3, "description": "A file"},
        {"type": "resource", "resource": {"uri": "file:///b", "text": "inline"}},
    ]});
    let r = convert(&raw, O, &OutputFiles::new());
    assert_eq!(
        r.text_content(),
        "[Resource file:///a \"a\" (text/plain, 3B): A file. Read it with read_mcp_resource (server \"s\")]\ninline"
    );
    assert!(truncate_middle("short", 10).is_none());
    let (cut, lines) = truncate_middle("ééééé", 4).unwrap();
    assert_eq!((cut.as_str(), lines), ("é…3 chars truncated…é", 1));
}
