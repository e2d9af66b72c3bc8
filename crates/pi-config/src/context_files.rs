//! Context files (`AGENTS.md`, `CLAUDE.md`, …) that go into the system prompt.
//!
//! Per folder the first existing *file* among [`CONTEXT_FILE_NAMES`] is used.
//! The agent dir's comes first, then every ancestor from the file-system root
//! down to the working folder. A path is used once; a BOM is stripped.
//! They load whatever the trust decision (requirement P2).

use std::path::{Path, PathBuf};

/// The names looked for in each folder, in order of preference.
pub const CONTEXT_FILE_NAMES: [&str; 5] = ["AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];

/// One loaded context file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    /// Where it was found.
    pub path: PathBuf,
    /// Its text (BOM stripped).
    pub content: String,
}

fn first_in(dir: &Path) -> Option<PathBuf> {
    CONTEXT_FILE_NAMES.iter().map(|n| dir.join(n)).find(|p| p.is_file())
}

/// Load the context files for `cwd`; unreadable ones are reported in the
/// second list as `(path, error)` and skipped.
pub fn load_context_files(agent_dir: &Path, cwd: &Path) -> (Vec<ContextFile>, Vec<(PathBuf, String)>) {
    let mut dirs = vec![agent_dir.to_path_buf()];
    let mut ancestors: Vec<&Path> = cwd.ancestors().collect();
    ancestors.reverse();
    dirs.extend(ancestors.into_iter().map(Path::to_path_buf));
    let mut files = Vec::new();
    let mut warnings = Vec::new();
    for dir in dirs {
        let Some(path) = first_in(&dir) else { continue };
        if files.iter().any(|f: &ContextFile| f.path == path) {
            continue;
        }
        // A regular file within the size limit only (a FIFO cannot hang start-up).
        match crate::files::read_config_text(&path) {
            Ok(Some(content)) => files.push(ContextFile { path, content }),
            Ok(None) => {}
            Err(e) => warnings.push((path, e.to_string())),
        }
    }
    (files, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_preference_and_dedup() {
        let root = tempfile::tempdir().unwrap();
        let agent = root.path().join("agent");
        let proj = root.path().join("p");
        let sub = proj.join("sub");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(agent.join("AGENTS.md"), "global").unwrap();
        std::fs::write(proj.join("AGENTS.md"), "\u{feff}project").unwrap();
        std::fs::write(proj.join("AGENTS.override.md"), "override").unwrap();
        std::fs::write(sub.join("CLAUDE.md"), "sub").unwrap();
        std::fs::create_dir(sub.join("AGENTS.md")).unwrap(); // a folder is not a candidate
        let (files, warnings) = load_context_files(&agent, &sub);
        let texts: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(texts, ["global", "override", "sub"]);
        assert!(warnings.is_empty());
    }
}
