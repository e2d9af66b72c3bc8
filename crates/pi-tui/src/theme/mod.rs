//! Themes (the reference's docs/themes.md): the built-in `dark` and `light`
//! palettes, `system` (the terminal's own ANSI colours), and theme files from
//! `<agent-dir>/themes`, a trusted project's `.pi/themes` and `--theme`.
//!
//! A theme file is strict JSON: `name` (no `/`, not `system`), optional
//! `appearance`, `vars` and `export`, and `colors` with every required role.
//! Colours are hex, `okhsl(…)`, `oklch(…)`, a 256-colour index, a variable
//! name or `""` for the terminal default.

pub mod color;
mod error;
mod load;
mod tokens;

use ratatui::style::{Color, Modifier, Style};

pub use load::{ThemeCatalog, appearance_from_env, choose_from_setting, truecolor_from_env};
pub use tokens::{Slot, Token};

use crate::text;

/// Whether a theme is made for a dark or a light background.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Appearance {
    /// Light text on a dark background.
    #[default]
    Dark,
    /// Dark text on a light background.
    Light,
}

/// A theme ready to style text: one [`Style`] per role.
#[derive(Debug, Clone)]
pub struct Theme {
    /// The theme's name.
    pub name: String,
    /// Dark or light.
    pub appearance: Appearance,
    styles: Vec<Style>,
}

impl Theme {
    /// The style of a role: a text colour for text roles, a background for
    /// background roles.
    pub fn style(&self, t: Token) -> Style {
        self.styles.get(t as usize).copied().unwrap_or_default()
    }

    /// Text in role `t`, bold.
    pub fn bold(&self, t: Token) -> Style {
        self.style(t).add_modifier(Modifier::BOLD)
    }

    /// The escape sequences that open and close role `t` around text, as
    /// the reference's `Theme.fg`/`bg` write them: `38;5;N`/`38;2;R;G;B`
    /// (`48;…` for a background), `39`/`49` for the terminal's default; a
    /// faint role adds `2` and closes with `22;39`.
    pub fn sgr(&self, t: Token) -> (String, String) {
        let style = self.style(t);
        let (color, base, reset) = match t.slot() {
            Slot::Fg => (style.fg, 38, "\x1b[39m"),
            Slot::Bg => (style.bg, 48, "\x1b[49m"),
        };
        let mut open = match color {
            Some(Color::Indexed(i)) => format!("\x1b[{base};5;{i}m"),
            Some(Color::Rgb(r, g, b)) => format!("\x1b[{base};2;{r};{g};{b}m"),
            _ => reset.to_string(),
        };
        if t.slot() == Slot::Fg && style.add_modifier.contains(Modifier::DIM) {
            open.push_str("\x1b[2m");
            return (open, "\x1b[22;39m".to_string());
        }
        (open, reset.to_string())
    }

    /// Every role's [`Theme::sgr`] pair by name, for extensions' `ctx.ui.theme`.
    pub fn ansi_table(&self) -> serde_json::Value {
        let table: serde_json::Map<String, serde_json::Value> = Token::ALL
            .iter()
            .map(|t| {
                let (open, close) = self.sgr(*t);
                (t.name().to_string(), serde_json::json!([open, close]))
            })
            .collect();
        serde_json::Value::Object(table)
    }

    /// Build from resolved colours (indexed like [`Token::ALL`]); `truecolor`
    /// false maps RGB colours to the nearest 256-colour entry.
    pub(crate) fn from_values(name: &str, appearance: Appearance, values: &[color::Value], truecolor: bool) -> Theme {
        let styles = Token::ALL
            .iter()
            .zip(values)
            .map(|(t, v)| {
                let c = match *v {
                    color::Value::Default => None,
                    color::Value::Index(i) => Some(Color::Indexed(i)),
                    color::Value::Rgb(r, g, b) if truecolor => Some(Color::Rgb(r, g, b)),
                    color::Value::Rgb(r, g, b) => Some(Color::Indexed(color::nearest_index(r, g, b))),
                };
                match (t.slot(), c) {
                    (_, None) => Style::default(),
                    (Slot::Fg, Some(c)) => Style::default().fg(c),
                    (Slot::Bg, Some(c)) => Style::default().bg(c),
                }
            })
            .collect();
        Theme { name: name.to_string(), appearance, styles }
    }

