//! Where Bedrock's credentials and region come from, in the order the AWS
//! tools look: a bearer token (`AWS_BEARER_TOKEN_BEDROCK`), the keys in the
//! environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//! `AWS_SESSION_TOKEN`), then the static keys or `credential_process` of the
//! profile `AWS_PROFILE` names (else `default`) in `~/.aws/credentials` and
//! `~/.aws/config`, then an ECS/EKS container's credentials endpoint.

use std::path::{Path, PathBuf};

use super::error::{CredentialsError, FileProblem};
use crate::limits::MAX_AWS_FILE_BYTES;

/// The region used when nothing names one.
pub(crate) const DEFAULT_REGION: &str = "us-east-1";

/// AWS access keys.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Keys {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys").field("access_key_id", &self.access_key_id).finish_non_exhaustive()
    }
}

/// How a request proves who sends it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Auth {
    /// `Authorization: Bearer <token>` (a Bedrock API key), no signing.
    Bearer(String),
    /// SigV4 signing with these keys.
    Keys(Keys),
    /// SigV4 signing with the keys this `credential_process` command prints.
    Process(String),
    /// SigV4 signing with the keys of an ECS task or EKS pod.
    Container(super::container::Endpoint),
}

/// The process environment and home folder, as the chain reads them
/// (replaceable in tests).
pub(crate) struct AwsEnv<'a> {
    /// An environment variable's value (empty counts as unset).
    pub var: &'a dyn Fn(&str) -> Option<String>,
    /// The home folder, for `~/.aws`.
    pub home: Option<PathBuf>,
}

impl AwsEnv<'_> {
    fn get(&self, name: &str) -> Option<String> {
        (self.var)(name).filter(|v| !v.is_empty())
    }

    fn aws_file(&self, var: &str, name: &str) -> Option<PathBuf> {
        self.get(var).map(PathBuf::from).or_else(|| self.home.as_ref().map(|h| h.join(".aws").join(name)))
    }
}

/// The real environment.
pub(crate) fn process_env() -> AwsEnv<'static> {
    static VAR: fn(&str) -> Option<String> = |name| std::env::var(name).ok();
    AwsEnv { var: &VAR, home: std::env::var_os("HOME").map(PathBuf::from) }
}

/// Whether the environment offers AWS credentials of some kind (the
/// variables of the chain, or the container and web-identity variables,
/// which are reported as unsupported when a request needs them).
pub(crate) fn available(env: &AwsEnv<'_>) -> bool {
    let has = |n: &str| env.get(n).is_some();
    has("AWS_BEARER_TOKEN_BEDROCK")
        || (has("AWS_ACCESS_KEY_ID") && has("AWS_SECRET_ACCESS_KEY"))
        || has("AWS_PROFILE")
        || has("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")
        || has("AWS_CONTAINER_CREDENTIALS_FULL_URI")
        || has("AWS_WEB_IDENTITY_TOKEN_FILE")
}

/// The credentials of a request: the given API key as a bearer token, else
/// the chain. The error says what was looked for.
pub(crate) fn resolve(api_key: Option<&str>, env: &AwsEnv<'_>) -> Result<Auth, CredentialsError> {
    if let Some(k) = api_key.filter(|k| !k.is_empty()) {
        return Ok(Auth::Bearer(k.to_string()));
    }
    if let Some(t) = env.get("AWS_BEARER_TOKEN_BEDROCK") {
        return Ok(Auth::Bearer(t));
    }
    if let (Some(id), Some(secret)) = (env.get("AWS_ACCESS_KEY_ID"), env.get("AWS_SECRET_ACCESS_KEY")) {
        return Ok(Auth::Keys(Keys {
            access_key_id: id,
            secret_access_key: secret,
            session_token: env.get("AWS_SESSION_TOKEN"),
        }));
    }
    let named = env.get("AWS_PROFILE");
    let profile = named.clone().unwrap_or_else(|| "default".to_string());
    if let Some(auth) = profile_keys(env, &profile)? {
        return Ok(auth);
    }
    if named.is_some() {
        return Err(CredentialsError::ProfileWithoutKeys(profile));
    }
    if let Some(endpoint) = super::container::endpoint(&|n| env.get(n))? {
        return Ok(Auth::Container(endpoint));
    }
    match env.get("AWS_WEB_IDENTITY_TOKEN_FILE") {
        Some(_) => Err(CredentialsError::UnsupportedSource("AWS_WEB_IDENTITY_TOKEN_FILE")),
        None => Err(CredentialsError::NotFound),
    }
}

