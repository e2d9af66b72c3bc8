//! A small syntax highlighter for code blocks and file previews: comments,
//! strings, numbers, keywords, function names, types, operators and
//! punctuation of the common languages, line by line with block comments and
//! multi-line strings carried over. Deliberately simple (no grammar), so it
//! costs nothing to build and stays fast on long files.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::theme::{Theme, Token};

/// How a language writes comments, strings and keywords.
#[derive(Debug)]
pub struct Lang {
    /// Line comment starts.
    line_comments: &'static [&'static str],
    /// Block comment delimiters.
    block: Option<(&'static str, &'static str)>,
    /// String quotes (a quote may span lines when it is `"""`, `'''` or a backtick).
    quotes: &'static [&'static str],
    /// Keywords and literals.
    keywords: &'static [&'static str],
    /// Whether capitalised words are types.
    caps_are_types: bool,
}

const C_LIKE_QUOTES: &[&str] = &["\"", "'"];
const RUST: Lang = Lang {
    line_comments: &["//"],
    block: Some(("/*", "*/")),
    quotes: &["\""],
    keywords: &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
        "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self",
        "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "None",
        "Some", "Ok", "Err",
    ],
    caps_are_types: true,
};
const JS: Lang = Lang {
    line_comments: &["//"],
    block: Some(("/*", "*/")),
    quotes: &["\"", "'", "`"],
    keywords: &[
        "async",
        "await",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "from",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "interface",
        "let",
        "new",
        "null",
        "of",
        "return",
        "static",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "type",
        "typeof",
        "undefined",
        "var",
        "void",
        "while",
        "yield",
        "enum",
        "implements",
        "private",
        "public",
        "readonly",
    ],
    caps_are_types: true,
};
const PYTHON: Lang = Lang {
    line_comments: &["#"],
    block: None,
    quotes: &["\"\"\"", "'''", "\"", "'"],
    keywords: &[
        "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except",
        "False", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "None", "nonlocal", "not",
        "or", "pass", "raise", "return", "True", "try", "while", "with", "yield", "self",
    ],
    caps_are_types: true,
};
const GO: Lang = Lang {
    line_comments: &["//"],
    block: Some(("/*", "*/")),
    quotes: &["\"", "'", "`"],
    keywords: &[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "fallthrough",
        "for",
        "func",
        "go",
        "goto",
        "if",
        "import",
        "interface",
        "map",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "type",
        "var",
        "nil",
        "true",
        "false",
    ],
    caps_are_types: false,
};
const C: Lang = Lang {
    line_comments: &["//"],
    block: Some(("/*", "*/")),
    quotes: C_LIKE_QUOTES,
    keywords: &[
        "auto",
        "bool",
        "break",
        "case",
        "char",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "false",
        "float",
        "for",
        "if",
        "include",
        "define",
        "inline",
        "int",
        "long",
        "namespace",
        "new",
        "nullptr",
        "private",
        "protected",
        "public",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "template",
        "this",
        "true",
        "typedef",
        "union",
        "unsigned",
        "using",
        "virtual",
        "void",
        "volatile",
        "while",
        "import",
        "package",
        "extends",
        "implements",
        "final",
        "throws",
        "try",
        "catch",
        "throw",
        "null",
        "var",
        "val",
        "fun",
        "override",
    ],
    caps_are_types: true,
};
const SHELL: Lang = Lang {
    line_comments: &["#"],
    block: None,
    quotes: C_LIKE_QUOTES,
    keywords: &[
        "if", "then", "else", "elif", "fi", "for", "in", "do", "done", "while", "until", "case", "esac", "function",
        "return", "local", "export", "echo", "exit", "set", "cd", "source", "true", "false",
    ],
    caps_are_types: false,
};
const DATA: Lang = Lang {
    line_comments: &["#"],
    block: None,
    quotes: C_LIKE_QUOTES,
    keywords: &["true", "false", "null", "yes", "no", "on", "off"],
    caps_are_types: false,
};
const JSON: Lang = Lang {
    line_comments: &[],
    block: None,
    quotes: &["\""],
    keywords: &["true", "false", "null"],
    caps_are_types: false,
};
const RUBY: Lang = Lang {
    line_comments: &["#"],
    block: None,
    quotes: C_LIKE_QUOTES,
    keywords: &[
        "def", "end", "class", "module", "if", "elsif", "else", "unless", "while", "until", "for", "in", "do",
        "return", "yield", "begin", "rescue", "ensure", "nil", "true", "false", "self", "require", "then", "case",
        "when",
    ],
    caps_are_types: true,
};
const SQL: Lang = Lang {
    line_comments: &["--"],
    block: Some(("/*", "*/")),
    quotes: C_LIKE_QUOTES,
    keywords: &[
        "select", "from", "where", "insert", "into", "values", "update", "set", "delete", "create", "table", "drop",
        "alter", "join", "left", "right", "inner", "outer", "on", "group", "by", "order", "limit", "and", "or", "not",
        "null", "as", "primary", "key", "SELECT", "FROM", "WHERE", "INSERT", "INTO", "VALUES", "UPDATE", "SET",
        "DELETE", "CREATE", "TABLE", "JOIN", "ON", "GROUP", "BY", "ORDER", "LIMIT", "AND", "OR", "NOT", "NULL", "AS",
    ],
    caps_are_types: false,
};
const LUA: Lang = Lang {
    line_comments: &["--"],
    block: None,
    quotes: C_LIKE_QUOTES,
    keywords: &[
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in", "local", "nil", "not",
        "or", "repeat", "return", "then", "true", "until", "while",
    ],
    caps_are_types: false,
};
const MARKUP: Lang = Lang {
    line_comments: &[],
    block: Some(("<!--", "-->")),
    quotes: C_LIKE_QUOTES,
    keywords: &[],
    caps_are_types: false,
};
const CSS: Lang =
    Lang { line_comments: &[], block: Some(("/*", "*/")), quotes: C_LIKE_QUOTES, keywords: &[], caps_are_types: false };

