//! Aborting runs. An abort ends the run going on and every run already asked
//! for that has not started yet (a front end takes a [`RunTicket`] when it
//! accepts a prompt, before the run can start): an abort that lands between
//! the two is a state the run starts in, never lost.

use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

/// Aborts whatever run is current, and the runs asked for but not yet
/// started; cheap to clone and share.
#[derive(Clone, Default)]
pub struct AbortHandle(Arc<Mutex<State>>);

#[derive(Default)]
struct State {
    /// The signal of the current run.
    token: CancellationToken,
    /// Tickets handed out so far.
    issued: u64,
    /// Every ticket up to this one was aborted before (or while) its run went.
    aborted_through: u64,
}

/// A run asked for and maybe not started yet; see [`AbortHandle::ticket`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunTicket(u64);

impl AbortHandle {
    /// Abort the current run and every run ticketed so far.
    pub fn abort(&self) {
        if let Ok(mut s) = self.0.lock() {
            s.token.cancel();
            s.aborted_through = s.issued;
        }
    }

    /// A ticket for a run about to be asked for: an [`AbortHandle::abort`]
    /// from now on ends that run, even before it starts.
    pub fn ticket(&self) -> RunTicket {
        match self.0.lock() {
            Ok(mut s) => {
                s.issued += 1;
                RunTicket(s.issued)
            }
            Err(_) => RunTicket(0),
        }
    }

    /// The signal of the current run.
    pub(crate) fn token(&self) -> CancellationToken {
        self.0.lock().map(|s| s.token.clone()).unwrap_or_default()
    }

    /// A new signal that no earlier abort cancelled, made current.
    pub(crate) fn fresh(&self) -> CancellationToken {
        self.start(None)
    }

    /// The signal of a run starting now, made current: already cancelled
    /// when its ticket was aborted before the start.
    pub(crate) fn start(&self, ticket: Option<RunTicket>) -> CancellationToken {
        let t = CancellationToken::new();
        if let Ok(mut s) = self.0.lock() {
            if ticket.is_some_and(|RunTicket(n)| n <= s.aborted_through) {
                t.cancel();
            }
            s.token = t.clone();
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_abort_before_the_start_cancels_the_ticketed_run() {
        let h = AbortHandle::default();
        let ticket = h.ticket();
        h.abort();
        assert!(h.start(Some(ticket)).is_cancelled());
    }

    #[test]
    fn an_abort_while_idle_does_not_reach_a_later_run() {
        let h = AbortHandle::default();
        h.abort();
        let ticket = h.ticket();
        assert!(!h.start(Some(ticket)).is_cancelled());
        assert!(!h.fresh().is_cancelled());
    }

    #[test]
    fn an_abort_reaches_every_run_asked_for_so_far_and_the_current_one() {
        let h = AbortHandle::default();
        let running = h.start(None);
        let (a, b) = (h.ticket(), h.ticket());
        h.abort();
        assert!(running.is_cancelled());
        assert!(h.start(Some(a)).is_cancelled());
        assert!(h.start(Some(b)).is_cancelled());
        let c = h.ticket();
        assert!(!h.start(Some(c)).is_cancelled());
    }
}
