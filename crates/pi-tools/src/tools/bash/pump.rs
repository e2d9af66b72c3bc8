//! Reading a command's two pipes: [`pump`] reads them on its own thread,
//! stdout first when both have output (as the reference); once told the shell
//! exited it reads on only while output keeps coming, and never past a limit,
//! so a background process that keeps a pipe open cannot hold the tool.

use std::io::PipeReader;
use std::os::fd::OwnedFd;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::io::Errno;

use super::accumulator::Accumulator;
use super::process::lock;
use crate::limits::{BASH_EXIT_DRAIN_MAX_MS, BASH_EXIT_GRACE_MS};

/// Bytes asked of the kernel for the output pipe (fewer wake-ups for chatty commands).
const PIPE_SIZE: usize = 1024 * 1024;
/// Bytes read from the pipe at once.
const READ_BUFFER: usize = 256 * 1024;
/// Longest pause between output becoming readable after a quiet spell and
/// reading it, while the shell runs (see [`pump`]); the pause ends when the
/// shell exits.
const READ_SETTLE_MAX: Duration = Duration::from_millis(20);
/// How often that pause looks whether the shell exited.
const READ_SETTLE_STEP: Duration = Duration::from_millis(1);
/// Reads from one pipe before the reader looks at the other and at the clock.
const READS_PER_TURN: usize = 32;
/// Longest sleep of the reader while it waits for output, so it notices a stop request.
const POLL_TICK: Duration = Duration::from_millis(50);

/// Tells [`pump`] when the shell exited: from then on it reads only while
/// output keeps coming (each chunk extends the wait by the grace period), and
/// never past the drain limit.
#[derive(Debug, Default)]
pub(crate) struct StopSignal {
    exited_at: Mutex<Option<Instant>>,
}

impl StopSignal {
    /// The shell exited at `at`.
    pub(crate) fn shell_exited(&self, at: Instant) {
        *self.exited_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(at);
    }

