//! The terminal: raw mode, bracketed paste, the kitty keyboard protocol when
//! the terminal has it, and either the alternate screen (fullscreen, drawn by
//! ratatui, which writes only the cells that changed) or the regular screen
//! ([`inline`]). The terminal is restored however the UI ends.

pub mod effects;
pub mod inline;
pub mod input;

use std::io::{self, Stdout, Write};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags, PopKeyboardEnhancementFlags,
    PushKeyboardEnhancementFlags,
};
use ratatui::crossterm::terminal::{
    self, Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::crossterm::{cursor, execute, queue};

use crate::app::{App, ScreenMode};
use crate::terminal::set_active;
use inline::Inline;

/// Mouse reporting (button presses and the wheel, SGR encoding), fullscreen only.
const MOUSE_ON: &str = "\x1b[?1000h\x1b[?1006h";
/// Mouse reporting off.
const MOUSE_OFF: &str = "\x1b[?1006l\x1b[?1000l";

/// Whether the UI holds the terminal (raw mode, maybe the alternate screen).
pub fn active() -> bool {
    crate::terminal::active()
}

/// Put the terminal back as the shell expects it (best effort, idempotent).
pub fn restore_terminal() {
    set_active(false);
    let mut out = io::stdout();
    let _ = write!(out, "{MOUSE_OFF}");
    let _ = execute!(out, PopKeyboardEnhancementFlags, DisableBracketedPaste, LeaveAlternateScreen, cursor::Show);
    let _ = disable_raw_mode();
}

enum Screen {
    Full(Box<Terminal<CrosstermBackend<Stdout>>>),
    Regular(Inline),
}

/// The terminal while the UI owns it.
pub struct Term {
    mode: ScreenMode,
    screen: Screen,
    kitty: bool,
    active: bool,
}

impl Term {
    /// Take the terminal in `mode`.
    pub fn enter(mode: ScreenMode) -> io::Result<Term> {
        enable_raw_mode()?;
        let kitty = matches!(terminal::supports_keyboard_enhancement(), Ok(true));
        let mut out = io::stdout();
        execute!(out, EnableBracketedPaste)?;
        if kitty {
            execute!(out, PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES))?;
        }
        set_active(true);
        let screen = Self::screen(mode)?;
        Ok(Term { mode, screen, kitty, active: true })
    }

    fn screen(mode: ScreenMode) -> io::Result<Screen> {
        let mut out = io::stdout();
        match mode {
            ScreenMode::Fullscreen => {
                execute!(out, EnterAlternateScreen, cursor::Hide)?;
                write!(out, "{MOUSE_ON}")?;
                out.flush()?;
                let mut t = Terminal::new(CrosstermBackend::new(io::stdout()))?;
                t.clear()?;
                Ok(Screen::Full(Box::new(t)))
            }
            ScreenMode::Regular => {
                execute!(out, cursor::Hide)?;
                let (w, h) = terminal::size()?;
                let (_, row) = cursor::position().unwrap_or((0, 0));
                Ok(Screen::Regular(Inline::new(w, h, row)))
            }
        }
    }

    /// Give the terminal back (before an external program, or at the end).
    pub fn release(&mut self) -> io::Result<()> {
        if !self.active {
            return Ok(());
        }
        self.active = false;
        set_active(false);
        let mut out = io::stdout();
        match &mut self.screen {
            Screen::Full(_) => {
                write!(out, "{MOUSE_OFF}")?;
                execute!(out, LeaveAlternateScreen)?;
            }
            Screen::Regular(inline) => inline.finish(&mut out)?,
        }
        if self.kitty {
            execute!(out, PopKeyboardEnhancementFlags)?;
        }
        execute!(out, DisableBracketedPaste, cursor::Show)?;
        disable_raw_mode()
    }

    /// Take the terminal again after [`Term::release`].
    pub fn reacquire(&mut self, app: &mut App) -> io::Result<()> {
        enable_raw_mode()?;
        let mut out = io::stdout();
        execute!(out, EnableBracketedPaste)?;
        if self.kitty {
            execute!(out, PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES))?;
        }
        set_active(true);
        self.screen = Self::screen(self.mode)?;
        self.active = true;
        app.reprint();
        Ok(())
    }

    /// The screen's size changed.
    pub fn resized(&mut self, app: &mut App, width: u16, height: u16) -> io::Result<()> {
        if let Screen::Regular(inline) = &mut self.screen {
            let mut out = io::stdout();
            queue!(out, cursor::MoveTo(0, 0), Clear(ClearType::All), Clear(ClearType::Purge))?;
            out.flush()?;
            inline.reset(width, height);
            app.reprint();
        }
        Ok(())
    }

    /// Everything printed again (regular mode; fullscreen redraws by itself).
    pub fn reprint(&mut self, app: &mut App) -> io::Result<()> {
        let (w, h) = terminal::size()?;
        self.resized(app, w, h)
    }

    /// Draw a frame.
    pub fn draw(&mut self, app: &mut App) -> io::Result<()> {
        match &mut self.screen {
            Screen::Full(t) => {
                t.draw(|f| {
                    let area = f.area();
                    let lines = app.screen(area.width as usize, area.height as usize);
                    let buf = f.buffer_mut();
                    for (y, l) in lines.iter().enumerate().take(area.height as usize) {
                        buf.set_line(0, y as u16, l, area.width);
                    }
                })?;
            }
            Screen::Regular(inline) => {
                let (w, h) = terminal::size()?;
                let frame = app.regular(w as usize, h as usize);
                let mut out = io::stdout().lock();
                inline.draw(&mut out, &frame.commit, &frame.live)?;
                out.flush()?;
            }
        }
        Ok(())
    }

    /// The mode.
    pub fn mode(&self) -> ScreenMode {
        self.mode
    }
}

impl Drop for Term {
    fn drop(&mut self) {
        if self.active {
            let _ = self.release();
        }
    }
}
