//! The session sandbox's messages (see [`super::session`]), over a unix
//! `SOCK_SEQPACKET` pair (one message per send, descriptors beside it).
//!
//! pi to the server: *run* (`R`, a command id; descriptors: the request in a
//! memfd, then the command's stdout and stderr) and *kill* (`K`, an id). The
//! server to pi: *ready* (`Y`, once its restrictions hold) and *exit* (`X`,
//! an id and the exit code, 128 + n after signal n). The request itself is
//! the program, the working folder, the arguments and the environment, each
//! a length-prefixed byte string, in a memfd so no size limit of a socket
//! message applies.

use std::ffi::OsString;
use std::io::{self, IoSlice, IoSliceMut, Read, Seek, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer, SendAncillaryMessage, SendFlags,
};

use crate::Command;
use crate::limits::MAX_SESSION_REQUEST_BYTES;

const RUN: u8 = b'R';
const KILL: u8 = b'K';
const READY: u8 = b'Y';
const EXIT: u8 = b'X';

/// Longest message (a tag, an id, a code).
const MESSAGE_BYTES: usize = 17;

/// A message from pi to the server.
#[derive(Debug)]
pub(crate) enum ToServer {
    /// Run a command: its id, the request (a memfd) and its stdout and stderr.
    Run { id: u64, request: OwnedFd, stdout: OwnedFd, stderr: OwnedFd },
    /// Kill the command's process group.
    Kill { id: u64 },
}

/// A message from the server to pi.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The server's restrictions hold; it takes commands.
    Ready,
    /// A command ended with this exit code (128 + n after signal n).
    Exit {
        /// The command's id.
        id: u64,
        /// Its exit code.
        code: i64,
    },
}

/// A new connected pair: pi's end, the server's end (both close-on-exec).
pub(crate) fn pair() -> io::Result<(OwnedFd, OwnedFd)> {
    use rustix::net::{AddressFamily, SocketFlags, SocketType, socketpair};
    Ok(socketpair(AddressFamily::UNIX, SocketType::SEQPACKET, SocketFlags::CLOEXEC, None)?)
}

fn send(sock: BorrowedFd<'_>, bytes: &[u8], fds: &[BorrowedFd<'_>]) -> io::Result<()> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(3))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !fds.is_empty() && !control.push(SendAncillaryMessage::ScmRights(fds)) {
        return Err(io::Error::other("too many descriptors"));
    }
    loop {
        match rustix::net::sendmsg(sock, &[IoSlice::new(bytes)], &mut control, SendFlags::NOSIGNAL) {
            Ok(_) => return Ok(()),
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
}

/// One message and the descriptors that came with it; `None` at the end.
fn recv(sock: BorrowedFd<'_>) -> io::Result<Option<(Vec<u8>, Vec<OwnedFd>)>> {
    let mut buf = [0u8; MESSAGE_BYTES + 1];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(3))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let got = loop {
        match rustix::net::recvmsg(sock, &mut [IoSliceMut::new(&mut buf)], &mut control, RecvFlags::CMSG_CLOEXEC) {
            Ok(r) => break r,
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    };
    let mut fds = Vec::new();
    for m in control.drain() {
        if let RecvAncillaryMessage::ScmRights(it) = m {
            fds.extend(it);
        }
    }
    if got.bytes == 0 {
        return Ok(None);
    }
    Ok(Some((buf[..got.bytes.min(buf.len())].to_vec(), fds)))
}

fn id_of(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(1..9)?.try_into().ok()?))
}

/// Ask the server to run `command` (its id `id`) with these stdout and stderr.
pub(crate) fn send_run(
    sock: BorrowedFd<'_>,
    id: u64,
    command: &Command,
    stdout: BorrowedFd<'_>,
    stderr: BorrowedFd<'_>,
) -> io::Result<()> {
    let request = write_request(command)?;
    let mut msg = vec![RUN];
    msg.extend(id.to_le_bytes());
    send(sock, &msg, &[request.as_fd(), stdout, stderr])
}

