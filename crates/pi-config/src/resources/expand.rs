//! What `/name args` and `/skill:name args` become before they reach the
//! model: the reference's argument splitting (shell-like quotes that open
//! only at the start of an argument), its placeholders (`$1`, `$@`,
//! `$ARGUMENTS`, `${N:-default}`, `${@:-default}`, `${@:N}`, `${@:N:L}`) and
//! its skill block.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::{PromptTemplate, Skill, frontmatter, read_resource};
use crate::text;

/// The prefix of a skill command.
pub const SKILL_COMMAND_PREFIX: &str = "/skill:";

fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// Split a command's argument text into arguments. A `"` or `'` opens a
/// quoted argument only where an argument starts; inside it a backslash
/// before the same quote keeps the quote; an unclosed quote is text.
pub fn parse_command_args(input: &str) -> Vec<String> {
    let chars: Vec<char> = input.chars().collect();
    let mut args = Vec::new();
    let mut current = String::new();
    let mut has_token = false;
    let mut quote: Option<char> = None;
    let mut quote_start = 0;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            if c == '\\' && chars.get(i + 1) == Some(&q) {
                current.push(q);
                i += 1;
            } else if c == q {
                quote = None;
            } else {
                current.push(c);
            }
        } else if (c == '"' || c == '\'') && !has_token {
            quote = Some(c);
            quote_start = i;
            has_token = true;
        } else if is_space(c) {
            if has_token {
                args.push(std::mem::take(&mut current));
                has_token = false;
            }
        } else {
            current.push(c);
            has_token = true;
        }
        if quote.is_some() && i == chars.len() - 1 {
            // Unclosed: the quote is text and what follows it is read again.
            quote = None;
            current = chars[quote_start].to_string();
            i = quote_start;
        }
        i += 1;
    }
    if has_token {
        args.push(current);
    }
    args
}

