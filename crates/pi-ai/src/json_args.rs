//! Tool-call arguments: the raw JSON text a model streams, parsed the way the
//! reference does it.
//!
//! * Empty or whitespace-only text is `{}`.
//! * Inside strings, raw control characters are escaped and backslashes that
//!   start no valid escape are doubled (models often send `"\q"` or a raw
//!   newline); nothing else is repaired.
//! * What still does not parse is reported with the message a JavaScript
//!   engine's `JSON.parse` gives (`Expected ',' or '}' after property value in
//!   JSON at position 16 (line 1 column 17)`), positions counted in UTF-16
//!   units; a value that is not an object gives
//!   `Tool arguments must be a JSON object`.
//!
//! * Arrays and objects nest at most [`MAX_ARGUMENT_DEPTH`](crate::limits::MAX_ARGUMENT_DEPTH) levels; deeper
//!   text is rejected like any malformed JSON (`Nesting deeper than 64 levels
//!   in JSON at position 64 (line 1 column 65)`), so a model cannot exhaust the
//!   stack with a few kilobytes of brackets.
//!
//! The error text handed to the agent is `<message>\n\nReceived arguments:\n<raw>`.

use serde_json::{Map, Value};

use crate::limits::MAX_ARGUMENT_DEPTH;
use crate::text;

/// Parse complete tool-call arguments: `(arguments, error)`. On error the
/// arguments are `{}` and the error is the text described in the module doc.
pub fn parse_tool_arguments(raw: &str) -> (Value, Option<String>) {
    if raw.trim().is_empty() {
        return (Value::Object(Map::new()), None);
    }
    let repaired = repair(raw);
    let message = match parse_strict(&repaired) {
        Ok(v @ Value::Object(_)) => return (v, None),
        Ok(_) => text::ARGUMENTS_NOT_OBJECT.to_string(),
        Err(e) => e.to_string(),
    };
    (Value::Object(Map::new()), Some(text::arguments_error(&message, raw)))
}

/// Parse arguments that are still streaming, as far as they go: closes open
/// strings, arrays and objects. `None` when nothing sensible can be made yet.
pub fn parse_partial(raw: &str) -> Option<Value> {
    if raw.trim().is_empty() {
        return Some(Value::Object(Map::new()));
    }
    let repaired = repair(trim_open_escape(raw));
    let mut stack = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in repaired.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => stack.push('}'),
            '[' => stack.push(']'),
            '}' | ']' => {
                stack.pop();
            }
            _ => {}
        }
    }
    let mut base = repaired;
    if in_string {
        base.push('"');
    }
    let trimmed = base.trim_end();
    let base = trimmed.strip_suffix(',').unwrap_or(trimmed).to_string();
    let closers: String = stack.iter().rev().collect();
    for middle in ["", ":null", "null"] {
        let candidate = format!("{base}{middle}{closers}");
        if let Ok(v) = serde_json::from_str::<Value>(&candidate) {
            return Some(v);
        }
    }
    None
}

/// Drop an escape cut short at the end of a string still being streamed
/// (`"x\` or `"x\u00`), so it is not taken for a literal backslash.
fn trim_open_escape(raw: &str) -> &str {
    let mut in_string = false;
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !in_string {
            in_string = c == '"';
            continue;
        }
        match c {
            '"' => in_string = false,
            '\\' => match chars.next() {
                None => return &raw[..i],
                Some((_, 'u')) => {
                    let mut hex = 0;
                    while hex < 4 && chars.peek().is_some_and(|(_, h)| h.is_ascii_hexdigit()) {
                        chars.next();
                        hex += 1;
                    }
                    if hex < 4 && chars.peek().is_none() {
                        return &raw[..i];
                    }
                }
                Some(_) => {}
            },
            _ => {}
        }
    }
    raw
}

