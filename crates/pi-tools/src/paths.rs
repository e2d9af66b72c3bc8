//! How a path from the model becomes a file: `@` stripped, Unicode spaces made
//! plain, `~` expanded, `file://` URLs decoded, then resolved against the
//! session folder (lexically, like Node's `path.resolve`). `read` adds the
//! fallbacks for names that macOS and editors spell differently.

use std::path::{Component, Path, PathBuf};

use unicode_normalization::UnicodeNormalization;

use crate::NulInPath;
use crate::text::common as msg;

/// Unicode space characters that become an ASCII space in paths.
const UNICODE_SPACES: &[char] = &[
    '\u{00A0}', '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}',
    '\u{2008}', '\u{2009}', '\u{200A}', '\u{202F}', '\u{205F}', '\u{3000}',
];

/// The user's home folder (`HOME`), if known.
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}

/// What a `file://` path means, as Node's `fileURLToPath` reads it: the URL
/// parsed (dot segments resolved, query and fragment dropped), its host
/// empty or `localhost`, its path without `%2F`, then percent-decoded as
/// UTF-8. The error is the message the reference shows.
pub fn file_url_to_path(url: &str) -> Result<String, &'static str> {
    let parsed = url::Url::parse(url).map_err(|_| msg::INVALID_URL)?;
    if parsed.host_str().is_some_and(|h| !h.is_empty()) {
        return Err(msg::FILE_URL_HOST);
    }
    let path = parsed.path();
    if path.to_ascii_lowercase().contains("%2f") {
        return Err(msg::FILE_URL_ENCODED_SLASH);
    }
    let bytes = path.as_bytes();
    let escapes_whole = bytes.iter().enumerate().filter(|(_, b)| **b == b'%').all(|(i, _)| {
        bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit) && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
    });
    if !escapes_whole {
        return Err(msg::URI_MALFORMED);
    }
    let decoded: Vec<u8> = percent_encoding::percent_decode(bytes).collect();
    String::from_utf8(decoded).map_err(|_| msg::URI_MALFORMED)
}

/// Normalise a model-given path without resolving it: Unicode spaces
/// replaced, one leading `@` removed, `~`/`~/` expanded (`~foo` stays
/// literal), a `file://` URL turned into its path ([`file_url_to_path`]; its
/// error is the only one).
pub fn normalize(input: &str) -> Result<String, &'static str> {
    let s: String = input.chars().map(|c| if UNICODE_SPACES.contains(&c) { ' ' } else { c }).collect();
    let s = s.strip_prefix('@').map(str::to_string).unwrap_or(s);
    if s == "~" {
        if let Some(h) = home_dir() {
            return Ok(h.to_string_lossy().into_owned());
        }
    } else if let Some(rest) = s.strip_prefix("~/")
        && let Some(h) = home_dir()
    {
        return Ok(h.join(rest).to_string_lossy().into_owned());
    }
    if s.starts_with("file://") {
        return file_url_to_path(&s);
    }
    Ok(s)
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

/// A model-given path resolved against `cwd`; the error is a `file://` URL's
/// (see [`normalize`]).
pub fn resolve(cwd: &Path, input: &str) -> Result<PathBuf, &'static str> {
    Ok(resolve_lexical(cwd, Path::new(&normalize(input)?)))
}

fn am_pm_variant(s: &str) -> Option<String> {
    let re = regex::Regex::new(r"(?i) (AM|PM)\.").ok()?;
    re.is_match(s).then(|| re.replace_all(s, "\u{202F}$1.").into_owned())
}

/// The error Node gives for a path with a NUL byte (no file can have one).
pub fn check_no_nul(path: &Path) -> Result<(), NulInPath> {
    let shown = path.to_string_lossy();
    if shown.contains('\0') {
        return Err(NulInPath { path: shown.into_owned() });
    }
    Ok(())
}

/// Whether `p` exists, following symlinks (a broken link does not), as
/// `access(F_OK)` tells.
fn exists(p: &Path) -> bool {
    rustix::fs::access(p, rustix::fs::Access::EXISTS).is_ok()
}

