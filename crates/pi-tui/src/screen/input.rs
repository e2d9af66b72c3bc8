//! Terminal input on a thread of its own (crossterm reads block), handed to
//! the UI's task through a channel. It can be paused while another program
//! (an external editor) owns the terminal.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ratatui::crossterm::event::{self, Event};
use tokio::sync::mpsc;

/// How long one wait for input lasts before the thread checks its flags.
pub const INPUT_POLL: Duration = Duration::from_millis(250);

/// The input thread's controls.
#[derive(Clone, Default)]
pub struct InputControl {
    stop: Arc<AtomicBool>,
    pause: Arc<AtomicBool>,
    paused: Arc<AtomicBool>,
}

impl InputControl {
    /// Stop reading until [`InputControl::resume`]; returns once the thread is idle.
    pub fn pause(&self) {
        self.pause.store(true, Ordering::SeqCst);
        for _ in 0..50 {
            if self.paused.load(Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Read again.
    pub fn resume(&self) {
        self.pause.store(false, Ordering::SeqCst);
    }

    /// End the thread.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Start reading terminal events into a channel.
pub fn spawn() -> (mpsc::UnboundedReceiver<Event>, InputControl) {
    let (tx, rx) = mpsc::unbounded_channel();
    let ctl = InputControl::default();
    let c = ctl.clone();
    let spawned = std::thread::Builder::new().name("pi-tui-input".into()).spawn(move || {
        while !c.stop.load(Ordering::SeqCst) {
            if c.pause.load(Ordering::SeqCst) {
                c.paused.store(true, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            c.paused.store(false, Ordering::SeqCst);
            match event::poll(INPUT_POLL) {
                Ok(true) => match event::read() {
                    Ok(ev) => {
                        if tx.send(ev).is_err() {
                            break;
                        }
                    }
                    Err(_) => break,
                },
                Ok(false) => {}
                Err(_) => break,
            }
        }
    });
    if spawned.is_err() {
        ctl.stop();
    }
    (rx, ctl)
}
