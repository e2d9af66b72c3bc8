//! The YAML frontmatter of a Markdown resource (`SKILL.md`, a prompt
//! template): a block between a first line `---` and the next line that
//! starts with `---`. Line endings are normalised to `\n` first; without a
//! closing line there is no frontmatter and the whole text is the body.

use yaml_rust2::{Yaml, YamlLoader};

use crate::ResourceError;

/// A parsed resource file.
#[derive(Debug, Clone, PartialEq)]
pub struct Frontmatter {
    /// The top-level mapping (empty when there is none or it is not a mapping).
    fields: Vec<(String, Yaml)>,
    /// The text after the frontmatter, trimmed (the whole text when there is
    /// no frontmatter).
    pub body: String,
}

impl Frontmatter {
    /// A field's value when it is a string.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Yaml::as_str)
    }

    /// Whether a field is exactly the boolean `true`.
    pub fn is_true(&self, key: &str) -> bool {
        matches!(self.get(key), Some(Yaml::Boolean(true)))
    }

    /// Whether the field is there at all (with any value).
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn get(&self, key: &str) -> Option<&Yaml> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

/// Split `content` into its YAML block and body.
fn split(content: &str) -> (Option<String>, String) {
    let normalized = content.strip_prefix('\u{feff}').unwrap_or(content).replace("\r\n", "\n").replace('\r', "\n");
    if !normalized.starts_with("---") {
        return (None, normalized);
    }
    let Some(end) = normalized.get(3..).and_then(|rest| rest.find("\n---")).map(|i| i + 3) else {
        return (None, normalized);
    };
    // The block starts after `---\n` (the 4th character onwards).
    let yaml = normalized.get(4..end).unwrap_or("").to_string();
    let body = normalized.get(end + 4..).unwrap_or("").trim().to_string();
    (Some(yaml), body)
}

/// Parse a resource file's frontmatter; `Err` carries the YAML error.
pub fn parse(content: &str) -> Result<Frontmatter, ResourceError> {
    let (yaml, body) = split(content);
    let Some(yaml) = yaml.filter(|y| !y.is_empty()) else {
        return Ok(Frontmatter { fields: Vec::new(), body });
    };
    let docs = YamlLoader::load_from_str(&yaml).map_err(ResourceError::Yaml)?;
    if docs.len() > 1 {
        return Err(ResourceError::MultipleDocuments);
    }
    let fields = match docs.into_iter().next() {
        Some(Yaml::Hash(h)) => h
            .into_iter()
            .filter_map(|(k, v)| match k {
                Yaml::String(s) => Some((s, v)),
                Yaml::Integer(i) => Some((i.to_string(), v)),
                Yaml::Boolean(b) => Some((b.to_string(), v)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(Frontmatter { fields, body })
}

/// The body of a resource file without its frontmatter (the YAML is not
/// parsed: a body is found even when the frontmatter is malformed).
pub fn strip(content: &str) -> String {
    split(content).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fields_and_trims_the_body() {
        let f = parse("---\r\nname: a\r\ndescription: \"x: y\"\r\nflag: true\r\n---\r\n\n# Body\n\n").unwrap();
        assert_eq!(f.str("name"), Some("a"));
        assert_eq!(f.str("description"), Some("x: y"));
        assert!(f.is_true("flag"));
        assert!(!f.is_true("name"));
        assert_eq!(f.body, "# Body");
    }

    #[test]
    fn without_a_closing_line_everything_is_body() {
        let f = parse("---\nname: a\nbody").unwrap();
        assert_eq!(f.str("name"), None);
        assert_eq!(f.body, "---\nname: a\nbody");
        assert_eq!(parse("plain\ntext\n").unwrap().body, "plain\ntext\n");
    }

    #[test]
    fn malformed_yaml_is_an_error_and_non_strings_are_not_strings() {
        assert!(parse("---\nname: [bad\n---\nbody").is_err());
        assert!(parse("---\na: 1\na: 2\n---\n").is_err(), "duplicate keys");
        let f = parse("---\nname: 12\nflag: \"true\"\n---\nb").unwrap();
        assert_eq!(f.str("name"), None);
        assert!(!f.is_true("flag"));
        assert!(f.has("name"));
        assert_eq!(parse("---\n- a\n---\nb").unwrap().str("a"), None, "a list is no mapping");
    }

    #[test]
    fn strip_keeps_the_body_of_malformed_frontmatter() {
        assert_eq!(strip("---\nname: [bad\n---\n\nbody\n"), "body");
    }
}
