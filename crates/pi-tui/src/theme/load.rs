//! Reading theme files and choosing the theme of a run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value as Json};

use super::color::{self, Value};
use super::error::{ColourProblem, ThemeError};
use super::tokens::{EXPORT_KEYS, Token};
use super::{Appearance, Theme};
use crate::text;

/// The built-in dark theme's file.
pub(crate) const DARK_JSON: &str = include_str!("../../themes/dark.json");
/// The built-in light theme's file.
pub(crate) const LIGHT_JSON: &str = include_str!("../../themes/light.json");

/// Most variable references followed for one colour (a longer chain is a loop).
const MAX_VAR_DEPTH: usize = 32;

/// Top-level keys a theme file may have.
const THEME_KEYS: &[&str] = &["$schema", "name", "appearance", "vars", "colors", "export"];

fn object<'a>(v: &'a Json, what: &'static str) -> Result<&'a Map<String, Json>, ThemeError> {
    v.as_object().ok_or(ThemeError::NotObject(what))
}

/// Resolve one colour entry, following variables.
fn resolve(v: &Json, vars: &Map<String, Json>, depth: usize) -> Result<Value, ColourProblem> {
    match v {
        Json::Number(n) => color::parse_index(n).map_err(ColourProblem::Invalid),
        Json::String(s) => match color::parse_literal(s) {
            Some(r) => r.map_err(ColourProblem::Invalid),
            None if depth >= MAX_VAR_DEPTH => Err(ColourProblem::Loop(s.clone())),
            None => match vars.get(s.trim()) {
                Some(next) => resolve(next, vars, depth + 1),
                None => Err(ColourProblem::UnknownVariable(s.clone())),
            },
        },
        _ => Err(ColourProblem::BadType),
    }
}

/// Relative luminance of a colour, for guessing a theme's appearance.
fn luminance(v: Value) -> Option<f64> {
    let (r, g, b) = match v {
        Value::Rgb(r, g, b) => (r, g, b),
        Value::Index(i) => color::palette_rgb(i),
        Value::Default => return None,
    };
    Some((0.2126 * r as f64 + 0.7152 * g as f64 + 0.0722 * b as f64) / 255.0)
}

/// Parse and check a theme file; `Err` says why it is invalid.
pub(crate) fn parse_theme(json: &str, truecolor: bool) -> Result<Theme, ThemeError> {
    let root: Json = serde_json::from_str(json).map_err(ThemeError::Json)?;
    let root = object(&root, "theme")?;
    if let Some(k) = root.keys().find(|k| !THEME_KEYS.contains(&k.as_str())) {
        return Err(ThemeError::UnknownProperty(k.clone()));
    }
    let name = root.get("name").and_then(Json::as_str).ok_or(ThemeError::NameRequired)?;
    if name.is_empty() || name.contains('/') || name == text::SYSTEM_THEME {
        return Err(ThemeError::BadName(name.to_string()));
    }
    let empty = Map::new();
    let vars = match root.get("vars") {
        Some(v) => object(v, "vars")?,
        None => &empty,
    };
    let colors = object(root.get("colors").ok_or(ThemeError::ColorsRequired)?, "colors")?;
    if let Some(k) = colors.keys().find(|k| Token::from_name(k).is_none()) {
        return Err(ThemeError::UnknownColour(k.clone()));
    }
    if let Some(export) = root.get("export") {
        let export = object(export, "export")?;
        if let Some(k) = export.keys().find(|k| !EXPORT_KEYS.contains(&k.as_str())) {
            return Err(ThemeError::UnknownProperty(format!("export.{k}")));
        }
        for (k, v) in export {
            resolve(v, vars, 0).map_err(|why| ThemeError::Colour { key: format!("export.{k}"), why })?;
        }
    }
    let mut values: HashMap<Token, Value> = HashMap::new();
    for t in Token::ALL {
        if let Some(v) = colors.get(t.name()) {
            let resolved = resolve(v, vars, 0).map_err(|why| ThemeError::Colour { key: t.name().to_string(), why })?;
            values.insert(*t, resolved);
        } else if t.fallback().is_none() {
            return Err(ThemeError::MissingColour(t.name()));
        }
    }
    let ordered: Vec<Value> = Token::ALL
        .iter()
        .map(|t| values.get(t).or_else(|| t.fallback().and_then(|f| values.get(&f))).copied().unwrap_or(Value::Default))
        .collect();
    let appearance = match root.get("appearance").and_then(Json::as_str) {
        Some("light") => Appearance::Light,
        Some("dark") => Appearance::Dark,
        Some(other) => return Err(ThemeError::BadAppearance(other.to_string())),
        None => match values.get(&Token::Text).copied().and_then(luminance) {
            Some(l) if l < 0.5 => Appearance::Light,
            _ => Appearance::Dark,
        },
    };
    Ok(Theme::from_values(name, appearance, &ordered, truecolor))
}