/// The region: `AWS_REGION`, `AWS_DEFAULT_REGION`, the `region` of the
/// profile `AWS_PROFILE` names (in `~/.aws/config`), else [`DEFAULT_REGION`].
pub(crate) fn region(env: &AwsEnv<'_>) -> String {
    if let Some(r) = env.get("AWS_REGION").or_else(|| env.get("AWS_DEFAULT_REGION")) {
        return r;
    }
    let from_profile = env.get("AWS_PROFILE").and_then(|p| {
        let config = read_ini(&env.aws_file("AWS_CONFIG_FILE", "config")?).ok()?;
        config_section(&config, &p).and_then(|s| value(s, "region"))
    });
    from_profile.unwrap_or_else(|| DEFAULT_REGION.to_string())
}

/// The keys of `profile`: its static keys or `credential_process`, from its
/// section in the credentials file, else in the config file (`[profile
/// NAME]`, or `[default]`).
fn profile_keys(env: &AwsEnv<'_>, profile: &str) -> Result<Option<Auth>, CredentialsError> {
    let mut sections = Vec::new();
    if let Some(path) = env.aws_file("AWS_SHARED_CREDENTIALS_FILE", "credentials") {
        let ini = read_ini(&path)?;
        sections.extend(ini.into_iter().filter(|(name, _)| name == profile));
    }
    if let Some(path) = env.aws_file("AWS_CONFIG_FILE", "config") {
        let ini = read_ini(&path)?;
        if let Some(s) = config_section(&ini, profile) {
            sections.push((profile.to_string(), s.clone()));
        }
    }
    let keys = |s: &[(String, String)]| {
        Some(Auth::Keys(Keys {
            access_key_id: value(s, "aws_access_key_id")?,
            secret_access_key: value(s, "aws_secret_access_key")?,
            session_token: value(s, "aws_session_token"),
        }))
    };
    let process = |s: &[(String, String)]| value(s, "credential_process").map(Auth::Process);
    Ok(sections.iter().find_map(|(_, s)| keys(s)).or_else(|| sections.iter().find_map(|(_, s)| process(s))))
}

/// A section of an INI file: its name and its `key = value` pairs.
type Section = (String, Vec<(String, String)>);

fn config_section<'a>(ini: &'a [Section], profile: &str) -> Option<&'a Vec<(String, String)>> {
    let wanted = format!("profile {profile}");
    ini.iter().find(|(n, _)| *n == wanted || (profile == "default" && n == "default")).map(|(_, s)| s)
}

fn value(section: &[(String, String)], key: &str) -> Option<String> {
    section.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.clone()).filter(|v| !v.is_empty())
}

/// Read an AWS INI file; a missing file is empty, an unreadable or
/// oversized one an error naming it.
fn read_ini(path: &Path) -> Result<Vec<Section>, CredentialsError> {
    use std::io::Read;
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(unreadable(path, FileProblem::Io(e))),
    };
    let mut bytes = Vec::new();
    file.take(MAX_AWS_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(path, FileProblem::Io(e)))?;
    if bytes.len() > MAX_AWS_FILE_BYTES {
        return Err(unreadable(path, FileProblem::TooLarge(MAX_AWS_FILE_BYTES)));
    }
    Ok(parse_ini(&String::from_utf8_lossy(&bytes)))
}

fn unreadable(path: &Path, why: FileProblem) -> CredentialsError {
    CredentialsError::File { path: path.to_path_buf(), why }
}