/// `read`'s path: the resolved path if it exists, else the first existing of
/// the narrow-no-break-space AM/PM variant, the NFD form, the curly-apostrophe
/// form and NFD plus curly apostrophe; else the resolved path. Existing
/// follows symlinks: a broken link counts as missing.
pub fn resolve_read_path(cwd: &Path, input: &str) -> Result<PathBuf, &'static str> {
    let primary = resolve(cwd, input)?;
    if exists(&primary) {
        return Ok(primary);
    }
    let s = primary.to_string_lossy().into_owned();
    let nfd: String = s.nfd().collect();
    let curly = s.replace('\'', "\u{2019}");
    let nfd_curly = nfd.replace('\'', "\u{2019}");
    let candidates = [am_pm_variant(&s), Some(nfd), Some(curly), Some(nfd_curly)];
    candidates.into_iter().flatten().filter(|c| *c != s).map(PathBuf::from).find(|p| exists(p)).map_or(Ok(primary), Ok)
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
        assert_eq!(normalize("@src/a.rs").unwrap(), "src/a.rs");
        assert_eq!(normalize("a\u{00A0}b\u{3000}c").unwrap(), "a b c");
        assert_eq!(normalize("~").unwrap(), home.to_string_lossy());
        assert_eq!(normalize("~/x").unwrap(), home.join("x").to_string_lossy());
        assert_eq!(normalize("~foo").unwrap(), "~foo");
        assert_eq!(normalize("file:///tmp/a%20b").unwrap(), "/tmp/a b");
    }

    #[test]
    fn resolution_is_lexical() {
        let cwd = Path::new("/work/p");
        assert_eq!(resolve(cwd, "a/../b/./c").unwrap(), PathBuf::from("/work/p/b/c"));
        assert_eq!(resolve(cwd, "/etc/x").unwrap(), PathBuf::from("/etc/x"));
        assert_eq!(resolve(cwd, "../../../..").unwrap(), PathBuf::from("/"));
        assert_eq!(resolve(cwd, "~foo").unwrap(), PathBuf::from("/work/p/~foo"));
        assert_eq!(resolve(cwd, ".").unwrap(), PathBuf::from("/work/p"));
    }

    #[test]
    fn read_fallbacks() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("Screenshot 2024 at 10.00.00\u{202F}PM.png"), b"x").unwrap();
        std::fs::write(d.join("cafe\u{301}.txt"), b"x").unwrap();
        std::fs::write(d.join("it\u{2019}s.txt"), b"x").unwrap();
        std::fs::write(d.join("e\u{301}t\u{2019}e.txt"), b"x").unwrap();
        assert!(resolve_read_path(d, "Screenshot 2024 at 10.00.00 PM.png").unwrap().exists());
        assert!(resolve_read_path(d, "café.txt").unwrap().exists());
        assert!(resolve_read_path(d, "it's.txt").unwrap().exists());
        assert!(resolve_read_path(d, "ét'e.txt").unwrap().exists());
        assert_eq!(resolve_read_path(d, "missing.txt").unwrap(), d.join("missing.txt"));
    }

    #[test]
    fn read_fallbacks_follow_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::os::unix::fs::symlink(d.join("nowhere"), d.join("it's.txt")).unwrap();
        std::fs::write(d.join("it\u{2019}s.txt"), b"x").unwrap();
        assert_eq!(resolve_read_path(d, "it's.txt").unwrap(), d.join("it\u{2019}s.txt"), "a broken link is missing");
        std::os::unix::fs::symlink(d.join("nowhere"), d.join("x\u{2019}s.txt")).unwrap();
        assert_eq!(resolve_read_path(d, "x's.txt").unwrap(), d.join("x's.txt"));
    }

    #[test]
    fn file_urls_as_node_reads_them() {
        assert_eq!(normalize("file:///tmp/a%20b").unwrap(), "/tmp/a b");
        assert_eq!(normalize("file://localhost/x").unwrap(), "/x");
        assert_eq!(normalize("file:///a/../b c").unwrap(), "/b c");
        assert_eq!(normalize("file:///dev/null?q#f").unwrap(), "/dev/null");
        assert_eq!(normalize("file:///a\\b").unwrap(), "/a/b");
        assert_eq!(normalize("file:///caf%C3%A9").unwrap(), "/café");
        assert_eq!(normalize("file://f.txt"), Err(msg::FILE_URL_HOST));
        assert_eq!(normalize("file://localhostX/a"), Err(msg::FILE_URL_HOST));
        assert_eq!(normalize("file:///no%2Fpe"), Err(msg::FILE_URL_ENCODED_SLASH));
        assert_eq!(normalize("file:///no%2fpe"), Err(msg::FILE_URL_ENCODED_SLASH));
        assert_eq!(normalize("file:///%"), Err(msg::URI_MALFORMED));
        assert_eq!(normalize("file:///%zz"), Err(msg::URI_MALFORMED));
        assert_eq!(normalize("file:///a%ff"), Err(msg::URI_MALFORMED));
        assert_eq!(normalize("file://[x"), Err(msg::INVALID_URL));
        assert_eq!(normalize("@file:///x").unwrap(), "/x");
        assert_eq!(normalize("file:/x").unwrap(), "file:/x", "only file:// is a URL");
    }
}
