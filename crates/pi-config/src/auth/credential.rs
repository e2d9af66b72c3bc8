//! The credentials of `auth.json`, typed, with unknown fields kept.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::AuthError;
use super::error::EntryError;

/// The `type` of an API-key entry.
const TYPE_API_KEY: &str = "api_key";
/// The `type` of an OAuth entry.
const TYPE_OAUTH: &str = "oauth";

/// A stored API key.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ApiKeyCredential {
    /// The key as stored: literal, `$NAME`/`${NAME}`, or `!command` (empty:
    /// none stored, as for a keyless llama.cpp router).
    pub key: String,
    /// Provider settings that win over the process environment (`env`).
    pub env: BTreeMap<String, String>,
    /// Any other fields, kept as they are.
    pub extra: Map<String, Value>,
}

/// A stored OAuth login.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OAuthCredential {
    /// The access token (sent to the provider).
    pub access: String,
    /// The refresh token (exchanged for a new access token).
    pub refresh: String,
    /// When the access token expires, in milliseconds since the Unix epoch.
    pub expires: i64,
    /// Any other fields (`accountId`, …), kept as they are.
    pub extra: Map<String, Value>,
}

impl OAuthCredential {
    /// A string field among the others (`accountId`, …).
    pub fn field(&self, name: &str) -> Option<&str> {
        self.extra.get(name).and_then(Value::as_str)
    }
}

/// One provider's stored credential.
#[derive(Debug, Clone, PartialEq)]
pub enum Credential {
    /// `{"type": "api_key", …}`.
    ApiKey(ApiKeyCredential),
    /// `{"type": "oauth", …}`.
    OAuth(OAuthCredential),
}

impl Credential {
    /// `api_key` or `oauth`, as the file and `pi auth check --json` say.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::ApiKey(_) => TYPE_API_KEY,
            Self::OAuth(_) => TYPE_OAUTH,
        }
    }

    /// The entry as written to the file (`type` first).
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("type".into(), self.kind().into());
        match self {
            Self::ApiKey(k) => {
                if !k.key.is_empty() {
                    out.insert("key".into(), k.key.clone().into());
                }
                if !k.env.is_empty() {
                    let env = k.env.iter().map(|(n, v)| (n.clone(), Value::from(v.clone()))).collect();
                    out.insert("env".into(), Value::Object(env));
                }
                out.extend(k.extra.iter().map(|(n, v)| (n.clone(), v.clone())));
            }
            Self::OAuth(o) => {
                out.insert("access".into(), o.access.clone().into());
                out.insert("refresh".into(), o.refresh.clone().into());
                out.insert("expires".into(), o.expires.into());
                out.extend(o.extra.iter().map(|(n, v)| (n.clone(), v.clone())));
            }
        }
        Value::Object(out)
    }

    /// Read one entry; `Ok(None)` for a `type` this version does not know.
    fn from_json(entry: &Value) -> Result<Option<Self>, EntryError> {
        let Some(obj) = entry.as_object() else { return Err(EntryError::NotObject) };
        let text = |name: &'static str| -> Result<String, EntryError> {
            match obj.get(name) {
                Some(Value::String(s)) => Ok(s.clone()),
                Some(_) => Err(EntryError::NotString(name.to_string())),
                None => Err(EntryError::Missing(name)),
            }
        };
        let rest = |known: &[&str]| -> Map<String, Value> {
            obj.iter().filter(|(k, _)| !known.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect()
        };
        match obj.get("type").and_then(Value::as_str) {
            Some(TYPE_API_KEY) => {
                let env = match obj.get("env") {
                    None | Some(Value::Null) => BTreeMap::new(),
                    Some(Value::Object(m)) => m
                        .iter()
                        .map(|(k, v)| match v {
                            Value::String(s) => Ok((k.clone(), s.clone())),
                            _ => Err(EntryError::NotString(format!("env.{k}"))),
                        })
                        .collect::<Result<_, _>>()?,
                    Some(_) => return Err(EntryError::EnvNotObject),
                };
                Ok(Some(Self::ApiKey(ApiKeyCredential {
                    // A provider configured by `env` alone (llama.cpp) stores no key.
                    key: if obj.contains_key("key") { text("key")? } else { String::new() },
                    env,
                    extra: rest(&["type", "key", "env"]),
                })))
            }
            Some(TYPE_OAUTH) => {
                let expires = match obj.get("expires") {
                    Some(Value::Number(n)) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)).unwrap_or(0),
                    Some(_) => return Err(EntryError::ExpiresNotNumber),
                    None => return Err(EntryError::Missing("expires")),
                };
                Ok(Some(Self::OAuth(OAuthCredential {
                    access: text("access")?,
                    refresh: text("refresh")?,
                    expires,
                    extra: rest(&["type", "access", "refresh", "expires"]),
                })))
            }
            Some(_) => Ok(None),
            None => Err(EntryError::NoType),
        }
    }
}

/// The whole file: provider ID → entry, in the file's order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuthFile {
    path: PathBuf,
    entries: Map<String, Value>,
}

impl AuthFile {
    /// An empty file at `path`.
    pub fn empty(path: &Path) -> Self {
        Self { path: path.to_path_buf(), entries: Map::new() }
    }