/// Ask the server to kill command `id`.
pub(crate) fn send_kill(sock: BorrowedFd<'_>, id: u64) -> io::Result<()> {
    let mut msg = vec![KILL];
    msg.extend(id.to_le_bytes());
    send(sock, &msg, &[])
}

/// The server: tell pi an event.
pub(crate) fn send_event(sock: BorrowedFd<'_>, event: Event) -> io::Result<()> {
    match event {
        Event::Ready => send(sock, &[READY], &[]),
        Event::Exit { id, code } => {
            let mut msg = vec![EXIT];
            msg.extend(id.to_le_bytes());
            msg.extend(code.to_le_bytes());
            send(sock, &msg, &[])
        }
    }
}

/// pi: the next event; `None` when the server is gone. A message that makes
/// no sense is skipped.
pub(crate) fn recv_event(sock: BorrowedFd<'_>) -> io::Result<Option<Event>> {
    loop {
        let Some((bytes, _fds)) = recv(sock)? else { return Ok(None) };
        match bytes.first() {
            Some(&READY) => return Ok(Some(Event::Ready)),
            Some(&EXIT) if bytes.len() == MESSAGE_BYTES => {
                let (Some(id), Ok(code)) = (id_of(&bytes), bytes[9..17].try_into().map(i64::from_le_bytes)) else {
                    continue;
                };
                return Ok(Some(Event::Exit { id, code }));
            }
            _ => {}
        }
    }
}

/// The server: the next request; `None` when pi is gone. A message that
/// makes no sense is skipped (its descriptors closed).
pub(crate) fn recv_request(sock: BorrowedFd<'_>) -> io::Result<Option<ToServer>> {
    loop {
        let Some((bytes, fds)) = recv(sock)? else { return Ok(None) };
        let Some(id) = id_of(&bytes).filter(|_| bytes.len() == 9) else { continue };
        match bytes[0] {
            KILL => return Ok(Some(ToServer::Kill { id })),
            RUN if fds.len() == 3 => {
                let mut it = fds.into_iter();
                if let (Some(request), Some(stdout), Some(stderr)) = (it.next(), it.next(), it.next()) {
                    return Ok(Some(ToServer::Run { id, request, stdout, stderr }));
                }
            }
            _ => {}
        }
    }
}

fn put(out: &mut Vec<u8>, bytes: &[u8]) -> io::Result<()> {
    let n = u32::try_from(bytes.len()).map_err(|_| io::Error::other("request too large"))?;
    out.extend(n.to_le_bytes());
    out.extend(bytes);
    Ok(())
}

/// `command` encoded: program, cwd, argument count, arguments, variable
/// count, then each name and value.
pub(crate) fn encode(command: &Command) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    put(&mut out, command.program.as_os_str().as_bytes())?;
    put(&mut out, command.cwd.as_os_str().as_bytes())?;
    put(&mut out, &(command.args.len() as u64).to_le_bytes())?;
    for a in &command.args {
        put(&mut out, a.as_bytes())?;
    }
    put(&mut out, &(command.env.len() as u64).to_le_bytes())?;
    for (k, v) in &command.env {
        put(&mut out, k.as_bytes())?;
        put(&mut out, v.as_bytes())?;
    }
    if out.len() > MAX_SESSION_REQUEST_BYTES {
        return Err(io::Error::other("request too large"));
    }
    Ok(out)
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn bytes(&mut self) -> Option<Vec<u8>> {
        let n = u32::from_le_bytes(self.0.get(..4)?.try_into().ok()?) as usize;
        let item = self.0.get(4..4usize.checked_add(n)?)?.to_vec();
        self.0 = &self.0[4 + n..];
        Some(item)
    }

    fn count(&mut self) -> Option<usize> {
        let b = self.bytes()?;
        usize::try_from(u64::from_le_bytes(b.as_slice().try_into().ok()?)).ok()
    }
}