    fn exited_at(&self) -> Option<Instant> {
        *self.exited_at.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// When [`pump`] stops reading, the shell having exited at `exited` and the
/// last output having come at `last_data`: after `grace` without output, and
/// at the latest `drain_max` after the exit.
fn stop_time(exited: Instant, last_data: Option<Instant>, grace: Duration, drain_max: Duration) -> Instant {
    let idle_from = last_data.map_or(exited, |d| d.max(exited));
    (idle_from + grace).min(exited + drain_max)
}

/// One pipe being read: its descriptor while open.
struct Source {
    fd: Option<OwnedFd>,
    nonblocking: bool,
}

impl Source {
    fn new(reader: PipeReader) -> Self {
        let fd: OwnedFd = reader.into();
        let _ = rustix::pipe::fcntl_setpipe_size(&fd, PIPE_SIZE);
        let nonblocking = rustix::io::ioctl_fionbio(&fd, true).is_ok();
        Source { fd: Some(fd), nonblocking }
    }

    /// Read what is there now into `acc` (up to [`READS_PER_TURN`] reads when
    /// non-blocking, one otherwise, so a flood cannot keep the reader from
    /// its stop time); closes the source at the end of its output. Whether
    /// anything came.
    fn drain(&mut self, buf: &mut [u8], acc: &Mutex<Accumulator>) -> bool {
        let mut got = false;
        let mut reads = 0;
        while let Some(fd) = &self.fd
            && reads < READS_PER_TURN
        {
            reads += 1;
            match rustix::io::read(fd, &mut *buf) {
                Ok(0) => self.fd = None,
                Ok(n) => {
                    lock(acc).push(&buf[..n]);
                    got = true;
                    if !self.nonblocking {
                        break;
                    }
                }
                Err(Errno::INTR) => {}
                Err(Errno::AGAIN) => break,
                Err(_) => self.fd = None,
            }
        }
        got
    }
}

/// Read `outputs` (stdout, stderr) into `acc` until both end or the stop
/// signal says the shell is gone and the output has gone quiet, then close
/// the pipes and finish the accumulator. When both have output waiting,
/// stdout's is taken first, as the reference reads its two pipes. Blocking:
/// run it on its own thread.
pub(crate) fn pump(outputs: [PipeReader; 2], acc: &Mutex<Accumulator>, stop: &StopSignal) {
    let grace = Duration::from_millis(BASH_EXIT_GRACE_MS);
    let drain_max = Duration::from_millis(BASH_EXIT_DRAIN_MAX_MS);
    let mut sources = outputs.map(Source::new);
    let mut buf = vec![0u8; READ_BUFFER];
    let mut last_data = None;
    let mut quiet = true;
    loop {
        let now = Instant::now();
        let wait = match stop.exited_at() {
            Some(exited) => {
                let until = stop_time(exited, last_data, grace, drain_max);
                if now >= until {
                    // What is in the pipes now was written before now: a
                    // reader that ran late (a busy machine) still takes it,
                    // once and within the per-turn bound.
                    drain_ready(&mut sources, &mut buf, acc);
                    break;
                }
                (until - now).min(POLL_TICK)
            }
            None => POLL_TICK,
        };
        if sources.iter().all(|s| s.fd.is_none()) {
            break;
        }
        let Some(mut ready) = readable(&sources, wait) else { break };
        if !ready.iter().any(|r| *r) {
            quiet = true;
            continue;
        }
        if quiet {
            // Output after a quiet spell: let the rest of the burst arrive
            // (until the shell exits, within a bound) before reading, so
            // stdout and stderr written together come out as the reference
            // reads them, stdout's first. A steady stream is not slowed.
            let until = Instant::now() + READ_SETTLE_MAX;
            while stop.exited_at().is_none() && Instant::now() < until {
                std::thread::sleep(READ_SETTLE_STEP);
            }
            ready = readable(&sources, Duration::ZERO).unwrap_or(ready);
        }
        quiet = false;
        for (source, is_ready) in sources.iter_mut().zip(ready) {
            if is_ready && source.drain(&mut buf, acc) {
                last_data = Some(Instant::now());
            }
        }
    }
    drop(sources);
    lock(acc).finish();
}

/// One bounded read of every source that has output waiting now.
fn drain_ready(sources: &mut [Source; 2], buf: &mut [u8], acc: &Mutex<Accumulator>) {
    if let Some(ready) = readable(sources, Duration::ZERO) {
        for (source, is_ready) in sources.iter_mut().zip(ready) {
            if is_ready {
                source.drain(buf, acc);
            }
        }
    }
}

/// Which sources have output (or their end) waiting, after waiting up to
/// `wait` for one; closed sources never do. `None` when polling fails.
fn readable(sources: &[Source; 2], wait: Duration) -> Option<[bool; 2]> {
    let open: Vec<usize> = (0..sources.len()).filter(|i| sources[*i].fd.is_some()).collect();
    let mut fds: Vec<PollFd<'_>> =
        sources.iter().filter_map(|s| s.fd.as_ref()).map(|fd| PollFd::new(fd, PollFlags::IN)).collect();
    let ts = Timespec { tv_sec: 0, tv_nsec: wait.as_nanos().try_into().unwrap_or(0) };
    loop {
        match poll(&mut fds, Some(&ts)) {
            Ok(_) => break,
            Err(Errno::INTR) => {}
            Err(_) => return None,
        }
    }
    let mut ready = [false; 2];
    for (i, f) in open.into_iter().zip(&fds) {
        ready[i] = !f.revents().is_empty();
    }
    Some(ready)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_after_exit_stops_when_quiet_or_at_the_drain_limit() {
        let t0 = Instant::now();
        let (g, max) = (Duration::from_millis(100), Duration::from_millis(1000));
        assert_eq!(stop_time(t0, None, g, max), t0 + g);
        assert_eq!(stop_time(t0, Some(t0 - g), g, max), t0 + g, "output before the exit does not count");
        let late = t0 + Duration::from_millis(450);
        assert_eq!(stop_time(t0, Some(late), g, max), late + g);
        assert_eq!(stop_time(t0, Some(t0 + Duration::from_millis(950)), g, max), t0 + max);
    }

    #[test]
    fn a_reader_that_starts_after_the_grace_still_takes_what_was_written() {
        // The shell wrote and exited long before the reader ran (a loaded
        // machine): the output waiting in the pipes is not lost.
        let (out_r, mut out_w) = std::io::pipe().unwrap();
        let (err_r, mut err_w) = std::io::pipe().unwrap();
        std::io::Write::write_all(&mut out_w, b"a b\n").unwrap();
        std::io::Write::write_all(&mut err_w, b"warn\n").unwrap();
        drop((out_w, err_w));
        let stop = StopSignal::default();
        stop.shell_exited(Instant::now() - Duration::from_secs(5));
        let dir = tempfile::tempdir().unwrap();
        let acc =
            Mutex::new(Accumulator::new("pi-bash", dir.path().to_path_buf(), crate::output_file::OutputFiles::new()));
        pump([out_r, err_r], &acc, &stop);
        assert_eq!(lock(&acc).shown().text, "a b\nwarn\n");
    }
}
