//! Prompt templates: Markdown files whose name (without `.md`) is a `/`
//! command. The description is the frontmatter's `description`, else the
//! first non-empty line (cut at 60 characters with `...`); `argument-hint`
//! is shown in completion.

use std::path::{Path, PathBuf};

use super::walk::markdown_files;
use super::{ResourceDiagnostic, frontmatter, read_resource};

/// How much of the first line a template without a description shows.
pub const TEMPLATE_DESCRIPTION_CHARS: usize = 60;

/// A loaded prompt template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptTemplate {
    /// The command name (the file name without `.md`).
    pub name: String,
    /// What completion shows.
    pub description: String,
    /// `argument-hint`.
    pub argument_hint: Option<String>,
    /// The text arguments are substituted into.
    pub content: String,
    /// The file.
    pub file_path: PathBuf,
    /// Where it came from.
    pub source: super::SourceInfo,
}

/// Templates and what was wrong on the way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadedTemplates {
    /// The templates, in load order (the first of a name is used).
    pub templates: Vec<PromptTemplate>,
    /// Problems, each with its file.
    pub diagnostics: Vec<ResourceDiagnostic>,
}

fn first_line_description(body: &str) -> String {
    let Some(line) = body.split('\n').find(|l| !l.trim().is_empty()) else { return String::new() };
    // Counted in UTF-16 units, as the reference's `slice` does.
    let units: Vec<u16> = line.encode_utf16().collect();
    if units.len() <= TEMPLATE_DESCRIPTION_CHARS {
        return line.to_string();
    }
    format!("{}...", String::from_utf16_lossy(&units[..TEMPLATE_DESCRIPTION_CHARS]))
}

/// Load one template file.
pub fn load_template_file(path: &Path) -> (Option<PromptTemplate>, Vec<ResourceDiagnostic>) {
    let content = match read_resource(path) {
        Ok(c) => c,
        Err(e) => return (None, vec![ResourceDiagnostic::warning(e.to_string(), path)]),
    };
    let fm = match frontmatter::parse(&content) {
        Ok(f) => f,
        Err(e) => return (None, vec![ResourceDiagnostic::warning(e.to_string(), path)]),
    };
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let name = file_name.strip_suffix(".md").unwrap_or(&file_name).to_string();
    let description = match fm.str("description").filter(|d| !d.is_empty()) {
        Some(d) => d.to_string(),
        None => first_line_description(&fm.body),
    };
    let template = PromptTemplate {
        name,
        description,
        argument_hint: fm.str("argument-hint").filter(|h| !h.is_empty()).map(str::to_string),
        content: fm.body,
        file_path: path.to_path_buf(),
        source: super::SourceInfo::new("local", "temporary", path.parent().unwrap_or(Path::new("/"))),
    };
    (Some(template), Vec::new())
}

/// Load the templates of `paths` in order: a folder gives its direct `.md`
/// files, a `.md` file itself; a path that does not exist is skipped
/// silently (as the reference does).
pub fn load_templates(paths: &[PathBuf]) -> LoadedTemplates {
    let mut out = LoadedTemplates::default();
    for path in paths {
        let files = match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => markdown_files(path),
            Ok(m) if m.is_file() && path.extension().is_some_and(|e| e == "md") => vec![path.clone()],
            _ => continue,
        };
        for file in files {
            let (template, diags) = load_template_file(&file);
            out.diagnostics.extend(diags);
            out.templates.extend(template);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn description_from_frontmatter_or_first_line() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::fs::write(d.join("rev.md"), "---\ndescription: Review\nargument-hint: \"[focus]\"\n---\nReview $1")
            .unwrap();
        std::fs::write(d.join("long.md"), format!("\n\n{}\nmore", "x".repeat(70))).unwrap();
        std::fs::write(d.join("bad.md"), "---\na: [\n---\nx").unwrap();
        std::fs::write(d.join("skip.txt"), "no").unwrap();
        let loaded = load_templates(&[d.to_path_buf(), d.join("missing")]);
        let names: Vec<&str> = loaded.templates.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["long", "rev"]);
        assert_eq!(loaded.templates[0].description, format!("{}...", "x".repeat(60)));
        assert_eq!(loaded.templates[1].description, "Review");
        assert_eq!(loaded.templates[1].argument_hint.as_deref(), Some("[focus]"));
        assert_eq!(loaded.templates[1].content, "Review $1");
        assert_eq!(loaded.diagnostics.len(), 1);
        assert!(loaded.diagnostics[0].path.ends_with("bad.md"));
    }
}