/// Where a theme comes from.
#[derive(Debug, Clone)]
enum Source {
    Builtin(&'static str),
    File(String),
}

/// Every theme a run can use: `system`, the built-ins, then theme files.
#[derive(Debug, Clone, Default)]
pub struct ThemeCatalog {
    entries: Vec<(String, Source)>,
    /// Invalid files and name collisions, as warnings.
    pub diagnostics: Vec<String>,
}

impl ThemeCatalog {
    /// The built-ins, plus the `*.json` files of `dirs` and the `files`
    /// (a `--theme` path may be a folder too). The first theme of a name wins;
    /// later ones are reported as collisions.
    pub fn load(dirs: &[PathBuf], files: &[PathBuf]) -> ThemeCatalog {
        let mut c = ThemeCatalog {
            entries: vec![
                ("dark".to_string(), Source::Builtin(DARK_JSON)),
                ("light".to_string(), Source::Builtin(LIGHT_JSON)),
            ],
            diagnostics: Vec::new(),
        };
        for f in files {
            if f.is_dir() { c.add_dir(f) } else { c.add_file(f) }
        }
        for d in dirs {
            c.add_dir(d);
        }
        c
    }

    fn add_dir(&mut self, dir: &Path) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        let mut paths: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        for p in paths {
            self.add_file(&p);
        }
    }

    fn add_file(&mut self, path: &Path) {
        let body = match pi_config::files::read_config_text(path) {
            Ok(Some(b)) => b,
            Ok(None) => return self.diagnostics.push(text::theme_invalid(path, text::THEME_NOT_FOUND)),
            Err(e) => return self.diagnostics.push(text::theme_invalid(path, &e.to_string())),
        };
        match parse_theme(&body, true) {
            Ok(t) if self.entries.iter().any(|(n, _)| *n == t.name) => {
                self.diagnostics.push(text::theme_collision(&t.name, path));
            }
            Ok(t) => self.entries.push((t.name.clone(), Source::File(body))),
            Err(e) => self.diagnostics.push(text::theme_invalid(path, &e.to_string())),
        }
    }

    /// Theme names for the selector: `system` first.
    pub fn names(&self) -> Vec<String> {
        std::iter::once(text::SYSTEM_THEME.to_string()).chain(self.entries.iter().map(|(n, _)| n.clone())).collect()
    }

    /// The theme called `name`, ready for a terminal (`truecolor` or 256 colours).
    pub fn get(&self, name: &str, truecolor: bool, appearance: Appearance) -> Option<Theme> {
        if name == text::SYSTEM_THEME {
            return Some(Theme::system(appearance));
        }
        let (_, source) = self.entries.iter().find(|(n, _)| n == name)?;
        let json = match source {
            Source::Builtin(j) => j,
            Source::File(body) => body.as_str(),
        };
        parse_theme(json, truecolor).ok()
    }
}

