//! Dialogs before the UI runs: the start-up trust question and extension
//! dialogs during start-up are drawn in place, below what is on the screen,
//! and erased once answered.

use std::io::{self, Write};

use ratatui::crossterm::event::{self, DisableBracketedPaste, EnableBracketedPaste, Event, KeyEventKind};
use ratatui::crossterm::terminal::{self, disable_raw_mode, enable_raw_mode};
use ratatui::crossterm::{cursor, execute};
use ratatui::text::Line;

use crate::dialog::{Answer, Dialog, DialogCtx, Outcome};
use crate::keys::Keybindings;
use crate::lines::styled;
use crate::screen::inline::Inline;
use crate::theme::{Theme, Token};

fn frame(dialog: &mut dyn Dialog, width: usize, theme: &Theme, keys: &Keybindings) -> Vec<Line<'static>> {
    let ctx = DialogCtx { theme, keys };
    let border = styled("─".repeat(width), theme.style(Token::Border));
    let mut out = vec![border.clone()];
    out.extend(dialog.lines(width, &ctx).into_iter().map(|l| crate::lines::truncate(&l, width, "")));
    out.push(border);
    out
}

/// Show `dialog` on the terminal until answered; `Cancel` when the terminal
/// cannot be used or input ends.
pub fn run_dialog(dialog: &mut dyn Dialog, theme: &Theme, keys: &Keybindings) -> Answer {
    // One dialog at a time on the terminal.
    let _guard = crate::terminal::lock();
    match show(dialog, theme, keys) {
        Ok(a) => a,
        Err(_) => Answer::Cancel,
    }
}

fn show(dialog: &mut dyn Dialog, theme: &Theme, keys: &Keybindings) -> io::Result<Answer> {
    enable_raw_mode()?;
    crate::terminal::set_active(true);
    let mut out = io::stdout();
    execute!(out, EnableBracketedPaste, cursor::Hide)?;
    let (w, h) = terminal::size()?;
    let (_, row) = cursor::position().unwrap_or((0, 0));
    let mut inline = Inline::new(w, h, row);
    let result = (|| -> io::Result<Answer> {
        loop {
            let (w, _) = terminal::size()?;
            let lines = frame(dialog, w as usize, theme, keys);
            inline.draw(&mut out, &[], &lines)?;
            out.flush()?;
            match event::read()? {
                Event::Key(k) if k.kind != KeyEventKind::Release => match dialog.key(&k, keys) {
                    Outcome::Close(a) => return Ok(a),
                    Outcome::Continue | Outcome::Keep(_) => {}
                },
                Event::Paste(p) => dialog.paste(&p),
                Event::Resize(w, h) => {
                    execute!(out, cursor::MoveTo(0, 0), terminal::Clear(terminal::ClearType::All))?;
                    inline.reset(w, h);
                }
                _ => {}
            }
        }
    })();
    // Erase the dialog, leaving the cursor where it started.
    inline.draw(&mut out, &[], &[])?;
    execute!(out, DisableBracketedPaste, cursor::Show)?;
    disable_raw_mode()?;
    crate::terminal::set_active(false);
    result
}
