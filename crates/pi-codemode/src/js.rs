//! JavaScript's way with strings and numbers, where the reference's output
//! depends on it: `String.prototype.trim`, `Number.prototype.toString`,
//! `JSON.stringify`, lengths and ordering in UTF-16 units.

use serde_json::Value;

/// JavaScript's white space and line terminators (what `trim()` removes).
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// `s.trim()`.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// `s.trimStart()`.
pub fn trim_start(s: &str) -> &str {
    s.trim_start_matches(is_js_space)
}

/// `s.length`: UTF-16 code units.
pub fn len16(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// The byte index where the first `units` UTF-16 units of `s` end, never
/// inside a character (a character that would be cut is left out).
pub fn head_index(s: &str, units: usize) -> usize {
    let mut n = 0;
    for (i, c) in s.char_indices() {
        n += c.len_utf16();
        if n > units {
            return i;
        }
    }
    s.len()
}

/// The byte index where the last `units` UTF-16 units of `s` start, never
/// inside a character.
pub fn tail_index(s: &str, units: usize) -> usize {
    let mut n = 0;
    for (i, c) in s.char_indices().rev() {
        n += c.len_utf16();
        if n > units {
            return i + c.len_utf8();
        }
    }
    0
}

/// Compare as JavaScript's default sort does (UTF-16 code units).
pub fn cmp16(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// A number as `String(n)` writes it (`1`, `0.5`, `1e+21`).
pub fn number(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if n == 0.0 {
        return "0".into();
    }
    if n.fract() == 0.0 && n.abs() < 1e21 {
        return format!("{}", n as i128);
    }
    let s = format!("{n:e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    if (-6..21).contains(&e) {
        return format!("{n}");
    }
    if e < 0 { format!("{mant}e{e}") } else { format!("{mant}e+{e}") }
}

/// `JSON.stringify(value)` for JSON values (compact, numbers as JavaScript writes them).
pub fn stringify(value: &Value) -> String {
    let mut out = String::new();
    write_json(value, &mut out);
    out
}

fn write_json(value: &Value, out: &mut String) {
    match value {
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => out.push_str(&i.to_string()),
            (_, Some(u), _) => out.push_str(&u.to_string()),
            (_, _, Some(f)) if f.is_finite() => out.push_str(&number(f)),
            _ => out.push_str("null"),
        },
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(v, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push(':');
                write_json(v, out);
            }
            out.push('}');
        }
        other => out.push_str(&serde_json::to_string(other).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_and_json_as_javascript_writes_them() {
        assert_eq!(number(1.0), "1");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(-3.0), "-3");
        assert_eq!(number(1e21), "1e+21");
        assert_eq!(number(1.5e-7), "1.5e-7");
        assert_eq!(number(123456.789), "123456.789");
        assert_eq!(stringify(&json!({"a": [1, 2.0, "x\n"], "b": null})), r#"{"a":[1,2,"x\n"],"b":null}"#);
    }

    #[test]
    fn utf16_slicing_keeps_characters_whole() {
        let s = "a😀b";
        assert_eq!(len16(s), 4);
        assert_eq!(&s[..head_index(s, 2)], "a");
        assert_eq!(&s[..head_index(s, 3)], "a😀");
        assert_eq!(&s[tail_index(s, 2)..], "b");
        assert_eq!(&s[tail_index(s, 3)..], "😀b");
        assert_eq!(trim("\u{feff} x \u{3000}"), "x");
    }
}
