//! Credentials out of a sandboxed command's environment: variables whose
//! names look like secrets are removed, as Codex's default shell environment
//! policy does (`*KEY*`, `*SECRET*`, `*TOKEN*`), plus passwords, cloud
//! credentials and agent sockets. `environment.keep` brings a default match
//! back; `environment.remove` adds patterns and always wins.

use std::ffi::{OsStr, OsString};

/// Names (glob patterns, `*` for any run of characters, compared ignoring
/// ASCII case) removed from every sandboxed command's environment.
pub const DEFAULT_SECRET_PATTERNS: &[&str] = &[
    "*KEY*",
    "*SECRET*",
    "*TOKEN*",
    "*PASSWORD*",
    "*PASSWD*",
    "*PASSPHRASE*",
    "*CREDENTIAL*",
    "*_PAT",
    "AWS_*",
    "AZURE_*",
    "DATABASE_URL",
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
];

/// Whether `name` matches the glob `pattern` (`*` only), ignoring ASCII case.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.as_bytes(), name.as_bytes());
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ni));
            pi += 1;
        } else if pi < p.len() && p[pi].eq_ignore_ascii_case(&n[ni]) {
            pi += 1;
            ni += 1;
        } else if let Some((sp, sn)) = star {
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == b'*')
}

fn any_match(patterns: &[String], name: &str) -> bool {
    patterns.iter().any(|p| glob_match(p, name))
}

/// Whether a variable named `name` is removed: it matches a `remove`
/// pattern, or a default pattern and no `keep` pattern. A name that is not
/// UTF-8 is compared in its lossy form.
pub fn is_removed(name: &OsStr, keep: &[String], remove: &[String]) -> bool {
    let name = name.to_string_lossy();
    if any_match(remove, &name) {
        return true;
    }
    DEFAULT_SECRET_PATTERNS.iter().any(|p| glob_match(p, &name)) && !any_match(keep, &name)
}

/// `env` without the variables [`is_removed`] names.
pub fn scrub(env: Vec<(OsString, OsString)>, keep: &[String], remove: &[String]) -> Vec<(OsString, OsString)> {
    env.into_iter().filter(|(k, _)| !is_removed(k, keep, remove)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("*_API_KEY", "OPENAI_API_KEY"));
        assert!(glob_match("*key*", "OPENAI_API_KEY"));
        assert!(glob_match("AWS_*", "aws_profile"));
        assert!(glob_match("*", ""));
        assert!(glob_match("a*b*c", "aXXbYYc"));
        assert!(!glob_match("a*b*c", "aXXbYY"));
        assert!(!glob_match("PATH", "PATHS"));
        assert!(glob_match("*_PAT", "GITLAB_PAT"));
        assert!(!glob_match("*_PAT", "GITLAB_PATH"));
    }

    #[test]
    fn secrets_go_ordinary_variables_stay() {
        let none: Vec<String> = vec![];
        for name in [
            "OPENAI_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "GITHUB_TOKEN",
            "GH_TOKEN",
            "AWS_ACCESS_KEY_ID",
            "AWS_PROFILE",
            "AZURE_CLIENT_SECRET",
            "MY_APP_SECRET_VALUE",
            "PGPASSWORD",
            "DATABASE_URL",
            "SSH_AUTH_SOCK",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "GITLAB_PAT",
            "CARGO_REGISTRIES_X_TOKEN",
            "npm_config__authToken",
        ] {
            assert!(is_removed(OsStr::new(name), &none, &none), "{name}");
        }
        for name in ["PATH", "HOME", "LANG", "TERM", "CARGO_HOME", "GIT_AUTHOR_NAME", "PI_SESSION_ID", "TMPDIR"] {
            assert!(!is_removed(OsStr::new(name), &none, &none), "{name}");
        }
    }

    #[test]
    fn keep_brings_back_and_remove_wins() {
        let keep = vec!["GITHUB_TOKEN".to_string()];
        let remove = vec!["INTERNAL_*".to_string(), "GITHUB_*".to_string()];
        assert!(!is_removed(OsStr::new("GITHUB_TOKEN"), &keep, &[]));
        assert!(is_removed(OsStr::new("GITHUB_TOKEN"), &keep, &remove));
        assert!(is_removed(OsStr::new("INTERNAL_URL"), &[], &remove));
        let env = vec![("A".into(), "1".into()), ("X_API_KEY".into(), "s".into())];
        assert_eq!(scrub(env, &[], &[]), vec![(OsString::from("A"), OsString::from("1"))]);
    }
}