/// The inverse of [`encode`]; `None` for anything malformed.
pub(crate) fn decode(bytes: &[u8]) -> Option<Command> {
    let mut r = Reader(bytes);
    let program = PathBuf::from(OsString::from_vec(r.bytes()?));
    let cwd = PathBuf::from(OsString::from_vec(r.bytes()?));
    let n = r.count()?;
    let mut args = Vec::new();
    for _ in 0..n {
        args.push(OsString::from_vec(r.bytes()?));
    }
    let n = r.count()?;
    let mut env = Vec::new();
    for _ in 0..n {
        env.push((OsString::from_vec(r.bytes()?), OsString::from_vec(r.bytes()?)));
    }
    r.0.is_empty().then_some(Command { program, args, cwd, env })
}

fn write_request(command: &Command) -> io::Result<OwnedFd> {
    let bytes = encode(command)?;
    let fd = rustix::fs::memfd_create("pi-sandbox-request", rustix::fs::MemfdFlags::CLOEXEC)?;
    let mut f = std::fs::File::from(fd);
    f.write_all(&bytes)?;
    Ok(f.into())
}

/// The server: the request in `fd`, read from its start.
pub(crate) fn read_request(fd: OwnedFd) -> Option<Command> {
    let mut f = std::fs::File::from(fd);
    f.seek(io::SeekFrom::Start(0)).ok()?;
    let mut bytes = Vec::new();
    f.take(MAX_SESSION_REQUEST_BYTES as u64 + 1).read_to_end(&mut bytes).ok()?;
    decode(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command() -> Command {
        Command {
            program: "/bin/bash".into(),
            args: vec!["-c".into(), OsString::from_vec(b"echo \xff".to_vec()), "".into()],
            cwd: "/p".into(),
            env: vec![("A".into(), "1".into()), ("EMPTY".into(), "".into())],
        }
    }

    #[test]
    fn requests_round_trip_and_bad_ones_are_refused() {
        let c = command();
        let bytes = encode(&c).unwrap();
        assert_eq!(decode(&bytes), Some(c));
        for cut in 0..bytes.len() {
            assert_eq!(decode(&bytes[..cut]), None, "cut at {cut}");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(decode(&long), None);
        let mut huge_count = bytes;
        huge_count[4 + 9 + 4 + 2 + 4..4 + 9 + 4 + 2 + 4 + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(decode(&huge_count), None);
    }

    #[test]
    fn messages_and_descriptors_cross_the_pair() {
        let (pi, server) = pair().unwrap();
        let (r, w) = std::io::pipe().unwrap();
        let w: OwnedFd = w.into();
        send_run(pi.as_fd(), 7, &command(), w.as_fd(), w.as_fd()).unwrap();
        send_kill(pi.as_fd(), 7).unwrap();
        send(pi.as_fd(), b"nonsense", &[]).unwrap();
        send_kill(pi.as_fd(), 8).unwrap();
        match recv_request(server.as_fd()).unwrap() {
            Some(ToServer::Run { id: 7, request, stdout, .. }) => {
                assert_eq!(read_request(request), Some(command()));
                drop(w);
                std::fs::File::from(stdout).write_all(b"through").unwrap();
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(recv_request(server.as_fd()).unwrap(), Some(ToServer::Kill { id: 7 })));
        assert!(matches!(recv_request(server.as_fd()).unwrap(), Some(ToServer::Kill { id: 8 })), "nonsense skipped");
        let mut got = String::new();
        std::io::Read::read_to_string(&mut { r }, &mut got).unwrap();
        assert_eq!(got, "through");
        send_event(server.as_fd(), Event::Ready).unwrap();
        send_event(server.as_fd(), Event::Exit { id: 7, code: 137 }).unwrap();
        drop(server);
        assert_eq!(recv_event(pi.as_fd()).unwrap(), Some(Event::Ready));
        assert_eq!(recv_event(pi.as_fd()).unwrap(), Some(Event::Exit { id: 7, code: 137 }));
        assert_eq!(recv_event(pi.as_fd()).unwrap(), None);
    }
}
