//! The trust stage: decide whether the project's resources load (P5 order:
//! `--approve`/`--no-approve`, the `project_trust` handlers of extensions
//! loaded so far, the saved decision, `defaultProjectTrust`, the prompt),
//! then read the project's settings only if it is trusted (B2).

use std::path::Path;
use std::sync::Arc;

use pi_config::trust::{ProjectTrustHandler, TrustAnswer, TrustInput, TrustOutcome, TrustPrompt};
use pi_config::{Settings, TrustStore, resolve_trust};

use super::Env;
use super::report::{Report, Stop};

/// Resolve trust for `env.cwd`; on trust, read the project's settings into
/// `settings`. A trust store that cannot be read stops start-up.
pub(crate) fn resolve(
    env: &Env,
    approve: Option<bool>,
    settings: &mut Settings,
    loaded: Option<&Arc<pi_ext::LoadedExtensions>>,
    runtime: &tokio::runtime::Handle,
    report: &mut Report,
) -> Result<TrustOutcome, Stop> {
    let mut input = TrustInput::new(&env.cwd, TrustStore::new(&env.agent_dir));
    input.cli_override = approve;
    input.default_trust = settings.default_project_trust();
    if let Some(loaded) = loaded {
        let (handle, loaded) = (runtime.clone(), loaded.clone());
        input.handlers.push(ProjectTrustHandler {
            extension: loaded.paths().join(", "),
            decide: Box::new(move |dir: &Path| {
                let out = handle.block_on(loaded.project_trust(dir));
                for w in out.warnings {
                    eprintln!("Warning: {w}");
                }
                Ok(match out.decision {
                    Some(d) => TrustAnswer { decision: Some(d.trusted), remember: d.remember },
                    None => TrustAnswer::default(),
                })
            }),
        });
    }
    if let (true, super::Front::Tui(link)) = (env.interactive, &env.front) {
        let link = link.clone();
        input.prompt = Some(Box::new(move |p: &TrustPrompt| crate::tui::trust_prompt(&link, p)));
    }
    let trust = resolve_trust(input).map_err(|e| Stop::Error(e.to_string()))?;
    for w in &trust.warnings {
        report.warn(w);
    }
    if trust.trusted {
        for d in settings.trust_project() {
            report.warn(d);
        }
    } else if let Some(d) = settings.ignored_project_session_dir() {
        report.warn(d);
    }
    Ok(trust)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(tmp: &Path) -> Env {
        let cwd = tmp.join("proj");
        std::fs::create_dir_all(cwd.join(".pi")).unwrap();
        std::fs::write(cwd.join(".pi/settings.json"), r#"{"sessionDir": "x", "defaultTools": ["read"]}"#).unwrap();
        Env {
            agent_dir: tmp.join("agent"),
            cwd,
            interactive: false,
            front: Default::default(),
            ext_theme: Default::default(),
            prompt_spans: Default::default(),
        }
    }

    fn run(env: &Env, approve: Option<bool>) -> (Result<TrustOutcome, Stop>, Settings, Vec<String>) {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let mut report = Report::collecting();
        let mut settings = Settings::load(&env.agent_dir, &env.cwd, false).0;
        let out = resolve(env, approve, &mut settings, None, rt.handle(), &mut report);
        (out, settings, report.lines().to_vec())
    }

    #[test]
    fn a_corrupt_trust_store_stops_start_up_with_its_error() {
        let tmp = tempfile::tempdir().unwrap();
        let env = env(tmp.path());
        std::fs::create_dir_all(&env.agent_dir).unwrap();
        std::fs::write(env.agent_dir.join("trust.json"), "{not json").unwrap();
        let (out, settings, _) = run(&env, None);
        match out {
            Err(Stop::Error(m)) => assert!(m.contains("trust.json"), "{m}"),
            other => panic!("expected an error, got {other:?}"),
        }
        assert!(!settings.project_trusted());
    }

    #[test]
    fn untrusted_ignores_the_project_settings_and_says_so_once() {
        let tmp = tempfile::tempdir().unwrap();
        let env = env(tmp.path());
        let (out, settings, lines) = run(&env, None);
        assert!(!out.unwrap().trusted, "ask without a prompt is untrusted");
        assert_eq!(settings.default_tools(), None);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].starts_with("Warning: ") && lines[0].contains("sessionDir"), "{lines:?}");
    }

    #[test]
    fn approve_reads_the_project_settings() {
        let tmp = tempfile::tempdir().unwrap();
        let env = env(tmp.path());
        let (out, settings, lines) = run(&env, Some(true));
        assert!(out.unwrap().trusted);
        assert_eq!(settings.default_tools(), Some(vec!["read".to_string()]));
        assert!(lines.is_empty(), "{lines:?}");
    }
}
