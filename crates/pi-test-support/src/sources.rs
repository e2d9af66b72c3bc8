//! The workspace's non-test source, for the code-rule tests (statics,
//! string errors): every `.rs` file under a crate's `src/` but `*tests.rs`,
//! each read up to its first `#[cfg(test)]`.

use std::path::Path;

/// Folders that hold no crate source (a crate's own tests, benches,
/// examples, build output, snapshots).
const SKIPPED: &[&str] = &["tests", "benches", "examples", "target", "snapshots"];

/// `(path under crates_dir, code before its first #[cfg(test)])` of every
/// non-test source file, in no particular order. Unreadable entries are
/// left out.
pub fn non_test_sources(crates_dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![crates_dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !SKIPPED.contains(&name.as_str()) {
                    stack.push(path);
                }
                continue;
            }
            if !name.ends_with(".rs") || name.ends_with("tests.rs") {
                continue;
            }
            let Ok(rel) = path.strip_prefix(crates_dir) else { continue };
            let rel = rel.to_string_lossy().replace('\\', "/");
            if !rel.contains("/src/") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let code = text.split("#[cfg(test)]").next().unwrap_or_default().to_string();
            out.push((rel, code));
        }
    }
    out
}
