//! The UI's loop: terminal input, host updates and animation ticks in; frames
//! out at most every [`FRAME`]; nothing at all while idle.

use std::io;
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{Event, KeyEventKind, MouseEventKind};
use tokio::sync::mpsc;

use crate::app::{App, Effect, Options, ScreenMode};
use crate::host::{Request, Update};
use crate::screen::{self, Term, effects, input};
use crate::transcript::Level;

/// Shortest time between two frames.
pub const FRAME: Duration = Duration::from_millis(16);
/// Spinner and timer period while something runs.
pub const TICK: Duration = Duration::from_millis(80);

/// Run the UI until the user quits (or the terminal or host goes away).
/// Requests go to `requests`; updates come from `updates`.
pub async fn run(
    options: Options,
    requests: mpsc::UnboundedSender<Request>,
    mut updates: mpsc::UnboundedReceiver<Update>,
) -> io::Result<()> {
    let mode = options.mode;
    let mut app = App::new(options);
    let previous_hook = std::sync::Arc::new(std::panic::take_hook());
    let hook = previous_hook.clone();
    std::panic::set_hook(Box::new(move |info| {
        screen::restore_terminal();
        hook(info);
    }));
    let result = run_loop(&mut app, mode, &requests, &mut updates).await;
    let _ = std::panic::take_hook();
    if let Ok(hook) = std::sync::Arc::try_unwrap(previous_hook) {
        std::panic::set_hook(hook);
    }
    let _ = requests.send(Request::Quit);
    result
}

async fn run_loop(
    app: &mut App,
    mode: ScreenMode,
    requests: &mpsc::UnboundedSender<Request>,
    updates: &mut mpsc::UnboundedReceiver<Update>,
) -> io::Result<()> {
    let mut term = Term::enter(mode)?;
    let (mut events, ctl) = input::spawn();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut dirty = true;
    let mut last_draw = Instant::now() - FRAME;
    loop {
        for r in app.take_requests() {
            let _ = requests.send(r);
        }
        for e in app.take_effects() {
            effect(app, &mut term, &ctl, e)?;
            dirty = true;
        }
        if std::mem::take(&mut app.reprint_requested) {
            term.reprint(app)?;
            dirty = true;
        }
        if app.quit {
            break;
        }
        if dirty && last_draw.elapsed() >= FRAME {
            term.draw(app)?;
            last_draw = Instant::now();
            dirty = false;
        }
        let wait = FRAME.saturating_sub(last_draw.elapsed());
        tokio::select! {
            ev = events.recv() => match ev {
                Some(ev) => {
                    event(app, &mut term, ev)?;
                    while let Ok(ev) = events.try_recv() {
                        event(app, &mut term, ev)?;
                    }
                    dirty = true;
                }
                None => break,
            },
            up = updates.recv() => match up {
                Some(u) => {
                    app.update(u);
                    while let Ok(u) = updates.try_recv() {
                        app.update(u);
                    }
                    dirty = true;
                }
                None => break,
            },
            _ = tick.tick(), if app.animating() => {
                app.tick();
                dirty = true;
            }
            _ = tokio::time::sleep(wait), if dirty => {}
        }
    }
    ctl.stop();
    let exit_lines = if term.mode() == ScreenMode::Fullscreen { Some(app.all_lines()) } else { None };
    term.release()?;
    if let Some(lines) = exit_lines {
        let mut out = io::stdout().lock();
        for l in &lines {
            screen::inline::write_line(&mut out, l)?;
            io::Write::write_all(&mut out, b"\r\n")?;
        }
        io::Write::flush(&mut out)?;
    }
    Ok(())
}

fn event(app: &mut App, term: &mut Term, ev: Event) -> io::Result<()> {
    match ev {
        Event::Key(k) if k.kind != KeyEventKind::Release => app.key(&k),
        Event::Paste(s) => app.paste(&s),
        Event::Mouse(m) => match m.kind {
            MouseEventKind::ScrollUp => app.wheel(true),
            MouseEventKind::ScrollDown => app.wheel(false),
            _ => {}
        },
        Event::Resize(w, h) => term.resized(app, w, h)?,
        _ => {}
    }
    Ok(())
}

fn effect(app: &mut App, term: &mut Term, ctl: &input::InputControl, e: Effect) -> io::Result<()> {
    match e {
        Effect::Copy(text) => effects::copy(&mut io::stdout(), &text),
        Effect::PasteClipboard => match effects::paste_clipboard() {
            Some(t) => app.insert_text(&t),
            None => app.notify(Level::Info, crate::text::CLIPBOARD_EMPTY),
        },
        Effect::Suspend => {
            ctl.pause();
            term.release()?;
            effects::suspend();
            term.reacquire(app)?;
            ctl.resume();
        }
        Effect::ExternalEditor(text) => {
            ctl.pause();
            term.release()?;
            let result = effects::external_editor(&text);
            term.reacquire(app)?;
            ctl.resume();
            match result {
                Ok(t) => app.set_prompt(&t),
                Err(e) => app.notify(Level::Error, &crate::text::error_line(&e.to_string())),
            }
        }
    }
    Ok(())
}

impl App {
    /// Every line of the transcript at the last width (printed when
    /// fullscreen ends, so the session stays in the scrollback).
    pub fn all_lines(&mut self) -> Vec<ratatui::text::Line<'static>> {
        let width = self.width.max(1);
        let expanded = self.expanded;
        let show = self.show_thinking;
        let ctx = crate::transcript::Ctx {
            theme: &self.theme,
            width,
            expanded,
            show_thinking: show,
            home: self.home.as_deref(),
            expand_key: &self.expand_key,
            now: Instant::now(),
        };
        let h = self.transcript.height(&ctx);
        self.transcript.window(&ctx, 0, h)
    }
}
