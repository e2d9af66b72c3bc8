//! The `packages` list of a settings file, changed as the reference changes
//! it: a local source is written relative to the settings file's folder; an
//! entry for the same package is updated in place (an object entry keeps its
//! lists); removing drops every entry of the package. The rest of the file
//! is kept (the settings writer changes one key under the file's lock).

use std::path::Path;

use pi_config::packages::{self, PackageEntry, PackageSource};
use pi_config::settings::Scope;
use pi_config::{Settings, SettingsError};
use serde_json::Value;

use super::error::PackageError;

fn current(settings: &Settings, scope: Scope) -> Vec<Value> {
    settings.layer(scope).get("packages").and_then(Value::as_array).cloned().unwrap_or_default()
}

fn source_of(v: &Value) -> Option<&str> {
    v.as_str().or_else(|| v.get("source").and_then(Value::as_str))
}

/// How `source` (typed in `cwd`) is written in the settings of `scope`.
fn normalized(source: &str, base: &Path, cwd: &Path) -> String {
    match PackageSource::parse(source) {
        PackageSource::Local { path } => {
            let rel = packages::relative(base, &packages::resolve_path(&path, cwd));
            if rel.is_empty() { ".".to_string() } else { rel }
        }
        _ => source.to_string(),
    }
}

fn same_package(existing: &Value, source: &str, base: &Path, cwd: &Path) -> bool {
    source_of(existing).is_some_and(|s| packages::identity(s, base) == packages::identity(source, cwd))
}

fn write(settings: &mut Settings, scope: Scope, list: Vec<Value>) -> Result<(), SettingsError> {
    let value = Some(Value::Array(list));
    match scope {
        Scope::User => settings.write_user(&["packages"], value),
        Scope::Project => settings.write_project(&["packages"], value),
    }
}

/// Add `source` to the `packages` of `scope` (or update its entry).
pub(crate) fn add(settings: &mut Settings, source: &str, scope: Scope, cwd: &Path) -> Result<(), SettingsError> {
    let base = packages::base_dir(scope, settings.agent_dir(), cwd);
    let mut list = current(settings, scope);
    let written = normalized(source, &base, cwd);
    match list.iter().position(|e| same_package(e, source, &base, cwd)) {
        Some(i) if source_of(&list[i]) == Some(written.as_str()) => return Ok(()),
        Some(i) => match &mut list[i] {
            Value::Object(o) => {
                o.insert("source".into(), Value::String(written));
            }
            other => *other = Value::String(written),
        },
        None => list.push(Value::String(written)),
    }
    write(settings, scope, list)
}

/// Drop `source`'s entries from the `packages` of `scope`; whether any was there.
pub(crate) fn remove(settings: &mut Settings, source: &str, scope: Scope, cwd: &Path) -> Result<bool, SettingsError> {
    let base = packages::base_dir(scope, settings.agent_dir(), cwd);
    let list = current(settings, scope);
    let kept: Vec<Value> = list.iter().filter(|e| !same_package(e, source, &base, cwd)).cloned().collect();
    if kept.len() == list.len() {
        return Ok(false);
    }
    write(settings, scope, kept)?;
    Ok(true)
}

/// `No matching package found for <source>`, with the configured source it
/// probably means (an npm name without `npm:`, a git `host/path` without `git:`).
pub(crate) fn no_match(source: &str, configured: &[PackageEntry]) -> PackageError {
    let typed = source.trim();
    let suggestion = configured.iter().find_map(|e| match PackageSource::parse(&e.source) {
        PackageSource::Npm { name, spec, .. } if typed == name || typed == spec => Some(e.source.clone()),
        PackageSource::Git { host, path, git_ref, .. } => {
            let short = format!("{host}/{path}");
            let with_ref = git_ref.map(|r| format!("{short}@{r}"));
            (typed == short || with_ref.as_deref() == Some(typed)).then(|| e.source.clone())
        }
        _ => None,
    });
    PackageError::NoMatch { package: source.to_string(), suggestion }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_local_sources_relative_and_keeps_the_rest() {
        let t = tempfile::tempdir().unwrap();
        let (agent, cwd) = (t.path().join("h/.pi/agent"), t.path().join("proj"));
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::write(
            agent.join("settings.json"),
            r#"{"theme": "dark", "packages": [{"source": "../../../pkg", "skills": []}]}"#,
        )
        .unwrap();
        let (mut s, _) = Settings::load(&agent, &cwd, false);
        add(&mut s, "npm:x@1", Scope::User, &cwd).unwrap();
        add(&mut s, "../pkg/", Scope::User, &cwd).unwrap();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(agent.join("settings.json")).unwrap()).unwrap();
        assert_eq!(doc["theme"], "dark");
        assert_eq!(doc["packages"], serde_json::json!([{"source": "../../../pkg", "skills": []}, "npm:x@1"]));
        add(&mut s, "npm:x@2", Scope::User, &cwd).unwrap();
        assert!(remove(&mut s, &t.path().join("pkg").display().to_string(), Scope::User, &cwd).unwrap());
        assert!(!remove(&mut s, "npm:y", Scope::User, &cwd).unwrap());
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(agent.join("settings.json")).unwrap()).unwrap();
        assert_eq!(doc["packages"], serde_json::json!(["npm:x@2"]));
        let entries = packages::entries(&s, Scope::User);
        assert_eq!(no_match("x", &entries).to_string(), "No matching package found for x. Did you mean npm:x@2?");
        assert_eq!(no_match("z", &entries).to_string(), "No matching package found for z");
    }
}
