//! Numbers as JavaScript reads and prints them, wherever pi must give the
//! reference's texts: `read`'s offset/limit arithmetic on the numbers the
//! model sent (`String(number)`, `toFixed(2)`), bash's timeout messages, and
//! argument coercion and validation messages (`Number(s)`, `JSON.stringify`).

use serde_json::Value;

/// JavaScript's `String(x)`: shortest round-trip digits, plain notation for
/// 1e-7 < |x| < 1e21, exponent notation (`1e+300`, `1.5e-7`) outside.
pub(crate) fn js_number(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if x == 0.0 {
        return "0".into();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    // `{:e}` gives the shortest round-trip digits: "1.5e-7", "1e300".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let k = digits.len() as i32;
    let n = exp + 1; // position of the decimal point relative to the digits
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let esign = if e >= 0 { '+' } else { '-' };
        let rest = if k > 1 { format!(".{}", &digits[1..]) } else { String::new() };
        format!("{}{rest}e{esign}{}", &digits[..1], e.abs())
    };
    format!("{sign}{body}")
}

/// JavaScript's `x.toFixed(2)` for a non-negative finite `x` below 1e21:
/// the exact binary value rounded half away from zero.
pub(crate) fn js_to_fixed_2(x: f64) -> String {
    // Rust rounds exact ties to even; JavaScript picks the larger candidate.
    // A value exactly halfway between two hundredths has the form q/8 with q odd.
    let eighths = x * 8.0;
    if eighths.fract() == 0.0 && (eighths as u64) % 2 == 1 && (x * 1000.0) % 10.0 == 5.0 {
        return format!("{:.2}", x + 0.001);
    }
    format!("{x:.2}")
}

/// JavaScript's `Number.MAX_SAFE_INTEGER`.
pub(crate) const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

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

/// JavaScript's `JSON.stringify` of a value (numbers as JavaScript prints them).
pub(crate) fn js_json(v: &Value) -> String {
    match v {
        Value::Number(n) => n.as_f64().map(js_number).unwrap_or_else(|| n.to_string()),
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
    fn like_javascript() {
        assert_eq!(js_number(1.0), "1");
        assert_eq!(js_number(-2.0), "-2");
        assert_eq!(js_number(1.5), "1.5");
        assert_eq!(js_number(97.5), "97.5");
        assert_eq!(js_number(2001.5), "2001.5");
        assert_eq!(js_number(1e300), "1e+300");
        assert_eq!(js_number(1e21), "1e+21");
        assert_eq!(js_number(1e20), "100000000000000000000");
        assert_eq!(js_number(0.000001), "0.000001");
        assert_eq!(js_number(1.5e-7), "1.5e-7");
        assert_eq!(js_number(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(js_number(-0.0), "0");
        assert_eq!(js_number(123456789.125), "123456789.125");
    }

    #[test]
    fn to_fixed() {
        assert_eq!(js_to_fixed_2(1.5005), "1.50");
        assert_eq!(js_to_fixed_2(1.25), "1.25");
        assert_eq!(js_to_fixed_2(2.0), "2.00");
        assert_eq!(js_to_fixed_2(1.125), "1.13");
        assert_eq!(js_to_fixed_2(1.375), "1.38");
        assert_eq!(js_to_fixed_2(1.005), "1.00"); // 1.00499999999999989…
        assert_eq!(js_to_fixed_2(1.05), "1.05");
    }

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
        assert_eq!(js_number(-2.5e-7), "-2.5e-7");
        assert_eq!(js_json(&serde_json::json!([1.0, "a", {"k": 2.5}])), r#"[1,"a",{"k":2.5}]"#);
    }
}