    /// Parse the text of `path` (empty or blank text is an empty file).
    pub fn parse(path: &Path, text: &str) -> Result<Self, AuthError> {
        let invalid = |message: String| AuthError::Invalid { path: path.to_path_buf(), message };
        if text.trim().is_empty() {
            return Ok(Self::empty(path));
        }
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(entries)) => Ok(Self { path: path.to_path_buf(), entries }),
            Ok(_) => Err(invalid("expected a JSON object keyed by provider".into())),
            Err(e) => Err(invalid(format!("not valid JSON ({e})"))),
        }
    }

    /// The providers with an entry, in the file's order.
    pub fn providers(&self) -> Vec<&str> {
        self.entries.keys().map(String::as_str).collect()
    }

    /// The credential stored for `provider`; an entry of the wrong shape is
    /// an error naming the provider, an entry of an unknown type is `None`.
    pub fn get(&self, provider: &str) -> Result<Option<Credential>, AuthError> {
        let Some(entry) = self.entries.get(provider) else { return Ok(None) };
        Credential::from_json(entry).map_err(|why| AuthError::Invalid {
            path: self.path.clone(),
            message: format!("the entry for \"{provider}\": {why}"),
        })
    }

    /// Store `credential` for `provider` (replacing any entry, in its place).
    pub fn set(&mut self, provider: &str, credential: &Credential) {
        self.entries.insert(provider.to_string(), credential.to_json());
    }

    /// Remove `provider`'s entry; whether there was one.
    pub fn remove(&mut self, provider: &str) -> bool {
        self.entries.shift_remove(provider).is_some()
    }

    /// The file's text as written (two-space indentation, as the reference writes it).
    pub fn to_text(&self) -> String {
        serde_json::to_string_pretty(&self.entries).unwrap_or_else(|_| "{}".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<AuthFile, AuthError> {
        AuthFile::parse(Path::new("/x/auth.json"), text)
    }

    #[test]
    fn reads_both_kinds_and_keeps_other_fields() {
        let f = parse(
            r#"{"anthropic":{"type":"oauth","access":"a","refresh":"r","expires":17,"accountId":"acc","x":[1]},
                "openai":{"type":"api_key","key":"!pass show k","env":{"A":"b"}},
                "future":{"type":"passkey"}}"#,
        )
        .unwrap();
        assert_eq!(f.providers(), ["anthropic", "openai", "future"]);
        let Some(Credential::OAuth(o)) = f.get("anthropic").unwrap() else { panic!() };
        assert_eq!(
            (o.access.as_str(), o.refresh.as_str(), o.expires, o.field("accountId")),
            ("a", "r", 17, Some("acc"))
        );
        assert_eq!(Credential::OAuth(o.clone()).to_json()["x"], serde_json::json!([1]));
        let Some(Credential::ApiKey(k)) = f.get("openai").unwrap() else { panic!() };
        assert_eq!((k.key.as_str(), k.env.get("A").map(String::as_str)), ("!pass show k", Some("b")));
        assert_eq!(f.get("future").unwrap(), None);
        assert_eq!(f.get("nobody").unwrap(), None);
    }

    #[test]
    fn bad_text_and_bad_entries_are_named() {
        let e = parse("{not json").unwrap_err().to_string();
        assert!(e.starts_with("Invalid /x/auth.json: not valid JSON"), "{e}");
        assert!(e.ends_with("it was left unchanged."), "{e}");
        assert!(parse("[1]").unwrap_err().to_string().contains("expected a JSON object"));
        assert!(parse("  \n").unwrap().providers().is_empty());
        let f =
            parse(r#"{"a":{"type":"oauth","access":"x","refresh":"y"},"b":{"type":"api_key","key":3},"c":5}"#).unwrap();
        assert!(f.get("a").unwrap_err().to_string().contains("the entry for \"a\": \"expires\" is missing"));
        assert!(f.get("b").unwrap_err().to_string().contains("\"key\" must be a string"));
        assert!(f.get("c").unwrap_err().to_string().contains("expected an object"));
    }

    #[test]
    fn set_and_remove_keep_the_order() {
        let mut f = parse(r#"{"a":{"type":"api_key","key":"1"},"b":{"type":"api_key","key":"2"}}"#).unwrap();
        f.set("a", &Credential::ApiKey(ApiKeyCredential { key: "3".into(), ..Default::default() }));
        f.set("c", &Credential::OAuth(OAuthCredential { access: "x".into(), ..Default::default() }));
        assert_eq!(f.providers(), ["a", "b", "c"]);
        assert!(f.remove("b"));
        assert!(!f.remove("b"));
        assert_eq!(
            f.to_text(),
            "{\n  \"a\": {\n    \"type\": \"api_key\",\n    \"key\": \"3\"\n  },\n  \"c\": {\n    \"type\": \"oauth\",\n    \"access\": \"x\",\n    \"refresh\": \"\",\n    \"expires\": 0\n  }\n}"
        );
    }

    #[test]
    fn an_api_key_entry_may_hold_env_alone() {
        let text = r#"{"llama.cpp":{"type":"api_key","env":{"LLAMA_BASE_URL":"http://h:1"}}}"#;
        let f = parse(text).unwrap();
        let Some(Credential::ApiKey(k)) = f.get("llama.cpp").unwrap() else { panic!("not a key entry") };
        assert_eq!((k.key.as_str(), k.env.get("LLAMA_BASE_URL").map(String::as_str)), ("", Some("http://h:1")));
        assert!(!f.to_text().contains("\"key\""));
    }
}
