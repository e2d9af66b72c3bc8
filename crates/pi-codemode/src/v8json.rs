//! The messages `JSON.parse` gives for invalid JSON in Node (V8), so an
//! options line with bad JSON is answered as the reference answers it
//! (`Expected property name or '}' in JSON at position 1 (line 1 column 2)`).
//! Positions count UTF-16 units, as JavaScript does.

/// Context shown around an unexpected token, on each side.
const CONTEXT_CHARS: usize = 10;

struct Scanner<'a> {
    chars: Vec<char>,
    /// UTF-16 offset of each char (and of the end).
    offsets: Vec<usize>,
    src: &'a str,
    at: usize,
}

type Fail = String;

impl<'a> Scanner<'a> {
    fn new(src: &'a str) -> Self {
        let chars: Vec<char> = src.chars().collect();
        let mut offsets = Vec::with_capacity(chars.len() + 1);
        let mut n = 0;
        for c in &chars {
            offsets.push(n);
            n += c.len_utf16();
        }
        offsets.push(n);
        Scanner { chars, offsets, src, at: 0 }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.at += 1;
        }
    }

    fn at_position(&self, message: &str) -> Fail {
        let pos = self.offsets[self.at];
        let before = &self.chars[..self.at];
        let line = before.iter().filter(|c| **c == '\n').count() + 1;
        let line_start = before.iter().rposition(|c| *c == '\n').map(|i| i + 1).unwrap_or(0);
        let column = pos - self.offsets[line_start] + 1;
        let place = if message.ends_with("after JSON") { "" } else { " in JSON" };
        format!("{message}{place} at position {pos} (line {line} column {column})")
    }

    /// `Unexpected token …` or `Unexpected end of JSON input`.
    fn unexpected(&self) -> Fail {
        let Some(c) = self.peek() else { return "Unexpected end of JSON input".into() };
        let len = self.chars.len();
        let context = if len < CONTEXT_CHARS * 2 + 1 {
            format!("\"{}\"", self.src)
        } else {
            let start = self.at.saturating_sub(CONTEXT_CHARS);
            let end = (self.at + CONTEXT_CHARS).min(len);
            let part: String = self.chars[start..end].iter().collect();
            let pre = if start > 0 { "..." } else { "" };
            let post = if end < len { "..." } else { "" };
            format!("{pre}\"{part}\"{post}")
        };
        format!("Unexpected token '{c}', {context} is not valid JSON")
    }

    fn value(&mut self) -> Result<(), Fail> {
        self.skip_ws();
        match self.peek() {
            Some('{') => self.object(),
            Some('[') => self.array(),
            Some('"') => self.string(),
            Some(c) if c == '-' || c.is_ascii_digit() => self.number(),
            Some('t') => self.literal("true"),
            Some('f') => self.literal("false"),
            Some('n') => self.literal("null"),
            _ => Err(self.unexpected()),
        }
    }

    fn literal(&mut self, word: &str) -> Result<(), Fail> {
        for expected in word.chars() {
            if self.peek() != Some(expected) {
                return Err(self.unexpected());
            }
            self.at += 1;
        }
        Ok(())
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self) -> Result<(), Fail> {
        if self.peek() == Some('-') {
            self.at += 1;
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.at_position("No number after minus sign"));
            }
        }
        if self.peek() == Some('0') {
            self.at += 1;
            if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.at_position("Unexpected number"));
            }
        } else {
            self.digits();
        }
        if self.peek() == Some('.') {
            self.at += 1;
            if self.digits() == 0 {
                return Err(self.at_position("Unterminated fractional number"));
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            self.at += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return Err(self.at_position("Exponent part is missing a number"));
            }
        }
        Ok(())
    }

    fn string(&mut self) -> Result<(), Fail> {
        self.at += 1;
        loop {
            match self.peek() {
                None => return Err(self.at_position("Unterminated string")),
                Some('"') => {
                    self.at += 1;
                    return Ok(());
                }
                Some('\\') => {
                    self.at += 1;
                    match self.peek() {
                        Some('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't') => self.at += 1,
                        Some('u') => {
                            self.at += 1;
                            for _ in 0..4 {
                                if !self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                                    return Err(self.at_position("Bad Unicode escape"));
                                }
                                self.at += 1;
                            }
                        }
                        None => return Err(self.at_position("Unterminated string")),
                        Some(_) => return Err(self.at_position("Bad escaped character")),
                    }
                }
                Some(c) if (c as u32) < 0x20 => return Err(self.at_position("Bad control character in string literal")),
                Some(_) => self.at += 1,
            }
        }
    }

    fn object(&mut self) -> Result<(), Fail> {
        self.at += 1;
        self.skip_ws();
        if self.peek() == Some('}') {
            self.at += 1;
            return Ok(());
        }
        let mut first = true;
        loop {
            self.skip_ws();
            if self.peek() != Some('"') {
                let what = if first { "Expected property name or '}'" } else { "Expected double-quoted property name" };
                return Err(self.at_position(what));
            }
            first = false;
            self.string()?;
            self.skip_ws();
            if self.peek() != Some(':') {
                return Err(self.at_position("Expected ':' after property name"));
            }
            self.at += 1;
            self.value()?;
            self.skip_ws();
            match self.peek() {
                Some(',') => self.at += 1,
                Some('}') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(self.at_position("Expected ',' or '}' after property value")),
            }
        }
    }

    fn array(&mut self) -> Result<(), Fail> {
        self.at += 1;
        self.skip_ws();
        if self.peek() == Some(']') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.value()?;
            self.skip_ws();
            match self.peek() {
                Some(',') => self.at += 1,
                Some(']') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(self.at_position("Expected ',' or ']' after array element")),
            }
        }
    }
}