/// The language of a code fence's info string (`rust`, `ts`, `py`, …).
pub fn language(name: &str) -> Option<&'static Lang> {
    let n = name.trim().split([' ', ',', '{']).next().unwrap_or("").to_lowercase();
    Some(match n.as_str() {
        "rust" | "rs" => &RUST,
        "js" | "javascript" | "jsx" | "ts" | "typescript" | "tsx" | "mjs" | "cjs" | "mts" => &JS,
        "python" | "py" => &PYTHON,
        "go" | "golang" => &GO,
        "c" | "h" | "cpp" | "c++" | "cc" | "hpp" | "java" | "kotlin" | "kt" | "swift" | "cs" | "csharp" | "scala"
        | "dart" | "zig" => &C,
        "sh" | "bash" | "zsh" | "shell" | "console" | "fish" => &SHELL,
        "yaml" | "yml" | "toml" | "ini" | "conf" | "dockerfile" | "makefile" | "make" => &DATA,
        "json" | "jsonc" | "jsonl" => &JSON,
        "ruby" | "rb" => &RUBY,
        "sql" => &SQL,
        "lua" => &LUA,
        "html" | "xml" | "svg" | "vue" => &MARKUP,
        "css" | "scss" | "less" => &CSS,
        _ => return None,
    })
}

/// The language of a file, from its name.
pub fn language_for_path(path: &str) -> Option<&'static Lang> {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name {
        "Dockerfile" | "Makefile" => return language("make"),
        _ => {}
    }
    language(name.rsplit_once('.')?.1)
}

/// What a line ends inside of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    Code,
    Block,
    Str(usize),
}

/// Highlight `code` (one [`Line`] per source line).
pub fn highlight(code: &str, lang: &Lang, theme: &Theme) -> Vec<Line<'static>> {
    let mut state = State::Code;
    code.split('\n').map(|l| highlight_line(l, lang, theme, &mut state)).collect()
}

fn push(spans: &mut Vec<Span<'static>>, text: &str, style: Style) {
    if !text.is_empty() {
        spans.push(Span::styled(text.to_string(), style));
    }
}

