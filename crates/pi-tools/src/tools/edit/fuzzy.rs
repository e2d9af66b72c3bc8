//! The fuzzy space `edit` falls back to when an `oldText` is not found as is:
//! Unicode NFKC, trailing whitespace removed from every line, smart quotes,
//! Unicode dashes and special spaces made ASCII. The number of lines never
//! changes, so a line of the fuzzy text is the same line of the file.

use std::borrow::Cow;

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

/// JavaScript's idea of white space (`String.prototype.trimEnd`): Unicode
/// `Zs`, tab, vertical tab, form feed, BOM and the line terminators. Unlike
/// Rust's `char::is_whitespace` it includes U+FEFF and excludes U+0085.
fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{000B}' | '\u{000C}' | '\r' | ' ' | '\u{00A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
    )
}

fn ascii_equivalent(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// `text` in fuzzy space (expects `\n` line breaks).
pub(super) fn normalize(text: &str) -> String {
    // NFKC leaves ASCII and already-normal text alone: skip the rebuild then.
    let nfkc: Cow<str> = if text.is_ascii() || is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfkc().collect())
    };
    let mut out = String::with_capacity(nfkc.len());
    for (i, line) in nfkc.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = line.trim_end_matches(is_js_whitespace);
        if line.is_ascii() {
            out.push_str(line);
        } else {
            out.extend(line.chars().map(ascii_equivalent));
        }
    }
    out
}

/// Occurrences of `needle` in `hay`, counted as the reference counts them
/// (`hay.split(needle).length - 1`): non-overlapping, and for an empty needle
/// one less than the UTF-16 length (-1 for an empty `hay`).
pub(super) fn count(hay: &str, needle: &str) -> i64 {
    if needle.is_empty() {
        return hay.encode_utf16().count() as i64 - 1;
    }
    hay.matches(needle).count() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation() {
        assert_eq!(normalize("a  \nb\t\n"), "a\nb\n");
        assert_eq!(normalize("\u{201C}q\u{201D} \u{2018}s\u{2019}"), "\"q\" 's'");
        assert_eq!(normalize("a\u{2013}b\u{2014}c\u{2212}d"), "a-b-c-d");
        assert_eq!(normalize("a\u{00A0}b\u{3000}c\u{202F}d"), "a b c d");
        assert_eq!(normalize("\u{FF21}\u{FF22}\u{FF23}\u{FF11}"), "ABC1");
        assert_eq!(normalize("e\u{301}"), "\u{e9}");
        assert_eq!(normalize("x\u{FEFF}\ny\u{0085}"), "x\ny\u{0085}");
        assert_eq!(normalize("x\u{1680}\u{2028}\n"), "x\n");
    }

    #[test]
    fn counting_like_split() {
        assert_eq!(count("aaa", "aa"), 1);
        assert_eq!(count("abab", "ab"), 2);
        assert_eq!(count("ab", ""), 1);
        assert_eq!(count("a\u{1F600}", ""), 2);
        assert_eq!(count("", ""), -1);
        assert_eq!(count("abc", "x"), 0);
    }
}
