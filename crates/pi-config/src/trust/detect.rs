//! Does a folder hold anything that needs a trust decision (requirement P1,
//! reference §1 item 3)?

use std::path::{Path, PathBuf};

use super::store::canonical_dir;

/// The entries of `<cwd>/.pi` whose mere existence (file or folder, even
/// empty) asks for a trust decision.
pub const TRUST_REQUIRING_PI_ENTRIES: [&str; 8] =
    ["settings.json", "mcp.json", "extensions", "skills", "prompts", "themes", "SYSTEM.md", "APPEND_SYSTEM.md"];

/// Every trust-requiring resource for `cwd`, in a stable order: the `.pi`
/// entries of [`TRUST_REQUIRING_PI_ENTRIES`] that exist, then each
/// `.agents/skills` in `cwd` or an ancestor (nearest first), except exactly
/// `<home>/.agents/skills`. `cwd` and `home` are canonicalised first. A bare
/// `.pi/` folder is not a trigger, and neither is `<home>/.pi/agent`.
pub fn trust_requiring_resources(cwd: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let cwd = canonical_dir(cwd);
    let user_skills = home.map(|h| canonical_dir(h).join(".agents").join("skills"));
    let pi_dir = cwd.join(".pi");
    let mut found: Vec<PathBuf> =
        TRUST_REQUIRING_PI_ENTRIES.iter().map(|e| pi_dir.join(e)).filter(|p| std::fs::metadata(p).is_ok()).collect();
    for dir in cwd.ancestors() {
        let skills = dir.join(".agents").join("skills");
        if Some(&skills) != user_skills.as_ref() && std::fs::metadata(&skills).is_ok() {
            found.push(skills);
        }
    }
    found
}

/// Whether `cwd` has any trust-requiring resource (see
/// [`trust_requiring_resources`]).
pub fn has_trust_requiring_resources(cwd: &Path, home: Option<&Path>) -> bool {
    !trust_requiring_resources(cwd, home).is_empty()
}

/// `$HOME` as a path, when set and not empty.
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}