    /// `system`: the terminal's own colours (ANSI indices 0–15 and its default
    /// foreground and background), secondary text faint, no panel
    /// backgrounds. What the reference falls back to when the terminal does not
    /// report its palette.
    pub fn system(appearance: Appearance) -> Theme {
        use Token::*;
        let ansi = |i: u8| Style::default().fg(Color::Indexed(i));
        let faint = Style::default().add_modifier(Modifier::DIM);
        let styles = Token::ALL
            .iter()
            .map(|t| match t {
                Accent | MdCode | MdListBullet | CustomMessageLabel | SyntaxType | ThinkingHigh => ansi(5),
                Border | MdLink | SyntaxKeyword | ThinkingLow => ansi(4),
                BorderAccent | ThinkingXhigh | ThinkingMax => ansi(6),
                Success | ToolDiffAdded | SyntaxString | MdCodeBlock | BashMode => ansi(2),
                Error | ToolDiffRemoved => ansi(1),
                Warning | MdHeading | SyntaxFunction | SyntaxNumber => ansi(3),
                ThinkingMedium => ansi(13),
                ThinkingMinimal => ansi(12),
                Muted | Dim | ThinkingText | ScrollbarTrack | ToolOutput | MdLinkUrl | MdCodeBlockBorder | MdQuote
                | MdQuoteBorder | MdHr | ToolDiffContext | SyntaxComment | SyntaxOperator | SyntaxPunctuation
                | CustomMessageText | BorderMuted | ThinkingOff => faint,
                SelectedBg | SearchMatchBg | UserMessageBg | CustomMessageBg | ToolPendingBg | ToolSuccessBg
                | ToolErrorBg => Style::default(),
                Text | ScrollbarThumb | SearchMatchText | UserMessageText | ToolTitle | SyntaxVariable => {
                    Style::default()
                }
            })
            .collect();
        Theme { name: text::SYSTEM_THEME.to_string(), appearance, styles }
    }

    /// The built-in `dark` theme.
    pub fn dark(truecolor: bool) -> Theme {
        Self::builtin(load::DARK_JSON, truecolor)
    }

    /// The built-in `light` theme.
    pub fn light(truecolor: bool) -> Theme {
        Self::builtin(load::LIGHT_JSON, truecolor)
    }

    fn builtin(json: &str, truecolor: bool) -> Theme {
        load::parse_theme(json, truecolor).unwrap_or_else(|_| Theme::system(Appearance::Dark))
    }
}

impl Default for Theme {
    fn default() -> Self {
        Theme::dark(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_themes_are_complete_and_valid() {
        for json in [load::DARK_JSON, load::LIGHT_JSON] {
            let t = load::parse_theme(json, true).unwrap();
            for tok in Token::ALL {
                let s = t.style(*tok);
                match tok.slot() {
                    Slot::Fg => assert!(s.fg.is_some(), "{} has no colour in {}", tok.name(), t.name),
                    Slot::Bg => assert!(s.bg.is_some(), "{} has no colour in {}", tok.name(), t.name),
                }
            }
        }
        assert_eq!(Theme::dark(true).appearance, Appearance::Dark);
        assert_eq!(Theme::light(true).appearance, Appearance::Light);
    }

    #[test]
    fn roles_open_and_close_as_the_references_theme_writes_them() {
        let system = Theme::system(Appearance::Dark);
        assert_eq!(system.sgr(Token::Accent), ("\x1b[38;5;5m".into(), "\x1b[39m".into()));
        assert_eq!(system.sgr(Token::Dim), ("\x1b[39m\x1b[2m".into(), "\x1b[22;39m".into()));
        assert_eq!(system.sgr(Token::CustomMessageBg), ("\x1b[49m".into(), "\x1b[49m".into()));
        let dark = Theme::dark(false);
        assert!(dark.sgr(Token::Accent).0.starts_with("\x1b[38;5;"));
        assert!(dark.sgr(Token::CustomMessageBg).0.starts_with("\x1b[48;5;"));
        assert!(Theme::dark(true).sgr(Token::Accent).0.starts_with("\x1b[38;2;"));
        assert_eq!(system.ansi_table()["accent"][0], "\x1b[38;5;5m");
    }

    #[test]
    fn without_truecolor_colours_come_from_the_palette() {
        let t = Theme::dark(false);
        assert!(matches!(t.style(Token::Accent).fg, Some(Color::Indexed(_))));
    }
}