/// `[section]` headers and `key = value` lines; comments (`#`, `;`) and
/// anything else are skipped.
fn parse_ini(text: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            out.push((name.split_whitespace().collect::<Vec<_>>().join(" "), Vec::new()));
        } else if let (Some((k, v)), Some((_, section))) = (line.split_once('='), out.last_mut()) {
            section.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::bedrock as words;
    use std::collections::HashMap;

    fn env_of<'a>(vars: &'a HashMap<&'a str, &'a str>, home: Option<&Path>) -> AwsEnv<'a> {
        let f: &'a dyn Fn(&str) -> Option<String> =
            Box::leak(Box::new(move |n: &str| vars.get(n).map(|v| v.to_string())));
        AwsEnv { var: f, home: home.map(Path::to_path_buf) }
    }

    /// The chain's answer, an error as the text the agent sees.
    fn resolve(api_key: Option<&str>, env: &AwsEnv<'_>) -> Result<Auth, String> {
        super::resolve(api_key, env).map_err(|e| e.to_string())
    }

    fn keys(id: &str, secret: &str, token: Option<&str>) -> Auth {
        Auth::Keys(Keys {
            access_key_id: id.into(),
            secret_access_key: secret.into(),
            session_token: token.map(String::from),
        })
    }

    #[test]
    fn the_chain_in_order() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".aws")).unwrap();
        std::fs::write(
            home.path().join(".aws/credentials"),
            "# keys\n[default]\naws_access_key_id = AKIDDEF\naws_secret_access_key = s1\n[work]\nAWS_ACCESS_KEY_ID=AKIDWORK\naws_secret_access_key=s2\naws_session_token = t2\n",
        )
        .unwrap();
        std::fs::write(
            home.path().join(".aws/config"),
            "[default]\nregion = eu-north-1\n[profile  cfg]\nregion = sa-east-1\naws_access_key_id = AKIDCFG\naws_secret_access_key = s3\n[profile bare]\nregion = ap-south-1\n[profile proc]\ncredential_process = aws-vault exec x --json\n",
        )
        .unwrap();
        let h = Some(home.path());
        let all = HashMap::from([
            ("AWS_BEARER_TOKEN_BEDROCK", "tok"),
            ("AWS_ACCESS_KEY_ID", "AKIDENV"),
            ("AWS_SECRET_ACCESS_KEY", "senv"),
            ("AWS_SESSION_TOKEN", "tenv"),
        ]);
        assert_eq!(resolve(Some("key"), &env_of(&all, h)), Ok(Auth::Bearer("key".into())));
        assert_eq!(resolve(None, &env_of(&all, h)), Ok(Auth::Bearer("tok".into())));
        let env_keys = HashMap::from([
            ("AWS_ACCESS_KEY_ID", "AKIDENV"),
            ("AWS_SECRET_ACCESS_KEY", "senv"),
            ("AWS_PROFILE", "work"),
        ]);
        assert_eq!(resolve(None, &env_of(&env_keys, h)), Ok(keys("AKIDENV", "senv", None)));
        let work = HashMap::from([("AWS_PROFILE", "work")]);
        assert_eq!(resolve(None, &env_of(&work, h)), Ok(keys("AKIDWORK", "s2", Some("t2"))));
        let cfg = HashMap::from([("AWS_PROFILE", "cfg")]);
        assert_eq!(resolve(None, &env_of(&cfg, h)), Ok(keys("AKIDCFG", "s3", None)));
        assert_eq!(region(&env_of(&cfg, h)), "sa-east-1");
        let none = HashMap::new();
        assert_eq!(resolve(None, &env_of(&none, h)), Ok(keys("AKIDDEF", "s1", None)));
        assert_eq!(
            region(&env_of(&none, h)),
            DEFAULT_REGION,
            "the default profile's region is read only when AWS_PROFILE names it"
        );
        let proc = HashMap::from([("AWS_PROFILE", "proc")]);
        assert_eq!(resolve(None, &env_of(&proc, h)), Ok(Auth::Process("aws-vault exec x --json".into())));
        let bare = HashMap::from([("AWS_PROFILE", "bare")]);
        assert_eq!(resolve(None, &env_of(&bare, h)), Err(words::profile_without_keys("bare")));
        let regions = HashMap::from([("AWS_DEFAULT_REGION", "ca-central-1"), ("AWS_PROFILE", "cfg")]);
        assert_eq!(region(&env_of(&regions, h)), "ca-central-1");
    }

    #[test]
    fn nothing_found_says_what_to_set() {
        let home = tempfile::tempdir().unwrap();
        let none = HashMap::new();
        assert_eq!(resolve(None, &env_of(&none, Some(home.path()))), Err(words::NO_CREDENTIALS.to_string()));
        assert!(!available(&env_of(&none, Some(home.path()))));
        let web = HashMap::from([("AWS_WEB_IDENTITY_TOKEN_FILE", "/x")]);
        assert_eq!(
            resolve(None, &env_of(&web, Some(home.path()))),
            Err(words::unsupported_source("AWS_WEB_IDENTITY_TOKEN_FILE"))
        );
        assert!(available(&env_of(&web, None)));
    }

    #[test]
    fn bad_files_are_reported() {
        let home = tempfile::tempdir().unwrap();
        let aws = home.path().join(".aws");
        std::fs::create_dir_all(aws.join("credentials")).unwrap();
        let none = HashMap::new();
        let err = resolve(None, &env_of(&none, Some(home.path()))).unwrap_err();
        assert!(err.contains("credentials"), "{err}");
        std::fs::remove_dir(aws.join("credentials")).unwrap();
        std::fs::write(aws.join("credentials"), vec![b'#'; MAX_AWS_FILE_BYTES + 1]).unwrap();
        let err = resolve(None, &env_of(&none, Some(home.path()))).unwrap_err();
        assert!(err.contains("larger than"), "{err}");
        // Binary junk is no keys, never a panic.
        std::fs::write(aws.join("credentials"), [0xff, b'[', b'=', b'\n', b']', b'=']).unwrap();
        assert_eq!(resolve(None, &env_of(&none, Some(home.path()))), Err(words::NO_CREDENTIALS.to_string()));
    }
}
