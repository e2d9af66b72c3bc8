//! The `skills` section of the system prompt: the skills the model may load
//! on its own, in the reference's words, and the rule for when it appears
//! (a file-reading tool is there: `read`, else `bash`; a reader that is
//! active but not declared still counts, and the hint then names no tool).

use pi_config::resources::Skill;

use crate::text;

/// Which tool the model is told to load a skill file with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkillReader {
    /// `read` is declared.
    Read,
    /// `bash` is declared (and `read` is not).
    Bash,
    /// A reader is active but its declaration is hidden.
    Indirect,
}

/// The reader, from the declared and the active tools' names; `None`: no
/// reader at all, so no skills section.
pub(crate) fn reader(declared: &[&str], active: &[&str]) -> Option<SkillReader> {
    let readers = [("read", SkillReader::Read), ("bash", SkillReader::Bash)];
    if let Some((_, r)) = readers.iter().find(|(n, _)| declared.contains(n)) {
        return Some(*r);
    }
    readers.iter().any(|(n, _)| active.contains(n)).then_some(SkillReader::Indirect)
}

fn escape_xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
}

/// The section's text (`<skills>…</skills>`), or `None` when no skill may be
/// invoked by the model (`disable-model-invocation` skills are left out).
pub(crate) fn skills_section(skills: &[Skill], reader: SkillReader) -> Option<String> {
    let visible: Vec<&Skill> = skills.iter().filter(|s| !s.disable_model_invocation).collect();
    if visible.is_empty() {
        return None;
    }
    let hint = match reader {
        SkillReader::Read => text::SKILLS_HINT_READ,
        SkillReader::Bash => text::SKILLS_HINT_BASH,
        SkillReader::Indirect => text::SKILLS_HINT_INDIRECT,
    };
    let mut lines = vec![text::SKILLS_INTRO, hint, text::SKILLS_PATHS, "", "<available_skills>"]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
    for s in visible {
        lines.push("  <skill>".into());
        lines.push(format!("    <name>{}</name>", escape_xml(&s.name)));
        lines.push(format!("    <description>{}</description>", escape_xml(&s.description)));
        lines.push(format!("    <location>{}</location>", escape_xml(&s.file_path.to_string_lossy())));
        lines.push("  </skill>".into());
    }
    lines.push("</available_skills>".into());
    Some(format!("<skills>\n{}\n</skills>", lines.join("\n").trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(name: &str, hidden: bool) -> Skill {
        Skill {
            name: name.into(),
            description: "Does <x> & 'y'".into(),
            file_path: format!("/s/{name}/SKILL.md").into(),
            base_dir: format!("/s/{name}").into(),
            disable_model_invocation: hidden,
            source: Default::default(),
        }
    }

    #[test]
    fn reader_rules() {
        assert_eq!(reader(&["bash", "read"], &[]), Some(SkillReader::Read));
        assert_eq!(reader(&["bash"], &["bash"]), Some(SkillReader::Bash));
        assert_eq!(reader(&["ls"], &["ls", "read"]), Some(SkillReader::Indirect));
        assert_eq!(reader(&["ls"], &["ls"]), None);
    }

    #[test]
    fn the_reference_block() {
        let s = skills_section(&[skill("a", false), skill("b", true)], SkillReader::Read).unwrap();
        assert_eq!(
            s,
            "<skills>\nThe following skills provide specialized instructions for specific tasks.\n\
             Use the read tool to load a skill's file when the task matches its description.\n\
             Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.\n\n\
             <available_skills>\n  <skill>\n    <name>a</name>\n    <description>Does &lt;x&gt; &amp; &apos;y&apos;</description>\n    \
             <location>/s/a/SKILL.md</location>\n  </skill>\n</available_skills>\n</skills>"
        );
        assert_eq!(skills_section(&[skill("b", true)], SkillReader::Read), None);
    }
}
