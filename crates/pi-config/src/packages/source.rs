//! A package source as `pi install` and the `packages` setting write it:
//! `npm:<name>[@<version>]`, `git:<host>/<path>[@<ref>]` (or an
//! `https://`/`http://`/`ssh://`/`git://` URL, or `git@host:path`), or a
//! local path. The reference's rules: anything not starting with `npm:`,
//! `git:`, `github:`, `http:`, `https:`, `ssh:` or `builtin:` is a path; a
//! `git:` source that does not parse as a repository is a path too.

use std::path::{Component, Path, PathBuf};

/// What a source names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackageSource {
    /// An npm package.
    Npm {
        /// What follows `npm:` (handed to `npm install`).
        spec: String,
        /// The package name (`@scope/name` or `name`).
        name: String,
        /// What follows the name's `@`, when given.
        version: Option<String>,
    },
    /// A git repository.
    Git {
        /// The URL `git clone` gets.
        repo: String,
        /// The host (`github.com`).
        host: String,
        /// The repository path below the host, without `.git` (`user/repo`).
        path: String,
        /// The ref (branch, tag or commit), when given.
        git_ref: Option<String>,
    },
    /// A file or folder on this machine, as written.
    Local {
        /// The path as written.
        path: String,
    },
}

const NOT_LOCAL_PREFIXES: [&str; 7] = ["npm:", "git:", "github:", "http:", "https:", "ssh:", "builtin:"];

impl PackageSource {
    /// Parse a source as the reference does (never fails: what is not npm
    /// or git is a local path).
    pub fn parse(source: &str) -> PackageSource {
        if let Some(spec) = source.strip_prefix("npm:") {
            let spec = spec.trim().to_string();
            let (name, version) = split_npm_spec(&spec);
            return PackageSource::Npm { spec, name, version };
        }
        let trimmed = source.trim();
        if !NOT_LOCAL_PREFIXES.iter().any(|p| trimmed.starts_with(p)) {
            return PackageSource::Local { path: source.to_string() };
        }
        parse_git(trimmed).unwrap_or_else(|| PackageSource::Local { path: source.to_string() })
    }

    /// Whether updates leave it alone: an npm version that is an exact
    /// version number, or a git ref.
    pub fn pinned(&self) -> bool {
        match self {
            PackageSource::Npm { version, .. } => version.as_deref().is_some_and(is_exact_version),
            PackageSource::Git { git_ref, .. } => git_ref.is_some(),
            PackageSource::Local { .. } => false,
        }
    }
}

/// `x.y.z` with an optional pre-release or build suffix (and a leading `v`
/// or `=`), as `semver.valid` accepts it.
fn is_exact_version(v: &str) -> bool {
    let v = v.trim().trim_start_matches(['v', '=']);
    let core = v.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3 && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// `name@version` → (`name`, `version`); a scope's leading `@` is part of the name.
fn split_npm_spec(spec: &str) -> (String, Option<String>) {
    let search_from = usize::from(spec.starts_with('@'));
    match spec[search_from..].find('@') {
        Some(i) if i > 0 => {
            let at = search_from + i;
            let version = &spec[at + 1..];
            (spec[..at].to_string(), (!version.is_empty()).then(|| version.to_string()))
        }
        _ => (spec.to_string(), None),
    }
}

/// `repo@ref` → (`repo`, `ref`) for the three spellings of a repository.
fn split_ref(url: &str) -> (String, Option<String>) {
    let split = |path: &str| -> Option<(String, String)> {
        let at = path.find('@')?;
        let (repo, r) = (&path[..at], &path[at + 1..]);
        (!repo.is_empty() && !r.is_empty()).then(|| (repo.to_string(), r.to_string()))
    };
    if let Some(rest) = url.strip_prefix("git@")
        && let Some((host, path)) = rest.split_once(':')
    {
        return match split(path) {
            Some((p, r)) => (format!("git@{host}:{p}"), Some(r)),
            None => (url.to_string(), None),
        };
    }
    if let Some((scheme, rest)) = url.split_once("://") {
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        return match split(path) {
            Some((p, r)) => (format!("{scheme}://{authority}/{p}"), Some(r)),
            None => (url.to_string(), None),
        };
    }
    match url.split_once('/') {
        Some((host, path)) => match split(path) {
            Some((p, r)) => (format!("{host}/{p}"), Some(r)),
            None => (url.to_string(), None),
        },
        None => (url.to_string(), None),
    }
}

/// A host or path part that could leave the install folder.
fn unsafe_part(value: &str, allow_slash: bool) -> bool {
    value.contains('\0')
        || value.contains('\\')
        || value.starts_with('/')
        || (!allow_slash && value.contains('/'))
        || value.split('/').any(|s| s == ".." || s == "." || s.is_empty())
        || value.contains('%')
}

fn parse_git(trimmed: &str) -> Option<PackageSource> {
    let has_prefix = trimmed.starts_with("git:");
    let url = trimmed.strip_prefix("git:").map_or(trimmed, str::trim);
    let lower = url.to_ascii_lowercase();
    let schemes = ["https://", "http://", "ssh://", "git://"];
    if !has_prefix && !schemes.iter().any(|s| lower.starts_with(s)) {
        return None;
    }
    let (without_ref, git_ref) = split_ref(url);
    let (repo, host, path) = if let Some(rest) = without_ref.strip_prefix("git@") {
        let (host, path) = rest.split_once(':')?;
        (without_ref.clone(), host.to_string(), path.to_string())
    } else if let Some((_, rest)) =
        schemes.iter().find_map(|s| lower.starts_with(s).then(|| without_ref.split_at(s.len())))
    {
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let host = authority.rsplit('@').next().unwrap_or(authority);
        let host = host.split(':').next().unwrap_or(host).to_ascii_lowercase();
        (without_ref.clone(), host, path.to_string())
    } else {
        let (host, path) = without_ref.split_once('/')?;
        if !host.contains('.') && host != "localhost" {
            return None;
        }
        (format!("https://{without_ref}"), host.to_string(), path.to_string())
    };
    let path = path.trim_start_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path).trim_end_matches('/').to_string();
    if host.is_empty() || path.split('/').count() < 2 || unsafe_part(&host, false) || unsafe_part(&path, true) {
        return None;
    }
    Some(PackageSource::Git { repo, host, path, git_ref })
}

