//! The name a script uses for a tool: every character that cannot appear in a
//! JavaScript identifier (ASCII rules) becomes `_`, so `weather-now` is
//! `tools.weather_now` and `mcp__dev-radius__search` is
//! `tools.mcp__dev_radius__search`.

/// The script identifier of `name` (`_` for an empty name).
pub fn to_identifier(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        let valid = if out.is_empty() {
            c.is_ascii_alphabetic() || c == '_' || c == '$'
        } else {
            c.is_ascii_alphanumeric() || c == '_' || c == '$'
        };
        out.push(if valid { c } else { '_' });
    }
    if out.is_empty() { "_".to_string() } else { out }
}

/// Whether `name` is already a valid identifier (`[A-Za-z_$][A-Za-z0-9_$]*`).
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_characters_become_underscores() {
        assert_eq!(to_identifier("weather-now"), "weather_now");
        assert_eq!(to_identifier("mcp__dev-radius__search"), "mcp__dev_radius__search");
        assert_eq!(to_identifier("9lives"), "_lives");
        assert_eq!(to_identifier("é"), "_");
        assert_eq!(to_identifier(""), "_");
        assert!(is_identifier("read") && !is_identifier("a-b") && !is_identifier("1a") && !is_identifier(""));
    }
}