/// Escape raw control characters inside strings and double backslashes that
/// start no valid escape. Valid JSON comes back unchanged.
pub fn repair(raw: &str) -> String {
    let chars: Vec<char> = raw.chars().collect();
    let mut out = String::with_capacity(raw.len() + 8);
    let mut in_string = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !in_string {
            if c == '"' {
                in_string = true;
            }
            out.push(c);
            i += 1;
            continue;
        }
        match c {
            '"' => {
                in_string = false;
                out.push(c);
            }
            '\\' => {
                let next = chars.get(i + 1).copied();
                match next {
                    Some('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't') => {
                        out.push('\\');
                        out.push(next.unwrap_or_default());
                        i += 2;
                        continue;
                    }
                    Some('u') if chars.len() >= i + 6 && chars[i + 2..i + 6].iter().all(|h| h.is_ascii_hexdigit()) => {
                        out.extend(&chars[i..i + 6]);
                        i += 6;
                        continue;
                    }
                    _ => out.push_str("\\\\"),
                }
            }
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// Why text is not JSON, in the words of JavaScript's `JSON.parse`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JsonError {
    /// A fault at a known place: `<what> in JSON at position <p> (line <l> column <c>)`.
    #[error("{what} in JSON at position {position} (line {line} column {column})")]
    At {
        /// What is wrong there.
        what: Syntax,
        /// The position, in UTF-16 units.
        position: usize,
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
    },
    /// Text after the value.
    #[error("Unexpected non-whitespace character after JSON at position {position} (line {line} column {column})")]
    Trailing {
        /// The position, in UTF-16 units.
        position: usize,
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
    },
    /// The text ended inside a value.
    #[error("Unexpected end of JSON input")]
    End,
    /// A whole text JavaScript names (`NaN`, `undefined`, …).
    #[error("\"{0}\" is not valid JSON")]
    NotJson(String),
    /// An unexpected character, shown in its context.
    #[error("Unexpected token '{token}', {before}\"{snippet}\"{after} is not valid JSON")]
    Token {
        /// The character.
        token: String,
        /// The text around it (all of a short text).
        snippet: String,
        /// `...` when the snippet does not start the text.
        before: &'static str,
        /// `...` when the snippet does not end it.
        after: &'static str,
    },
}

/// What [`JsonError::At`] found at its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Syntax {
    /// A string where none may be.
    #[error("Unexpected string")]
    UnexpectedString,
    /// A number where none may be.
    #[error("Unexpected number")]
    UnexpectedNumber,
    /// Arrays and objects nested past the limit.
    #[error("{}", text::arguments_too_deep(*.0))]
    TooDeep(usize),
    /// `-` without digits.
    #[error("No number after minus sign")]
    NoNumberAfterMinus,
    /// `1.` without digits.
    #[error("Unterminated fractional number")]
    UnterminatedFraction,
    /// `1e` without digits.
    #[error("Exponent part is missing a number")]
    EmptyExponent,
    /// A string left open.
    #[error("Unterminated string")]
    UnterminatedString,
    /// `\u` without four hex digits.
    #[error("Bad Unicode escape")]
    BadUnicodeEscape,
    /// A backslash before a character no escape starts with.
    #[error("Bad escaped character")]
    BadEscape,
    /// A raw control character inside a string.
    #[error("Bad control character in string literal")]
    ControlCharacter,
    /// An object that starts with neither a name nor `}`.
    #[error("Expected property name or '}}'")]
    ExpectedNameOrEnd,
    /// A name without `:`.
    #[error("Expected ':' after property name")]
    ExpectedColon,
    /// A `,` in an object not followed by a name.
    #[error("Expected double-quoted property name")]
    ExpectedName,
    /// An object value followed by neither `,` nor `}`.
    #[error("Expected ',' or '}}' after property value")]
    ExpectedCommaOrBrace,
    /// An array element followed by neither `,` nor `]`.
    #[error("Expected ',' or ']' after array element")]
    ExpectedCommaOrBracket,
}

/// Parse JSON strictly, with JavaScript's `JSON.parse` error messages.
pub fn parse_strict(src: &str) -> Result<Value, JsonError> {
    let units: Vec<u16> = src.encode_utf16().collect();
    let mut p = Parser { s: &units, i: 0, depth: 0 };
    let v = p.value()?;
    p.skip_ws();
    if p.i < units.len() {
        let (line, column) = p.location(p.i);
        return Err(JsonError::Trailing { position: p.i, line, column });
    }
    Ok(v)
}

const CONTEXT: usize = 10;
const MIN_LEN_FOR_CONTEXT: usize = CONTEXT * 2 + 1;