/// `path` made absolute against `base` (a leading `~` expanded, the text
/// trimmed) and normalised without touching the file system, as Node's
/// `path.resolve` does.
pub fn resolve_path(path: &str, base: &Path) -> PathBuf {
    let expanded = crate::expand_tilde(path.trim());
    let joined = if expanded.is_absolute() { expanded } else { base.join(expanded) };
    normalize(&joined)
}

/// Remove `.` and `..` components lexically.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() { PathBuf::from("/") } else { out }
}

/// The path from `from` to `to` (both absolute and normalised), with `/`,
/// as Node's `path.relative`; empty when they are the same.
pub fn relative(from: &Path, to: &Path) -> String {
    let a: Vec<Component<'_>> = from.components().collect();
    let b: Vec<Component<'_>> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = a[common..].iter().map(|_| "..".to_string()).collect();
    parts.extend(b[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(repo: &str, host: &str, path: &str, r: Option<&str>) -> PackageSource {
        PackageSource::Git { repo: repo.into(), host: host.into(), path: path.into(), git_ref: r.map(String::from) }
    }

    #[test]
    fn parses_sources_as_the_reference() {
        assert_eq!(
            PackageSource::parse("npm:@scope/pkg@1.2.3"),
            PackageSource::Npm {
                spec: "@scope/pkg@1.2.3".into(),
                name: "@scope/pkg".into(),
                version: Some("1.2.3".into())
            }
        );
        assert_eq!(
            PackageSource::parse("npm:pkg-a@file:/tmp/x.tgz"),
            PackageSource::Npm {
                spec: "pkg-a@file:/tmp/x.tgz".into(),
                name: "pkg-a".into(),
                version: Some("file:/tmp/x.tgz".into())
            }
        );
        assert!(PackageSource::parse("npm:pkg@1.2.3").pinned());
        assert!(!PackageSource::parse("npm:pkg@^1.2.3").pinned());
        assert!(!PackageSource::parse("npm:pkg").pinned());
        assert_eq!(
            PackageSource::parse("git:github.com/user/repo@v1"),
            git("https://github.com/user/repo", "github.com", "user/repo", Some("v1"))
        );
        assert_eq!(
            PackageSource::parse("https://github.com/user/repo.git"),
            git("https://github.com/user/repo.git", "github.com", "user/repo", None)
        );
        assert_eq!(
            PackageSource::parse("git:git@github.com:user/repo@main"),
            git("git@github.com:user/repo", "github.com", "user/repo", Some("main"))
        );
        assert_eq!(
            PackageSource::parse("ssh://git@example.com/a/b"),
            git("ssh://git@example.com/a/b", "example.com", "a/b", None)
        );
        for local in
            ["./x", "../pkg", "/abs/p", "file:///tmp/r.git", "git:file:///tmp/r.git", "git:nohost/x", "git:a.b/../x"]
        {
            assert!(matches!(PackageSource::parse(local), PackageSource::Local { .. }), "{local}");
        }
    }

    #[test]
    fn paths_resolve_and_relate_as_node() {
        assert_eq!(resolve_path(" ../p/./q ", Path::new("/a/b")), PathBuf::from("/a/p/q"));
        assert_eq!(resolve_path("/x/../y", Path::new("/a")), PathBuf::from("/y"));
        assert_eq!(relative(Path::new("/h/.pi/agent"), Path::new("/h/pkg")), "../../pkg");
        assert_eq!(relative(Path::new("/a"), Path::new("/a")), "");
        assert_eq!(relative(Path::new("/a"), Path::new("/a/b/c")), "b/c");
    }
}