/// The message `JSON.parse(src)` throws in Node, or `None` when `src` is valid JSON.
pub fn parse_error(src: &str) -> Option<String> {
    let mut s = Scanner::new(src);
    if let Err(e) = s.value() {
        return Some(e);
    }
    s.skip_ws();
    if s.peek().is_some() {
        return Some(s.at_position("Unexpected non-whitespace character after JSON"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages recorded from Node 22's `JSON.parse`.
    #[test]
    fn messages_match_node() {
        let cases = [
            ("{nope}", "Expected property name or '}' in JSON at position 1 (line 1 column 2)"),
            ("x", "Unexpected token 'x', \"x\" is not valid JSON"),
            ("{\"a\":1,}", "Expected double-quoted property name in JSON at position 7 (line 1 column 8)"),
            ("{\"a\":1", "Expected ',' or '}' after property value in JSON at position 6 (line 1 column 7)"),
            ("", "Unexpected end of JSON input"),
            (" ", "Unexpected end of JSON input"),
            ("[1,2", "Expected ',' or ']' after array element in JSON at position 4 (line 1 column 5)"),
            ("{\"a\" 1}", "Expected ':' after property name in JSON at position 5 (line 1 column 6)"),
            ("{\"a\":1} x", "Unexpected non-whitespace character after JSON at position 8 (line 1 column 9)"),
            ("\"abc", "Unterminated string in JSON at position 4 (line 1 column 5)"),
            ("{\"a\":-}", "No number after minus sign in JSON at position 6 (line 1 column 7)"),
            ("{\"a\":1e}", "Exponent part is missing a number in JSON at position 7 (line 1 column 8)"),
            ("{\"a\":1.}", "Unterminated fractional number in JSON at position 7 (line 1 column 8)"),
            ("{\"a\":\"\\q\"}", "Bad escaped character in JSON at position 7 (line 1 column 8)"),
            ("nul", "Unexpected end of JSON input"),
            ("{\"a\":01}", "Unexpected number in JSON at position 6 (line 1 column 7)"),
            (&"x".repeat(68), "Unexpected token 'x', \"xxxxxxxxxx\"... is not valid JSON"),
            ("[,]", "Unexpected token ',', \"[,]\" is not valid JSON"),
            ("{\"a\":[}", "Unexpected token '}', \"{\"a\":[}\" is not valid JSON"),
            ("1 2", "Unexpected non-whitespace character after JSON at position 2 (line 1 column 3)"),
            ("é", "Unexpected token 'é', \"é\" is not valid JSON"),
        ];
        for (src, want) in cases {
            assert_eq!(parse_error(src).as_deref(), Some(want), "{src:?}");
        }
        assert_eq!(parse_error("{\"a\": [1, 2.5e-3, true, null, \"\\u00e9\"]}"), None);
    }
}
