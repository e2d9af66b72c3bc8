//! Property tests of `edit` through the tool itself (files on disk): random
//! files with random unique spans give exactly the expected bytes; CRLF and a
//! BOM survive every successful edit; a failing edit changes nothing.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::fuzzy;
use crate::tools::call_tool;
use crate::{ToolContext, ToolName};

const BOM: &str = "\u{feff}";

/// Run one edit call on a file holding `bytes`; returns (is_error, new bytes).
fn run_edit(bytes: &[u8], edits: &[(String, String)]) -> (bool, Vec<u8>, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    std::fs::write(&path, bytes).unwrap();
    let ctx = ToolContext::new(dir.path());
    let list: Vec<Value> = edits.iter().map(|(o, n)| json!({"oldText": o, "newText": n})).collect();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let result = rt.block_on(call_tool(ToolName::Edit, json!({"path": "f.txt", "edits": list}), &ctx));
    (result.is_error, std::fs::read(&path).unwrap(), result.text_content())
}

/// Lines of a small alphabet (repeats are likely), `\n`-separated.
fn content() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!["a", "b", "ab", "x y", "{", "}", "", "fn f() {", "  return 1;"]),
        1..30,
    )
    .prop_map(|lines| lines.join("\n") + "\n")
}

/// Up to 4 spans, as (start fraction, length, replacement).
fn span_picks() -> impl Strategy<Value = Vec<(f64, usize, String)>> {
    prop::collection::vec(
        (
            0.0f64..1.0,
            1usize..12,
            prop::sample::select(vec!["", "Z", "new\nline", "q\n", "\n\n", "é"]).prop_map(String::from),
        ),
        1..5,
    )
}

/// Turn picks into disjoint spans of `text` that are unique (exactly and in
/// fuzzy space); picks that are not are dropped.
fn unique_spans(text: &str, picks: &[(f64, usize, String)]) -> Vec<(usize, usize, String)> {
    let fuzzy_text = fuzzy::normalize(text);
    let mut spans: Vec<(usize, usize, String)> = Vec::new();
    for (frac, len, new) in picks {
        let start = ((text.len() as f64) * frac) as usize;
        let end = (start + len).min(text.len());
        if start >= end || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            continue;
        }
        let old = &text[start..end];
        let unique = text.find(old) == Some(start) && fuzzy::count(&fuzzy_text, &fuzzy::normalize(old)) == 1;
        let disjoint = spans.iter().all(|(s, e, _)| end <= *s || start >= *e);
        if unique && disjoint {
            spans.push((start, end, new.clone()));
        }
    }
    spans
}

fn expected(text: &str, spans: &[(usize, usize, String)]) -> String {
    let mut sorted = spans.to_vec();
    sorted.sort_by_key(|s| s.0);
    let mut out = String::new();
    let mut at = 0;
    for (s, e, new) in &sorted {
        out.push_str(&text[at..*s]);
        out.push_str(new);
        at = *e;
    }
    out.push_str(&text[at..]);
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn unique_spans_give_exactly_the_expected_text(text in content(), picks in span_picks()) {
        let spans = unique_spans(&text, &picks);
        prop_assume!(!spans.is_empty());
        let want = expected(&text, &spans);
        prop_assume!(want != text);
        let edits: Vec<(String, String)> = spans.iter().map(|(s, e, n)| (text[*s..*e].to_string(), n.clone())).collect();
        let (is_error, bytes, msg) = run_edit(text.as_bytes(), &edits);
        prop_assert!(!is_error, "{}", msg);
        prop_assert_eq!(String::from_utf8(bytes).unwrap(), want);
    }

    #[test]
    fn crlf_and_bom_survive_any_successful_edit(text in content(), picks in span_picks(), bom in any::<bool>()) {
        let spans = unique_spans(&text, &picks);
        prop_assume!(!spans.is_empty());
        let want = expected(&text, &spans);
        prop_assume!(want != text);
        // Same edits (given with `\n`), on the file written with CRLF (and maybe a BOM).
        let prefix = if bom { BOM } else { "" };
        let file = format!("{prefix}{}", text.replace('\n', "\r\n"));
        let edits: Vec<(String, String)> = spans.iter().map(|(s, e, n)| (text[*s..*e].to_string(), n.clone())).collect();
        let (is_error, bytes, msg) = run_edit(file.as_bytes(), &edits);
        prop_assert!(!is_error, "{}", msg);
        let got = String::from_utf8(bytes).unwrap();
        prop_assert_eq!(got, format!("{prefix}{}", want.replace('\n', "\r\n")));
    }

    #[test]
    fn a_failing_edit_changes_nothing(
        text in content(),
        crlf in any::<bool>(),
        bom in any::<bool>(),
        edits in prop::collection::vec(
            (prop::sample::select(vec!["a", "b\n", "zz", "", "ab", "}\n{", "x y", "x\u{a0}y", "1;"]), prop::sample::select(vec!["", "Q", "a"])),
            0..4,
        ),
    ) {
        let body = if crlf { text.replace('\n', "\r\n") } else { text.clone() };
        let file = format!("{}{body}", if bom { BOM } else { "" });
        let edits: Vec<(String, String)> = edits.into_iter().map(|(o, n)| (o.to_string(), n.to_string())).collect();
        let (is_error, bytes, _) = run_edit(file.as_bytes(), &edits);
        if is_error {
            prop_assert_eq!(bytes, file.into_bytes());
        } else {
            // Success keeps the BOM and, in a CRLF file, has no bare LF.
            let got = String::from_utf8(bytes).unwrap();
            prop_assert_eq!(got.starts_with(BOM), bom);
            if crlf {
                prop_assert!(!got.replace("\r\n", "").contains('\n'), "{:?}", got);
            }
        }
    }
}