static PLACEHOLDER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\$\{(\d+|ARGUMENTS|@):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$(ARGUMENTS|@|\d+)").ok());

/// A 1-based position as a 0-based index (`None`: before the first or too big).
fn index(digits: &str) -> Option<usize> {
    digits.parse::<usize>().ok().and_then(|n| n.checked_sub(1))
}

fn replace(c: &Captures<'_>, args: &[String]) -> String {
    let all = args.join(" ");
    if let (Some(target), Some(default)) = (c.get(1), c.get(2)) {
        let value = match target.as_str() {
            "@" | "ARGUMENTS" => Some(all.as_str()),
            n => index(n).and_then(|i| args.get(i)).map(String::as_str),
        };
        return value.filter(|v| !v.is_empty()).unwrap_or(default.as_str()).to_string();
    }
    if let Some(start) = c.get(3) {
        // `${@:0}` counts as `${@:1}`.
        let start =
            index(start.as_str()).unwrap_or(if start.as_str().bytes().all(|b| b == b'0') { 0 } else { usize::MAX });
        let rest = args.get(start..).unwrap_or(&[]);
        let taken = match c.get(4) {
            Some(len) => {
                let len = len.as_str().parse::<usize>().unwrap_or(usize::MAX);
                &rest[..len.min(rest.len())]
            }
            None => rest,
        };
        return taken.join(" ");
    }
    match c.get(5).map(|m| m.as_str()) {
        Some("@" | "ARGUMENTS") => all,
        Some(n) => index(n).and_then(|i| args.get(i)).cloned().unwrap_or_default(),
        None => String::new(),
    }
}

/// Put `args` into a template's placeholders. Values are not substituted
/// again (a `$1` inside an argument stays).
pub fn substitute_args(content: &str, args: &[String]) -> String {
    match PLACEHOLDER.as_ref() {
        Some(re) => re.replace_all(content, |c: &Captures<'_>| replace(c, args)).into_owned(),
        None => content.to_string(),
    }
}

/// `/name args` with `name` a template: the template with the arguments put
/// in; anything else is returned as it is.
pub fn expand_prompt_template(input: &str, templates: &[PromptTemplate]) -> String {
    let Some(rest) = input.strip_prefix('/') else { return input.to_string() };
    let name_end = rest.find(is_space).unwrap_or(rest.len());
    let name = &rest[..name_end];
    if name.is_empty() {
        return input.to_string();
    }
    let Some(template) = templates.iter().find(|t| t.name == name) else { return input.to_string() };
    let args_text = rest[name_end..].trim_start_matches(is_space);
    substitute_args(&template.content, &parse_command_args(args_text))
}

/// `/skill:name args` with `name` a loaded skill: its instructions in a
/// `<skill>` block, then the arguments. `Ok(None)`: not a skill command (or
/// an unknown skill), the text goes on as it is; `Err`: the skill file
/// could not be read now (the path and the reason).
pub fn expand_skill_command(input: &str, skills: &[Skill]) -> Result<Option<String>, (std::path::PathBuf, String)> {
    let Some(rest) = input.strip_prefix(SKILL_COMMAND_PREFIX) else { return Ok(None) };
    let (name, args) = match rest.find(' ') {
        Some(i) => (&rest[..i], rest[i + 1..].trim()),
        None => (rest, ""),
    };
    let Some(skill) = skills.iter().find(|s| s.name == name) else { return Ok(None) };
    let body = read_resource(&skill.file_path)
        .and_then(|c| frontmatter::parse(&c).map(|f| f.body))
        .map_err(|e| (skill.file_path.clone(), e.to_string()))?;
    let block = text::skill_block(&skill.name, &skill.file_path, &skill.base_dir, body.trim());
    Ok(Some(if args.is_empty() { block } else { format!("{block}\n\n{args}") }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        parse_command_args(s)
    }

    #[test]
    fn splits_as_the_reference() {
        assert_eq!(args(r#"a "b c" 'd e' f"#), ["a", "b c", "d e", "f"]);
        assert_eq!(args("doesn't matter"), ["doesn't", "matter"]);
        assert_eq!(args(r#""the \"fast\" path" x\y"#), ["the \"fast\" path", "x\\y"]);
        assert_eq!(args(r#"a "unclosed b"#), ["a", "\"unclosed", "b"]);
        assert_eq!(args(r#""" ''"#), ["", ""]);
        assert_eq!(args("  "), Vec::<String>::new());
        assert_eq!(args("\""), ["\""]);
    }

    #[test]
    fn substitutes_every_placeholder() {
        let a: Vec<String> = ["x", "y", "z"].map(String::from).to_vec();
        assert_eq!(substitute_args("$1-$2-$4|$@|$ARGUMENTS", &a), "x-y-|x y z|x y z");
        assert_eq!(substitute_args("${@:2}|${@:2:1}|${@:0}|${@:9}", &a), "y z|y|x y z|");
        assert_eq!(substitute_args("${4:-dflt}|${1:-d}|${@:-none}", &a), "dflt|x|x y z");
        assert_eq!(substitute_args("${@:-none}|$0|$99999999999999999999999", &[]), "none||");
        let tricky: Vec<String> = vec!["$2".into(), "b".into()];
        assert_eq!(substitute_args("$1 $2", &tricky), "$2 b", "values are not substituted again");
    }

    #[test]
    fn expands_templates_and_skills() {
        let t = PromptTemplate {
            name: "rev".into(),
            description: String::new(),
            argument_hint: None,
            content: "Review $1 then ${@:2}".into(),
            file_path: "/t/rev.md".into(),
            source: Default::default(),
        };
        assert_eq!(expand_prompt_template("/rev \"a b\" c d", std::slice::from_ref(&t)), "Review a b then c d");
        assert_eq!(expand_prompt_template("/rev", std::slice::from_ref(&t)), "Review  then ");
        assert_eq!(expand_prompt_template("/other x", std::slice::from_ref(&t)), "/other x");
        assert_eq!(expand_prompt_template("rev", std::slice::from_ref(&t)), "rev");
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("s/SKILL.md");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "---\nname: s\ndescription: d\n---\n\n# Do\nit\n").unwrap();
        let skill = Skill {
            name: "s".into(),
            description: "d".into(),
            file_path: file.clone(),
            base_dir: tmp.path().join("s"),
            disable_model_invocation: false,
            source: Default::default(),
        };
        let out = expand_skill_command("/skill:s  go now ", std::slice::from_ref(&skill)).unwrap().unwrap();
        let want = format!(
            "<skill name=\"s\" location=\"{}\">\nReferences are relative to {}.\n\n# Do\nit\n</skill>\n\ngo now",
            file.display(),
            tmp.path().join("s").display()
        );
        assert_eq!(out, want);
        assert_eq!(expand_skill_command("/skill:nope x", std::slice::from_ref(&skill)), Ok(None));
        std::fs::remove_file(&file).unwrap();
        assert!(expand_skill_command("/skill:s", std::slice::from_ref(&skill)).is_err());
    }
}
