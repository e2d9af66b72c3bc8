//! A script as the model sends it: JavaScript, optionally preceded by one
//! options line `// @options: {"max_output_tokens": N, "timeout_ms": N}`.
//! Everything is checked before the script runs; a problem is a plain error
//! result (no `Script failed` header).

use serde_json::Value;

use crate::js;
use crate::text;

/// The options of one script.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScriptOptions {
    /// Output budget in estimated tokens (characters / 4).
    pub max_output_tokens: Option<u64>,
    /// Hard deadline of the whole script.
    pub timeout_ms: Option<u64>,
}

/// A script ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// The source without the options line (its newline kept, so line numbers match).
    pub code: String,
    /// Its options.
    pub options: ScriptOptions,
}

/// Why a script cannot run; the `Display` is what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SourceError(pub String);

/// The largest integer JavaScript represents exactly.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

fn safe_integer(v: &Value) -> Option<u64> {
    let n = v.as_f64()?;
    (n.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER).contains(&n)).then_some(n as u64)
}

fn parse_options(directive: &str) -> Result<ScriptOptions, SourceError> {
    let err = |m: String| SourceError(m);
    if directive.is_empty() {
        return Err(err(text::OPTIONS_NOT_OBJECT.into()));
    }
    if let Some(message) = crate::v8json::parse_error(directive) {
        return Err(err(text::options_invalid_json(&message)));
    }
    let value: Value = serde_json::from_str(directive).map_err(|e| err(text::options_invalid_json(&e.to_string())))?;
    let Value::Object(fields) = value else { return Err(err(text::OPTIONS_NOT_OBJECT.into())) };
    if let Some(key) = fields.keys().find(|k| !text::OPTIONS_FIELDS.contains(&k.as_str())) {
        return Err(err(text::options_unsupported(key)));
    }
    let mut options = ScriptOptions::default();
    if let Some(v) = fields.get("max_output_tokens") {
        options.max_output_tokens = Some(safe_integer(v).ok_or_else(|| err(text::OPTIONS_BAD_MAX_OUTPUT.into()))?);
    }
    if let Some(v) = fields.get("timeout_ms") {
        let ms = safe_integer(v).filter(|n| *n > 0 && *n <= text::MAX_TIMEOUT_MS);
        options.timeout_ms = Some(ms.ok_or_else(|| err(text::options_bad_timeout()))?);
    }
    Ok(options)
}

/// Split the options line off `input`. Empty input, a bad options line and an
/// options line anywhere but first are errors.
pub fn parse(input: &str) -> Result<Script, SourceError> {
    if js::trim(input).is_empty() {
        return Err(SourceError(text::EMPTY_SOURCE.into()));
    }
    let misplaced =
        input.split('\n').enumerate().skip(1).find(|(_, l)| js::trim_start(l).starts_with(text::OPTIONS_PREFIX));
    if let Some((index, _)) = misplaced {
        return Err(SourceError(text::options_misplaced(index + 1)));
    }
    let first = input.split('\n').next().unwrap_or("");
    let first = first.strip_suffix('\r').unwrap_or(first);
    let trimmed = js::trim_start(first);
    let Some(directive) = trimmed.strip_prefix(text::OPTIONS_PREFIX) else {
        return Ok(Script { code: input.to_string(), options: ScriptOptions::default() });
    };
    let code = input.find('\n').map(|at| &input[at..]).unwrap_or("");
    if js::trim(code).is_empty() {
        return Err(SourceError(text::OPTIONS_WITHOUT_SOURCE.into()));
    }
    let options = parse_options(js::trim(directive))?;
    Ok(Script { code: code.to_string(), options })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(input: &str) -> String {
        parse(input).unwrap_err().0
    }

    #[test]
    fn options_line_is_split_off_and_keeps_the_newline() {
        let s = parse("// @options: {\"max_output_tokens\": 10, \"timeout_ms\": 5}\nreturn 1").unwrap();
        assert_eq!(s.code, "\nreturn 1");
        assert_eq!(s.options, ScriptOptions { max_output_tokens: Some(10), timeout_ms: Some(5) });
        assert_eq!(parse("return 1").unwrap().code, "return 1");
        assert_eq!(parse("  // @options: {}\r\nx").unwrap().code, "\nx");
    }

    #[test]
    fn errors_read_as_the_reference() {
        assert!(err("  ").starts_with("Expected JavaScript source text (non-empty)."));
        assert_eq!(
            err("a\n// @options: {}"),
            "The // @options: line must be the first line of the input; found one on line 2"
        );
        assert_eq!(
            err("// @options: {}"),
            "The @options line must be followed by JavaScript source on subsequent lines"
        );
        assert_eq!(
            err("// @options: {\"max_output_tokens\": -1}\nx"),
            "@options field `max_output_tokens` must be a non-negative safe integer"
        );
        assert_eq!(
            err("// @options: {\"timeout_ms\": 0}\nx"),
            "@options field `timeout_ms` must be a positive integer up to 2147483647"
        );
        assert_eq!(
            err("// @options: {\"foo\": 1}\nx"),
            "@options only supports `max_output_tokens` and `timeout_ms`; got `foo`"
        );
        assert_eq!(
            err("// @options:\nx"),
            "@options must be a JSON object with supported fields `max_output_tokens` and `timeout_ms`"
        );
        assert_eq!(
            err("// @options: [1]\nx"),
            "@options must be a JSON object with supported fields `max_output_tokens` and `timeout_ms`"
        );
        assert_eq!(
            err("// @options: {nope}\nx"),
            "@options must be valid JSON with supported fields `max_output_tokens` and `timeout_ms`: Expected property name or '}' in JSON at position 1 (line 1 column 2)"
        );
        assert_eq!(parse("// @options: {\"timeout_ms\": 2.0}\nx").unwrap().options.timeout_ms, Some(2));
    }
}
