//! Small formats shared by the renderers: durations, token counts, paths.

use std::path::Path;

/// `x` with one decimal, halves rounded up (JavaScript's `toFixed(1)`, which
/// the reference's numbers use; Rust's formatting rounds halves to even).
pub fn fixed1(x: f64) -> String {
    format!("{:.1}", (x * 10.0).round() / 10.0)
}

/// `4.2s` below a minute, then `1m 30s`, then `2h 3m 4s`.
pub fn duration(ms: u64) -> String {
    let secs = ms as f64 / 1000.0;
    if secs < 60.0 {
        return format!("{}s", fixed1(secs));
    }
    let total = ms / 1000;
    let (m, s) = (total / 60, total % 60);
    if m < 60 { format!("{m}m {s}s") } else { format!("{}h {}m {s}s", m / 60, m % 60) }
}

/// `999`, `1.2k`, `45k`, `1.2M`, `15M`.
pub fn tokens(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1000..=9_999 => format!("{}k", fixed1(n as f64 / 1000.0)),
        10_000..=999_999 => format!("{}k", (n as f64 / 1000.0).round() as u64),
        1_000_000..=9_999_999 => format!("{}M", fixed1(n as f64 / 1_000_000.0)),
        _ => format!("{}M", (n as f64 / 1_000_000.0).round() as u64),
    }
}

/// `n` with thousands separated by commas (`12,345`).
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `path` with the home folder shown as `~`.
pub fn home_short(path: &str, home: Option<&Path>) -> String {
    let Some(home) = home.and_then(|h| h.to_str()).filter(|h| !h.is_empty() && *h != "/") else {
        return path.to_string();
    };
    if path == home {
        return "~".to_string();
    }
    match path.strip_prefix(home) {
        Some(rest) if rest.starts_with('/') => format!("~{rest}"),
        _ => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(duration(4_230), "4.2s");
        assert_eq!(duration(90_000), "1m 30s");
        assert_eq!(duration(7_384_000), "2h 3m 4s");
        assert_eq!(tokens(999), "999");
        assert_eq!(tokens(1_234), "1.2k");
        assert_eq!(tokens(45_600), "46k");
        assert_eq!(tokens(1_250_000), "1.3M");
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(12_345), "12,345");
        assert_eq!(grouped(1_234_567), "1,234,567");
        let home = Path::new("/home/u");
        assert_eq!(home_short("/home/u/src", Some(home)), "~/src");
        assert_eq!(home_short("/home/u", Some(home)), "~");
        assert_eq!(home_short("/home/uv", Some(home)), "/home/uv");
    }
}