/// The theme name a `theme` setting (or `--use-theme`) asks for: a name, or
/// `light/dark` (the light theme first) chosen by the terminal's appearance;
/// none: `system`.
pub fn choose_from_setting(setting: Option<&str>, appearance: Appearance) -> String {
    match setting.map(str::trim).filter(|s| !s.is_empty()) {
        None => text::SYSTEM_THEME.to_string(),
        Some(s) => match s.split_once('/') {
            Some((light, dark)) => match appearance {
                Appearance::Light => light.trim().to_string(),
                Appearance::Dark => dark.trim().to_string(),
            },
            None => s.to_string(),
        },
    }
}

/// The terminal's appearance from `COLORFGBG` (`fg;bg`: a background of 7 or
/// 9–15 is light), else dark.
pub fn appearance_from_env() -> Appearance {
    let bg = std::env::var("COLORFGBG").ok().and_then(|v| v.rsplit(';').next().and_then(|b| b.parse::<u8>().ok()));
    match bg {
        Some(7) | Some(9..=15) => Appearance::Light,
        _ => Appearance::Dark,
    }
}

/// Whether the terminal shows 24-bit colour (`COLORTERM=truecolor|24bit`).
pub fn truecolor_from_env() -> bool {
    std::env::var("COLORTERM").is_ok_and(|v| v == "truecolor" || v == "24bit")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minimal(extra: &str) -> String {
        let colors: Vec<String> = Token::ALL
            .iter()
            .filter(|t| t.fallback().is_none())
            .map(|t| format!("\"{}\": \"base\"", t.name()))
            .collect();
        format!(
            r#"{{"name": "mine", "vars": {{"base": "okhsl(200 50% 60%)"}}, "colors": {{{}}}{extra}}}"#,
            colors.join(",")
        )
    }

    #[test]
    fn a_minimal_theme_loads_and_optional_roles_fall_back() {
        let t = parse_theme(&minimal(""), true).unwrap();
        assert_eq!(t.name, "mine");
        assert_eq!(t.style(Token::ScrollbarThumb), t.style(Token::Text));
    }

    #[test]
    fn strictness() {
        let err = |s: &str| parse_theme(s, true).unwrap_err().to_string();
        assert!(err(&minimal(r#", "extra": 1"#)).contains("extra"));
        assert!(err(r#"{"name": "a/b", "colors": {}}"#).contains("a/b"));
        assert!(err(r#"{"name": "system", "colors": {}}"#).contains("system"));
        assert!(err(r##"{"name": "x", "colors": {"bogus": "#fff"}}"##).contains("bogus"));
        assert!(err(r##"{"name": "x", "colors": {"accent": "#fff"}}"##).contains("border"));
        let looped = minimal("").replace(r#""base": "okhsl(200 50% 60%)""#, r#""base": "other", "other": "base""#);
        assert!(err(&looped).contains("base") || err(&looped).contains("other"));
        let unknown = minimal("").replace(r#""base": "okhsl(200 50% 60%)""#, r##""x": "#fff""##);
        assert!(err(&unknown).contains("base"));
    }

    #[test]
    fn catalog_reports_bad_files_and_collisions() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("a.json"), minimal("")).unwrap();
        std::fs::write(tmp.path().join("b.json"), minimal("")).unwrap();
        std::fs::write(tmp.path().join("c.json"), "{oops").unwrap();
        let c = ThemeCatalog::load(&[tmp.path().to_path_buf()], &[]);
        assert_eq!(c.names(), ["system", "dark", "light", "mine"]);
        assert_eq!(c.diagnostics.len(), 2, "{:?}", c.diagnostics);
        assert!(c.get("mine", false, Appearance::Dark).is_some());
        assert!(c.get("nope", false, Appearance::Dark).is_none());
    }

    #[test]
    fn settings_pick_a_theme() {
        assert_eq!(choose_from_setting(None, Appearance::Dark), "system");
        assert_eq!(choose_from_setting(Some("light/dark"), Appearance::Light), "light");
        assert_eq!(choose_from_setting(Some("light/dark"), Appearance::Dark), "dark");
        assert_eq!(choose_from_setting(Some("mine"), Appearance::Dark), "mine");
    }
}