fn highlight_line(line: &str, lang: &Lang, theme: &Theme, state: &mut State) -> Line<'static> {
    let mut spans = Vec::new();
    let mut i = 0;
    let text = theme.style(Token::Text);
    while i < line.len() {
        let rest = &line[i..];
        match *state {
            State::Block => {
                let close = lang.block.map_or("", |b| b.1);
                let found = rest.find(close);
                let end = found.map_or(rest.len(), |p| p + close.len());
                push(&mut spans, &rest[..end], theme.style(Token::SyntaxComment));
                if found.is_some() {
                    *state = State::Code;
                }
                i += end;
                continue;
            }
            State::Str(q) => {
                let quote = lang.quotes[q];
                let found = find_close(rest, quote);
                let end = found.map_or(rest.len(), |p| p + quote.len());
                push(&mut spans, &rest[..end], theme.style(Token::SyntaxString));
                if found.is_some() {
                    *state = State::Code;
                }
                i += end;
                continue;
            }
            State::Code => {}
        }
        if lang.line_comments.iter().any(|c| rest.starts_with(c)) {
            push(&mut spans, rest, theme.style(Token::SyntaxComment));
            break;
        }
        if let Some((open, _)) = lang.block.filter(|(o, _)| rest.starts_with(o)) {
            push(&mut spans, open, theme.style(Token::SyntaxComment));
            *state = State::Block;
            i += open.len();
            continue;
        }
        if let Some(q) = lang.quotes.iter().position(|q| rest.starts_with(q)) {
            let quote = lang.quotes[q];
            push(&mut spans, quote, theme.style(Token::SyntaxString));
            i += quote.len();
            let multi = quote.len() == 3 || quote == "`";
            let after = &line[i..];
            match find_close(after, quote) {
                Some(p) => {
                    push(&mut spans, &after[..p + quote.len()], theme.style(Token::SyntaxString));
                    i += p + quote.len();
                }
                None => {
                    push(&mut spans, after, theme.style(Token::SyntaxString));
                    i = line.len();
                    if multi {
                        *state = State::Str(q);
                    }
                }
            }
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        if c.is_ascii_digit() {
            let end =
                rest.find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.' || ch == '_')).unwrap_or(rest.len());
            push(&mut spans, &rest[..end], theme.style(Token::SyntaxNumber));
            i += end;
        } else if c.is_alphabetic() || c == '_' || c == '$' || c == '@' {
            let end = rest
                .find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '$' || ch == '@'))
                .unwrap_or(rest.len());
            let word = &rest[..end];
            let next = rest[end..].trim_start().chars().next();
            let style = if lang.keywords.contains(&word) {
                theme.style(Token::SyntaxKeyword)
            } else if next == Some('(') {
                theme.style(Token::SyntaxFunction)
            } else if lang.caps_are_types && word.starts_with(|ch: char| ch.is_uppercase()) {
                theme.style(Token::SyntaxType)
            } else {
                text
            };
            push(&mut spans, word, style);
            i += end;
        } else {
            let style = if "+-*/%=<>!&|^~?:".contains(c) {
                theme.style(Token::SyntaxOperator)
            } else if "()[]{},;.".contains(c) {
                theme.style(Token::SyntaxPunctuation)
            } else {
                text
            };
            push(&mut spans, &rest[..c.len_utf8()], style);
            i += c.len_utf8();
        }
    }
    Line::from(spans)
}

/// Where `quote` closes in `s`, skipping backslash escapes.
fn find_close(s: &str, quote: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        if c == '\\' && quote != "`" {
            escaped = true;
            continue;
        }
        if s[i..].starts_with(quote) {
            return Some(i);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(code: &str, lang: &str) -> Vec<(String, Style)> {
        let theme = Theme::dark(true);
        highlight(code, language(lang).unwrap(), &theme)
            .into_iter()
            .flat_map(|l| l.spans.into_iter().map(|s| (s.content.to_string(), s.style)))
            .collect()
    }

    #[test]
    fn rust_tokens() {
        let t = Theme::dark(true);
        let k = kinds("fn main() { let s = \"hi // no\"; } // yes", "rust");
        let style_of = |w: &str| k.iter().find(|(s, _)| s == w).map(|(_, st)| *st);
        assert_eq!(style_of("fn"), Some(t.style(Token::SyntaxKeyword)));
        assert_eq!(style_of("main"), Some(t.style(Token::SyntaxFunction)));
        assert_eq!(style_of("hi // no\""), Some(t.style(Token::SyntaxString)));
        assert_eq!(style_of("// yes"), Some(t.style(Token::SyntaxComment)));
    }

    #[test]
    fn block_comments_and_triple_quotes_span_lines() {
        let t = Theme::dark(true);
        let k = kinds("a /* one\ntwo */ b", "c");
        assert!(k.iter().any(|(s, st)| s == "two */" && *st == t.style(Token::SyntaxComment)));
        let p = kinds("x = \"\"\"doc\nstill\"\"\" + 1", "py");
        assert!(p.iter().any(|(s, st)| s == "still\"\"\"" && *st == t.style(Token::SyntaxString)));
        assert!(p.iter().any(|(s, st)| s == "1" && *st == t.style(Token::SyntaxNumber)));
    }

    #[test]
    fn languages_by_name_and_path() {
        assert!(language("TypeScript").is_some());
        assert!(language_for_path("src/main.rs").is_some());
        assert!(language_for_path("Makefile").is_some());
        assert!(language_for_path("notes.txt").is_none());
    }
}
