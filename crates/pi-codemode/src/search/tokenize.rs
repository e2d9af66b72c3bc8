//! The tokenizer of tool search: identifier boundaries (`camelCase`,
//! `snake_case`), lowercase, 21 English stop words, and a naive singular
//! (`issues` → `issue`, `searches` → `search`). No synonyms.

use std::sync::LazyLock;

use regex::Regex;
use unicode_normalization::UnicodeNormalization;

use crate::text::STOP_WORDS;

static LOWER_UPPER: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new("([a-z0-9])([A-Z])").ok());
static ACRONYM: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new("([A-Z]+)([A-Z][a-z])").ok());
static NOT_WORD: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"[^\p{L}\p{M}\p{N}]+").ok());

fn replace(re: &LazyLock<Option<Regex>>, s: &str, with: &str) -> String {
    match re.as_ref() {
        Some(re) => re.replace_all(s, with).into_owned(),
        None => s.to_string(),
    }
}

/// The naive singular of an ASCII word.
fn stem(term: &str) -> String {
    let n = term.len();
    if n > 4 && term.ends_with("ies") {
        return format!("{}y", &term[..n - 3]);
    }
    if n > 4 && ["ches", "shes", "sses", "xes", "zes"].iter().any(|s| term.ends_with(s)) {
        return term[..n - 2].to_string();
    }
    if n > 3 && term.ends_with('s') && !term.ends_with("ss") {
        return term[..n - 1].to_string();
    }
    term.to_string()
}

/// The terms of `text`, in order (repeats kept).
pub fn tokenize(text: &str) -> Vec<String> {
    let nfc: String = text.nfc().collect();
    let split = replace(&ACRONYM, &replace(&LOWER_UPPER, &nfc, "$1 $2"), "$1 $2");
    let normalized = replace(&NOT_WORD, &split.to_lowercase(), " ");
    // Words are what lies between spaces. (The reference segments text that is
    // not plain ASCII with Intl.Segmenter, which also splits CJK runs into words.)
    normalized
        .split(' ')
        .filter(|w| !w.is_empty() && !STOP_WORDS.contains(w))
        .map(|w| if w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()) { stem(w) } else { w.to_string() })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_stop_words_and_plurals() {
        assert_eq!(tokenize("searchIssues for the repo"), ["search", "issue", "repo"]);
        assert_eq!(tokenize("HTTPServer get_pull_requests"), ["http", "server", "get", "pull", "request"]);
        assert_eq!(tokenize("searches boxes classes glass"), ["search", "box", "class", "glass"]);
        assert_eq!(tokenize("is a of"), Vec::<String>::new());
        assert_eq!(tokenize("Café-Menüs"), ["café", "menüs"]);
    }
}
