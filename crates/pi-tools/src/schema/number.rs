//! JavaScript's number conversions, as the reference's coercion uses them.

use serde_json::Value;

/// `Number(s)` of JavaScript: surrounding white space ignored, `""` is 0,
/// `0x`/`0o`/`0b` literals, decimal literals with exponent; `None` for NaN
/// and the infinities.
pub(crate) fn js_to_number(s: &str) -> Option<f64> {
    let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if t.is_empty() {
        return Some(0.0);
    }
    for (prefix, radix) in [("0x", 16), ("0X", 16), ("0o", 8), ("0O", 8), ("0b", 2), ("0B", 2)] {
        if let Some(digits) = t.strip_prefix(prefix) {
            return u128::from_str_radix(digits, radix).ok().map(|n| n as f64);
        }
    }
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let decimal = !body.is_empty()
        && body.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && body.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'.');
    if !decimal {
        return None;
    }
    t.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// A JSON number for `n`: an integer when it is one (so it prints as `1`, not `1.0`).
pub(crate) fn number_value(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 {
        Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map(Value::Number).unwrap_or(Value::Null)
    }
}

/// JavaScript's `String(number)` for the common cases.
pub(crate) fn js_number_string(n: f64) -> String {
    let a = n.abs();
    if a >= 1e21 || (a != 0.0 && a < 1e-6) {
        // Exponent form, with the sign JavaScript writes: `1e+21`, `1e-7`.
        let e = format!("{n:e}");
        return if e.contains("e-") { e } else { e.replace('e', "e+") };
    }
    if n.fract() == 0.0 { format!("{}", n as i64) } else { format!("{n}") }
}

/// JavaScript's `JSON.stringify` of a value (numbers as JavaScript prints them).
pub(crate) fn js_json(v: &Value) -> String {
    match v {
        Value::Number(n) => n.as_f64().map(js_number_string).unwrap_or_else(|| n.to_string()),
        Value::Array(items) => format!("[{}]", items.iter().map(js_json).collect::<Vec<_>>().join(",")),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), js_json(v)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_conversion_follows_javascript() {
        for (s, want) in [
            ("", Some(0.0)),
            (" 5 ", Some(5.0)),
            ("1e3", Some(1000.0)),
            ("0x10", Some(16.0)),
            ("-2.5", Some(-2.5)),
            (".5", Some(0.5)),
            ("5.", Some(5.0)),
            ("Infinity", None),
            ("inf", None),
            ("nan", None),
            ("1_000", None),
            ("12px", None),
            ("-0x10", None),
        ] {
            assert_eq!(js_to_number(s), want, "{s:?}");
        }
        assert_eq!(js_number_string(3.0), "3");
        assert_eq!(js_number_string(0.1), "0.1");
        assert_eq!(js_number_string(1e21), "1e+21");
        assert_eq!(js_number_string(-2.5e-7), "-2.5e-7");
        assert_eq!(js_json(&serde_json::json!([1.0, "a", {"k": 2.5}])), r#"[1,"a",{"k":2.5}]"#);
    }
}
