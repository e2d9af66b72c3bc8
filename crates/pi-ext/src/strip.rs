//! TypeScript to JavaScript: types, interfaces and type-only imports are
//! removed; enums, namespaces and parameter properties are lowered (oxc).
//! Nothing else is transformed: the engine runs modern JavaScript.

use std::path::{Path, PathBuf};

use oxc::allocator::Allocator;
use oxc::codegen::Codegen;
use oxc::diagnostics::OxcDiagnostic;
use oxc::parser::Parser;
use oxc::semantic::SemanticBuilder;
use oxc::span::SourceType;
use oxc::transformer::{TransformOptions, Transformer};

use crate::text;

/// TypeScript that did not parse (or transform): the parser's message and
/// where. Its `Display` reads `ParseError: <message>\n <path>:<line>:<column>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", text::parse_error(.message, &.path.display().to_string(), *.place))]
pub(crate) struct StripError {
    /// What the parser said.
    pub message: String,
    /// The file.
    pub path: PathBuf,
    /// Its line and column (from 1), when the parser named a place.
    pub place: Option<(usize, usize)>,
}

/// Whether `path` names a TypeScript file.
pub(crate) fn is_typescript(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("ts" | "mts" | "cts" | "tsx"))
}

/// `source` as JavaScript. TypeScript is stripped; JavaScript is checked by
/// the engine itself.
pub(crate) fn to_javascript(path: &Path, source: &str) -> Result<String, StripError> {
    if !is_typescript(path) {
        return Ok(source.to_string());
    }
    let allocator = Allocator::default();
    let source_type = SourceType::from_path(path).unwrap_or_else(|_| SourceType::ts()).with_module(true);
    let parsed = Parser::new(&allocator, source, source_type).parse();
    if let Some(d) = parsed.diagnostics.first() {
        return Err(describe(path, source, d));
    }
    let mut program = parsed.program;
    // Enums are evaluated by the semantic pass; without it the transformer cannot lower them.
    let semantic = SemanticBuilder::new().with_enum_eval(true).build(&program);
    if let Some(d) = semantic.diagnostics.first() {
        return Err(describe(path, source, d));
    }
    let scoping = semantic.semantic.into_scoping();
    let options = TransformOptions::default();
    let transformed = Transformer::new(&allocator, path, &options).build_with_scoping(scoping, &mut program);
    if let Some(d) = transformed.diagnostics.first() {
        return Err(describe(path, source, d));
    }
    Ok(Codegen::new().build(&program).code)
}

fn describe(path: &Path, source: &str, d: &OxcDiagnostic) -> StripError {
    let place = d.labels.first().map(|l| {
        let offset = (l.offset() as usize).min(source.len());
        let before = &source[..floor_char_boundary(source, offset)];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map(|s| s.chars().count()).unwrap_or(0) + 1;
        (line, column)
    });
    StripError { message: d.message.to_string(), path: path.to_path_buf(), place }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_types_and_lowers_enums() {
        let src = r#"
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { isToolCallEventType, type ToolCallEvent } from "@earendil-works/pi-coding-agent";
interface Options { deny: string[] }
enum Level { Low = 1, High }
type Alias = string | number;
class Guard { constructor(private readonly limit: number) {} get(): number { return this.limit; } }
export default function (pi: ExtensionAPI): void {
  const opts: Options = { deny: ["rm"] };
  const level: Level = Level.High;
  pi.on("tool_call", (e: ToolCallEvent) => isToolCallEventType("bash", e) ? undefined : (e as any).x satisfies unknown);
  void opts; void level; void new Guard(3);
}
"#;
        let js = to_javascript(Path::new("/x/ext.ts"), src).unwrap();
        assert!(!js.contains("interface"), "{js}");
        assert!(!js.contains("ExtensionAPI"), "{js}");
        assert!(js.contains("isToolCallEventType"), "{js}");
        assert!(js.contains("Level[\"High\"]") || js.contains("Level.High"), "{js}");
        assert!(js.contains("this.limit = limit"), "{js}");
    }

    #[test]
    fn syntax_errors_name_the_place() {
        let err = to_javascript(Path::new("/x/bad.ts"), "export default function(pi: any) {\n  const x = ;\n}\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("ParseError: "), "{err}");
        assert!(err.ends_with(" /x/bad.ts:2:13"), "{err}");
    }

    #[test]
    fn javascript_passes_through() {
        assert_eq!(to_javascript(Path::new("a.mjs"), "export default 1;").unwrap(), "export default 1;");
    }
}
