//! The skills and prompt templates stage (after trust): find and load them
//! as the reference does, report what was wrong with them (each with its
//! file; the run goes on), and hand them to the prompt, the input expansion
//! and the command lists.

use std::sync::Arc;

use pi_config::Settings;
use pi_config::resources::Resources;

use super::Env;
use super::report::Report;
use crate::cli_args::CliArgs;

/// Load the run's skills and templates; problems are warnings.
pub(crate) fn load(
    env: &Env,
    args: &CliArgs,
    settings: &Settings,
    trusted: bool,
    report: &mut Report,
) -> Arc<Resources> {
    let resources = args.resource_flags().load(&env.agent_dir, &env.cwd, settings, trusted);
    for d in resources.skills.diagnostics.iter().chain(&resources.templates.diagnostics) {
        report.warn(d.line());
    }
    Arc::new(resources)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_skill_is_reported_with_its_path_and_the_rest_load() {
        let tmp = tempfile::tempdir().unwrap();
        let env = super::super::test_env(tmp.path());
        let skills = env.agent_dir.join("skills");
        std::fs::create_dir_all(skills.join("bad")).unwrap();
        std::fs::create_dir_all(skills.join("good")).unwrap();
        std::fs::write(skills.join("bad/SKILL.md"), "---\nname: [bad\n---\n").unwrap();
        std::fs::write(skills.join("good/SKILL.md"), "---\ndescription: fine\n---\n").unwrap();
        std::fs::create_dir_all(&env.cwd).unwrap();
        let (settings, _) = Settings::load(&env.agent_dir, &env.cwd, false);
        let mut report = Report::collecting();
        let r = load(&env, &CliArgs::default(), &settings, false, &mut report);
        assert_eq!(r.skills.skills.len(), 1);
        assert_eq!(report.lines().len(), 1);
        let line = &report.lines()[0];
        assert!(line.starts_with("Warning: ") && line.contains("bad/SKILL.md: "), "{line}");
    }
}
