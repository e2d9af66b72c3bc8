//! pi's end of a session sandbox's control socket.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::Duration;

use rustix::event::{PollFd, PollFlags, Timespec, poll};

use super::wire::{self, Event};
use crate::Command;

/// pi's end of a session server's socket. Messages may be sent from any
/// thread; events are read by one.
#[derive(Debug)]
pub struct Channel {
    sock: OwnedFd,
}

/// A new channel and the server's end (close-on-exec: give it to the
/// server as its stdin).
pub fn channel() -> io::Result<(Channel, OwnedFd)> {
    let (mine, theirs) = wire::pair()?;
    Ok((Channel { sock: mine }, theirs))
}

impl Channel {
    /// Wait up to `timeout` for the server to be ready; `false` when it
    /// ended or did not answer in time.
    pub fn wait_ready(&self, timeout: Duration) -> io::Result<bool> {
        let ts = Timespec {
            tv_sec: timeout.as_secs().try_into().unwrap_or(i64::MAX),
            tv_nsec: timeout.subsec_nanos().into(),
        };
        let mut fds = [PollFd::new(&self.sock, PollFlags::IN)];
        loop {
            match poll(&mut fds, Some(&ts)) {
                Ok(0) => return Ok(false),
                Ok(_) => break,
                Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(wire::recv_event(self.sock.as_fd())? == Some(Event::Ready))
    }

    /// Run `command` as command `id`, writing to `stdout` and `stderr`.
    pub fn run(&self, id: u64, command: &Command, stdout: BorrowedFd<'_>, stderr: BorrowedFd<'_>) -> io::Result<()> {
        wire::send_run(self.sock.as_fd(), id, command, stdout, stderr)
    }

    /// Kill command `id`'s process group.
    pub fn kill(&self, id: u64) -> io::Result<()> {
        wire::send_kill(self.sock.as_fd(), id)
    }

    /// The next event (blocking); `None` once the server is gone.
    pub fn next_event(&self) -> io::Result<Option<Event>> {
        wire::recv_event(self.sock.as_fd())
    }

    /// Close the connection both ways: the server kills everything in its
    /// sandbox and ends; a reader in [`Channel::next_event`] sees the end.
    pub fn close(&self) {
        let _ = rustix::net::shutdown(&self.sock, rustix::net::Shutdown::Both);
    }
}

impl AsFd for Channel {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.sock.as_fd()
    }
}
