//! How a path from the model becomes a file: `@` stripped, Unicode spaces made
//! plain, `~` expanded, `file://` URLs decoded, then resolved against the
//! session folder (lexically, like Node's `path.resolve`). `read` adds the
//! fallbacks for names that macOS and editors spell differently.

use std::path::{Component, Path, PathBuf};

use unicode_normalization::UnicodeNormalization;

/// Unicode space characters that become an ASCII space in paths.
const UNICODE_SPACES: &[char] = &[
    '\u{00A0}', '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}',
    '\u{2008}', '\u{2009}', '\u{200A}', '\u{202F}', '\u{205F}', '\u{3000}',
];

/// The user's home folder (`HOME`), if known.
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = ((bytes[i + 1] as char).to_digit(16), (bytes[i + 2] as char).to_digit(16))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Normalise a model-given path without resolving it: one leading `@` removed,
/// Unicode spaces replaced, `~`/`~/` expanded (`~foo` stays literal), a
/// `file://` URL turned into its path.
pub fn normalize(input: &str) -> String {
    let s = input.strip_prefix('@').unwrap_or(input);
    let s: String = s.chars().map(|c| if UNICODE_SPACES.contains(&c) { ' ' } else { c }).collect();
    if let Some(rest) = s.strip_prefix("file://") {
        let path = rest.strip_prefix("localhost").unwrap_or(rest);
        return percent_decode(path);
    }
    if s == "~" {
        if let Some(h) = home_dir() {
            return h.to_string_lossy().into_owned();
        }
    } else if let Some(rest) = s.strip_prefix("~/")
        && let Some(h) = home_dir()
    {
        return h.join(rest).to_string_lossy().into_owned();
    }
    s
}

/// Join and normalise lexically: `.` dropped, `..` pops, no symlinks followed.
pub fn resolve_lexical(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() { path.to_path_buf() } else { base.join(path) };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                if out.parent().is_some() {
                    out.pop();
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() { PathBuf::from("/") } else { out }
}

/// A model-given path resolved against `cwd`.
pub fn resolve(cwd: &Path, input: &str) -> PathBuf {
    resolve_lexical(cwd, Path::new(&normalize(input)))
}

fn am_pm_variant(s: &str) -> Option<String> {
    let re = regex::Regex::new(r"(?i) (AM|PM)\.").ok()?;
    re.is_match(s).then(|| re.replace_all(s, "\u{202F}$1.").into_owned())
}

/// `read`'s path: the resolved path if it exists, else the first existing of
/// the narrow-no-break-space AM/PM variant, the NFD form, the curly-apostrophe
/// form and NFD plus curly apostrophe; else the resolved path.
pub fn resolve_read_path(cwd: &Path, input: &str) -> PathBuf {
    let primary = resolve(cwd, input);
    if primary.symlink_metadata().is_ok() {
        return primary;
    }
    let s = primary.to_string_lossy().into_owned();
    let nfd: String = s.nfd().collect();
    let curly = s.replace('\'', "\u{2019}");
    let nfd_curly = nfd.replace('\'', "\u{2019}");
    let candidates = [am_pm_variant(&s), Some(nfd), Some(curly), Some(nfd_curly)];
    candidates
        .into_iter()
        .flatten()
        .filter(|c| *c != s)
        .map(PathBuf::from)
        .find(|p| p.symlink_metadata().is_ok())
        .unwrap_or(primary)
}

/// A path for display: relative to `base` with `/` separators when inside it.
pub fn display_relative(base: &Path, path: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation() {
        let home = home_dir().unwrap_or_else(|| PathBuf::from("/root"));
        assert_eq!(normalize("@src/a.rs"), "src/a.rs");
        assert_eq!(normalize("a\u{00A0}b\u{3000}c"), "a b c");
        assert_eq!(normalize("~"), home.to_string_lossy());
        assert_eq!(normalize("~/x"), home.join("x").to_string_lossy());
        assert_eq!(normalize("~foo"), "~foo");
        assert_eq!(normalize("file:///tmp/a%20b"), "/tmp/a b");
    }

    #[test]
    fn resolution_is_lexical() {
        let cwd = Path::new("/work/p");
        assert_eq!(resolve(cwd, "a/../b/./c"), PathBuf::from("/work/p/b/c"));
        assert_eq!(resolve(cwd, "/etc/x"), PathBuf::from("/etc/x"));
        assert_eq!(resolve(cwd, "../../../.."), PathBuf::from("/"));
        assert_eq!(resolve(cwd, "~foo"), PathBuf::from("/work/p/~foo"));
        assert_eq!(resolve(cwd, "."), PathBuf::from("/work/p"));
    }

    #[test]
    fn read_fallbacks() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("Screenshot 2024 at 10.00.00\u{202F}PM.png"), b"x").unwrap();
        std::fs::write(d.join("cafe\u{301}.txt"), b"x").unwrap();
        std::fs::write(d.join("it\u{2019}s.txt"), b"x").unwrap();
        std::fs::write(d.join("e\u{301}t\u{2019}e.txt"), b"x").unwrap();
        assert!(resolve_read_path(d, "Screenshot 2024 at 10.00.00 PM.png").exists());
        assert!(resolve_read_path(d, "café.txt").exists());
        assert!(resolve_read_path(d, "it's.txt").exists());
        assert!(resolve_read_path(d, "ét'e.txt").exists());
        assert_eq!(resolve_read_path(d, "missing.txt"), d.join("missing.txt"));
    }
}