struct Parser<'a> {
    s: &'a [u16],
    i: usize,
    /// Arrays and objects open around the current position.
    depth: usize,
}

fn is_digit(c: u16) -> bool {
    (b'0' as u16..=b'9' as u16).contains(&c)
}

impl Parser<'_> {
    fn peek(&self) -> Option<u16> {
        self.s.get(self.i).copied()
    }

    fn at(&self, c: u8) -> bool {
        self.peek() == Some(c as u16)
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c == b' ' as u16 || c == b'\t' as u16 || c == b'\n' as u16 || c == b'\r' as u16 {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn location(&self, pos: usize) -> (usize, usize) {
        let mut line = 1;
        let mut line_start = 0;
        let mut k = 0;
        while k < pos.min(self.s.len()) {
            let c = self.s[k];
            if c == b'\r' as u16 {
                if self.s.get(k + 1) == Some(&(b'\n' as u16)) && k + 1 < pos {
                    k += 1;
                }
                line += 1;
                line_start = k + 1;
            } else if c == b'\n' as u16 {
                line += 1;
                line_start = k + 1;
            }
            k += 1;
        }
        (line, pos - line_start + 1)
    }

    fn explicit(&self, position: usize, what: Syntax) -> JsonError {
        let (line, column) = self.location(position);
        JsonError::At { what, position, line, column }
    }

    /// The error for an unexpected token at `pos`, chosen by the token like
    /// JavaScript engines do.
    fn unexpected(&self, pos: usize) -> JsonError {
        let Some(c) = self.s.get(pos).copied() else {
            return JsonError::End;
        };
        if c == b'"' as u16 {
            return self.explicit(pos, Syntax::UnexpectedString);
        }
        if c == b'-' as u16 || is_digit(c) {
            return self.explicit(pos, Syntax::UnexpectedNumber);
        }
        let whole = String::from_utf16_lossy(self.s);
        if matches!(whole.as_str(), "NaN" | "Infinity" | "undefined" | "[object Object]") {
            return JsonError::NotJson(whole);
        }
        let token = String::from_utf16_lossy(&[c]);
        let len = self.s.len();
        if len < MIN_LEN_FOR_CONTEXT {
            return JsonError::Token { token, snippet: whole, before: "", after: "" };
        }
        let (start, end, before, after) = if pos < CONTEXT {
            (0, pos + CONTEXT, "", "...")
        } else if pos < len - CONTEXT {
            (pos - CONTEXT, pos + CONTEXT, "...", "...")
        } else {
            (pos - CONTEXT, len, "...", "")
        };
        let snippet = String::from_utf16_lossy(&self.s[start..end.min(len)]);
        JsonError::Token { token, snippet, before, after }
    }

    fn value(&mut self) -> Result<Value, JsonError> {
        self.skip_ws();
        let Some(c) = self.peek() else {
            return Err(self.unexpected(self.i));
        };
        match c {
            0x22 => self.string().map(Value::String),
            0x2d | 0x30..=0x39 => self.number(),
            0x7b | 0x5b => {
                if self.depth >= MAX_ARGUMENT_DEPTH {
                    return Err(self.explicit(self.i, Syntax::TooDeep(MAX_ARGUMENT_DEPTH)));
                }
                self.depth += 1;
                let v = if c == 0x7b { self.object() } else { self.array() };
                self.depth -= 1;
                v
            }
            0x74 => self.literal("true", Value::Bool(true)),
            0x66 => self.literal("false", Value::Bool(false)),
            0x6e => self.literal("null", Value::Null),
            _ => Err(self.unexpected(self.i)),
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, JsonError> {
        for (k, w) in word.bytes().enumerate().skip(1) {
            let pos = self.i + k;
            match self.s.get(pos) {
                Some(&c) if c == w as u16 => {}
                _ => return Err(self.unexpected(pos)),
            }
        }
        self.i += word.len();
        Ok(v)
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(is_digit) {
            self.i += 1;
        }
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.i;
        if self.at(b'-') {
            self.i += 1;
            if !self.peek().is_some_and(is_digit) {
                return Err(self.explicit(self.i, Syntax::NoNumberAfterMinus));
            }
        }
        if self.at(b'0') {
            self.i += 1;
            if self.peek().is_some_and(is_digit) {
                return Err(self.unexpected(self.i));
            }
        } else {
            self.digits();
        }
        if self.at(b'.') {
            self.i += 1;
            if !self.peek().is_some_and(is_digit) {
                return Err(self.explicit(self.i, Syntax::UnterminatedFraction));
            }
            self.digits();
        }
        if self.at(b'e') || self.at(b'E') {
            self.i += 1;
            if self.at(b'+') || self.at(b'-') {
                self.i += 1;
            }
            if !self.peek().is_some_and(is_digit) {
                return Err(self.explicit(self.i, Syntax::EmptyExponent));
            }
            self.digits();
        }
        let text = String::from_utf16_lossy(&self.s[start..self.i]);
        // Out-of-range numbers are Infinity in JavaScript, which JSON prints as null.
        Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.i += 1;
        let mut out: Vec<u16> = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.explicit(self.s.len(), Syntax::UnterminatedString));
            };
            match c {
                0x22 => {
                    self.i += 1;
                    return Ok(String::from_utf16_lossy(&out));
                }
                0x5c => {
                    self.i += 1;
                    let Some(e) = self.peek() else {
                        return Err(self.unexpected(self.s.len()));
                    };
                    let decoded = match e {
                        0x22 => 0x22,
                        0x5c => 0x5c,
                        0x2f => 0x2f,
                        0x62 => 0x08,
                        0x66 => 0x0c,
                        0x6e => 0x0a,
                        0x72 => 0x0d,
                        0x74 => 0x09,
                        0x75 => {
                            let mut code: u16 = 0;
                            for k in 1..=4 {
                                let pos = self.i + k;
                                let digit = self
                                    .s
                                    .get(pos)
                                    .and_then(|&h| char::from_u32(h as u32))
                                    .and_then(|h| h.to_digit(16));
                                match digit {
                                    Some(d) => code = code * 16 + d as u16,
                                    None => {
                                        return Err(self.explicit(pos, Syntax::BadUnicodeEscape));
                                    }
                                }
                            }
                            self.i += 4;
                            code
                        }
                        _ => return Err(self.explicit(self.i, Syntax::BadEscape)),
                    };
                    out.push(decoded);
                    self.i += 1;
                }
                c if c < 0x20 => {
                    return Err(self.explicit(self.i, Syntax::ControlCharacter));
                }
                c => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }

    fn object(&mut self) -> Result<Value, JsonError> {
        self.i += 1;
        let mut map = Map::new();
        self.skip_ws();
        if self.at(b'}') {
            self.i += 1;
            return Ok(Value::Object(map));
        }
        if !self.at(b'"') {
            return Err(self.explicit(self.i, Syntax::ExpectedNameOrEnd));
        }
        loop {
            let key = self.string()?;
            self.skip_ws();
            if !self.at(b':') {
                return Err(self.explicit(self.i, Syntax::ExpectedColon));
            }
            self.i += 1;
            let v = self.value()?;
            map.insert(key, v);
            self.skip_ws();
            if self.at(b',') {
                self.i += 1;
                self.skip_ws();
                if !self.at(b'"') {
                    return Err(self.explicit(self.i, Syntax::ExpectedName));
                }
            } else if self.at(b'}') {
                self.i += 1;
                return Ok(Value::Object(map));
            } else {
                return Err(self.explicit(self.i, Syntax::ExpectedCommaOrBrace));
            }
        }
    }

    fn array(&mut self) -> Result<Value, JsonError> {
        self.i += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.at(b']') {
            self.i += 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.skip_ws();
            if self.at(b',') {
                self.i += 1;
            } else if self.at(b']') {
                self.i += 1;
                return Ok(Value::Array(items));
            } else {
                return Err(self.explicit(self.i, Syntax::ExpectedCommaOrBracket));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Messages checked against Node 22's `JSON.parse` (the reference's engine).
    #[test]
    fn strict_errors_read_like_json_parse() {
        let cases: &[(&str, &str)] = &[
            (
                r#"{"path": "f.txt""#,
                "Expected ',' or '}' after property value in JSON at position 16 (line 1 column 17)",
            ),
            (r#"{"a":1,}"#, "Expected double-quoted property name in JSON at position 7 (line 1 column 8)"),
            ("abc", r#"Unexpected token 'a', "abc" is not valid JSON"#),
            (r#"{"a":1} x"#, "Unexpected non-whitespace character after JSON at position 8 (line 1 column 9)"),
            ("", "Unexpected end of JSON input"),
            ("   ", "Unexpected end of JSON input"),
            (r#"{"a":tru}"#, r#"Unexpected token '}', "{"a":tru}" is not valid JSON"#),
            (r#"{"a":"x\u00"}"#, "Bad Unicode escape in JSON at position 11 (line 1 column 12)"),
            (r#"{"a" 1}"#, "Expected ':' after property name in JSON at position 5 (line 1 column 6)"),
            (
                "{\"a\":\"line\nbreak\"}",
                "Bad control character in string literal in JSON at position 10 (line 1 column 11)",
            ),
            (r#"{"a":-}"#, "No number after minus sign in JSON at position 6 (line 1 column 7)"),
            (r#"{"a":1.}"#, "Unterminated fractional number in JSON at position 7 (line 1 column 8)"),
            (r#"{"a":1e}"#, "Exponent part is missing a number in JSON at position 7 (line 1 column 8)"),
            (r#"{"a":"\q"}"#, "Bad escaped character in JSON at position 7 (line 1 column 8)"),
            (r#"{"a":[1,2}"#, "Expected ',' or ']' after array element in JSON at position 9 (line 1 column 10)"),
            ("{'a':1}", "Expected property name or '}' in JSON at position 1 (line 1 column 2)"),
            (r#"{"a":01}"#, "Unexpected number in JSON at position 6 (line 1 column 7)"),
            (r#"{"a":"unterminated"#, "Unterminated string in JSON at position 18 (line 1 column 19)"),
            ("-", "No number after minus sign in JSON at position 1 (line 1 column 2)"),
            (r#"{"u": "\"#, "Unexpected end of JSON input"),
            ("{\"a\":\r\"b\"\r,x}", "Expected double-quoted property name in JSON at position 11 (line 3 column 2)"),
            ("abcdefghijkl[mnopqrstuvwxyz", r#"Unexpected token 'a', "abcdefghij"... is not valid JSON"#),
            (
                r#"{"long key name here": "a much longer value string", "k2": x}"#,
                r#"Unexpected token 'x', ..."g", "k2": x}" is not valid JSON"#,
            ),
            (
                r#"{"abcdefghijklmnopqrstuv": x, "k": 1234567890}"#,
                r#"Unexpected token 'x', ..."pqrstuv": x, "k": 12"... is not valid JSON"#,
            ),
            ("[1,]", r#"Unexpected token ']', "[1,]" is not valid JSON"#),
            ("{\n  \"abcdefghijklmnop\": nul\n}", "Unexpected token '\n', ...\"mnop\": nul\n}\" is not valid JSON"),
            ("é", r#"Unexpected token 'é', "é" is not valid JSON"#),
            (
                "{\"a\":\"\u{1F600}\",x}",
                "Expected double-quoted property name in JSON at position 10 (line 1 column 11)",
            ),
            ("{\"a\":\"x\"\r\n,y}", "Expected double-quoted property name in JSON at position 11 (line 2 column 2)"),
            ("undefined", r#""undefined" is not valid JSON"#),
            (
                r#"{"a":1,"b":[1,2,3,4,5,6,7],"c":{"d":flase}}"#,
                r#"Unexpected token 'l', ...""c":{"d":flase}}" is not valid JSON"#,
            ),
        ];
        for (src, want) in cases {
            assert_eq!(parse_strict(src).unwrap_err().to_string(), *want, "source {src:?}");
        }
    }

    #[test]
    fn strict_parses_valid_json() {
        assert_eq!(
            parse_strict(r#" {"a":[1,-2.5e3,true,false,null,"\u00e9\n"],"b":{}} "#).unwrap(),
            json!({"a":[1,-2500.0,true,false,null,"é\n"],"b":{}})
        );
    }

    #[test]
    fn tool_arguments_like_the_reference() {
        assert_eq!(parse_tool_arguments(""), (json!({}), None));
        assert_eq!(parse_tool_arguments("  \n"), (json!({}), None));
        assert_eq!(parse_tool_arguments(r#"{"path":"f.txt"}"#), (json!({"path":"f.txt"}), None));
        // Repaired: raw control characters and bad escapes inside strings.
        assert_eq!(parse_tool_arguments("{\"a\":\"line\nbreak\"}").0, json!({"a":"line\nbreak"}));
        assert_eq!(parse_tool_arguments(r#"{"a":"\q"}"#).0, json!({"a":"\\q"}));
        assert_eq!(parse_tool_arguments(r#"{"a":"x\u12G4"}"#).0, json!({"a":"x\\u12G4"}));
        assert_eq!(
            parse_tool_arguments("{bad json"),
            (
                json!({}),
                Some("Expected property name or '}' in JSON at position 1 (line 1 column 2)\n\nReceived arguments:\n{bad json".to_string())
            )
        );
        assert_eq!(
            parse_tool_arguments("[1,2]").1.unwrap(),
            "Tool arguments must be a JSON object\n\nReceived arguments:\n[1,2]"
        );
        // The position is counted in the repaired text, as in the reference.
        assert_eq!(
            parse_tool_arguments(r#"{"a":"x\q", }"#).1.unwrap(),
            "Expected double-quoted property name in JSON at position 13 (line 1 column 14)\n\nReceived arguments:\n{\"a\":\"x\\q\", }"
        );
        assert_eq!(
            parse_tool_arguments(r#"{"a":"x\"#).1.unwrap(),
            "Unterminated string in JSON at position 9 (line 1 column 10)\n\nReceived arguments:\n{\"a\":\"x\\"
        );
    }

    #[test]
    fn nesting_is_limited_not_a_stack_overflow() {
        let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse_strict(&nest(MAX_ARGUMENT_DEPTH)).is_ok());
        assert_eq!(
            parse_strict(&nest(MAX_ARGUMENT_DEPTH + 1)).unwrap_err().to_string(),
            "Nesting deeper than 64 levels in JSON at position 64 (line 1 column 65)"
        );
        // Objects count too, and the position is where the limit was passed.
        let objects = format!("{{\"a\": {}1{}}}", "{\"b\":".repeat(70), "}".repeat(70));
        assert_eq!(
            parse_strict(&objects).unwrap_err().to_string(),
            "Nesting deeper than 64 levels in JSON at position 321 (line 1 column 322)"
        );
        // A million levels: still only an error, for every entry point.
        let deep = nest(1_000_000);
        let (args, err) = parse_tool_arguments(&deep);
        assert_eq!(args, json!({}));
        assert!(err.unwrap().starts_with(
            "Nesting deeper than 64 levels in JSON at position 64 (line 1 column 65)\n\nReceived arguments:\n[[["
        ));
        assert_eq!(parse_partial(&deep[..deep.len() / 2]), None);
        assert_eq!(parse_partial(&deep), None);
        // Siblings do not add up: only nesting counts.
        let wide = format!("[{}]", vec![nest(MAX_ARGUMENT_DEPTH - 1); 1000].join(","));
        assert!(parse_strict(&wide).is_ok());
    }

    /// `serde_json` reads model data elsewhere (events, error bodies, partial
    /// arguments); its recursion limit must stay on (no `unbounded_depth`).
    #[test]
    fn serde_json_keeps_its_recursion_limit() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = serde_json::from_str::<Value>(&deep).unwrap_err();
        assert!(e.to_string().starts_with("recursion limit exceeded"), "{e}");
    }

    #[test]
    fn partial_arguments_close_what_is_open() {
        assert_eq!(parse_partial(r#"{"path": "src/ma"#), Some(json!({"path":"src/ma"})));
        assert_eq!(parse_partial(r#"{"path": "a", "#), Some(json!({"path":"a"})));
        assert_eq!(parse_partial(r#"{"pa"#), Some(json!({"pa":null})));
        assert_eq!(parse_partial(r#"{"a": ["x", {"b": 1"#), Some(json!({"a":["x",{"b":1}]})));
        assert_eq!(parse_partial(r#"{"a": "x\"#), Some(json!({"a":"x"})));
        assert_eq!(parse_partial(r#"{"a": "x\u00"#), Some(json!({"a":"x"})));
        assert_eq!(parse_partial(r#"{"a": tr"#), None);
    }
}
