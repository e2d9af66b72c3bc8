//! `node_error(err, syscall, path)`: an OS error in Node.js's words.
//!
//! The reference runs on Node.js, whose file-system errors read
//! `<CODE>: <description>, <syscall> '<path>'` (for example
//! `ENOENT: no such file or directory, access '/abs/path'`). The code and the
//! description come from libuv's error table, not from the C library's
//! `strerror` (`ELOOP` is "too many symbolic links encountered", not "Too many
//! levels of symbolic links"), so this module carries that table.
//!
//! Use [`node_error`] for a `std::io::Error` and [`node_errno_error`] for a
//! `rustix` errno; pass the syscall Node would name (`access`, `open`, `read`,
//! `scandir`, `mkdir`, …) and the absolute path, or `None` where Node shows no
//! path (reads on an open descriptor).

use std::path::Path;

use rustix::io::Errno;

/// libuv's `(CODE, description)` for the errors file operations can meet.
const TABLE: &[(Errno, &str, &str)] = &[
    (Errno::TOOBIG, "E2BIG", "argument list too long"),
    (Errno::ACCESS, "EACCES", "permission denied"),
    (Errno::ADDRINUSE, "EADDRINUSE", "address already in use"),
    (Errno::ADDRNOTAVAIL, "EADDRNOTAVAIL", "address not available"),
    (Errno::AFNOSUPPORT, "EAFNOSUPPORT", "address family not supported"),
    (Errno::AGAIN, "EAGAIN", "resource temporarily unavailable"),
    (Errno::ALREADY, "EALREADY", "connection already in progress"),
    (Errno::BADF, "EBADF", "bad file descriptor"),
    (Errno::BUSY, "EBUSY", "resource busy or locked"),
    (Errno::CANCELED, "ECANCELED", "operation canceled"),
    (Errno::CONNABORTED, "ECONNABORTED", "software caused connection abort"),
    (Errno::CONNREFUSED, "ECONNREFUSED", "connection refused"),
    (Errno::CONNRESET, "ECONNRESET", "connection reset by peer"),
    (Errno::DESTADDRREQ, "EDESTADDRREQ", "destination address required"),
    (Errno::EXIST, "EEXIST", "file already exists"),
    (Errno::FAULT, "EFAULT", "bad address in system call argument"),
    (Errno::FBIG, "EFBIG", "file too large"),
    (Errno::HOSTUNREACH, "EHOSTUNREACH", "host is unreachable"),
    (Errno::INTR, "EINTR", "interrupted system call"),
    (Errno::INVAL, "EINVAL", "invalid argument"),
    (Errno::IO, "EIO", "i/o error"),
    (Errno::ISCONN, "EISCONN", "socket is already connected"),
    (Errno::ISDIR, "EISDIR", "illegal operation on a directory"),
    (Errno::LOOP, "ELOOP", "too many symbolic links encountered"),
    (Errno::MFILE, "EMFILE", "too many open files"),
    (Errno::MSGSIZE, "EMSGSIZE", "message too long"),
    (Errno::NAMETOOLONG, "ENAMETOOLONG", "name too long"),
    (Errno::NETDOWN, "ENETDOWN", "network is down"),
    (Errno::NETUNREACH, "ENETUNREACH", "network is unreachable"),
    (Errno::NFILE, "ENFILE", "file table overflow"),
    (Errno::NOBUFS, "ENOBUFS", "no buffer space available"),
    (Errno::NODEV, "ENODEV", "no such device"),
    (Errno::NOENT, "ENOENT", "no such file or directory"),
    (Errno::NOMEM, "ENOMEM", "not enough memory"),
    (Errno::NOPROTOOPT, "ENOPROTOOPT", "protocol not available"),
    (Errno::NOSPC, "ENOSPC", "no space left on device"),
    (Errno::NOSYS, "ENOSYS", "function not implemented"),
    (Errno::NOTCONN, "ENOTCONN", "socket is not connected"),
    (Errno::NOTDIR, "ENOTDIR", "not a directory"),
    (Errno::NOTEMPTY, "ENOTEMPTY", "directory not empty"),
    (Errno::NOTSOCK, "ENOTSOCK", "socket operation on non-socket"),
    (Errno::NOTSUP, "ENOTSUP", "operation not supported on socket"),
    (Errno::OVERFLOW, "EOVERFLOW", "value too large for defined data type"),
    (Errno::PERM, "EPERM", "operation not permitted"),
    (Errno::PIPE, "EPIPE", "broken pipe"),
    (Errno::PROTO, "EPROTO", "protocol error"),
    (Errno::PROTONOSUPPORT, "EPROTONOSUPPORT", "protocol not supported"),
    (Errno::PROTOTYPE, "EPROTOTYPE", "protocol wrong type for socket"),
    (Errno::RANGE, "ERANGE", "result too large"),
    (Errno::ROFS, "EROFS", "read-only file system"),
    (Errno::SPIPE, "ESPIPE", "invalid seek"),
    (Errno::SRCH, "ESRCH", "no such process"),
    (Errno::TIMEDOUT, "ETIMEDOUT", "connection timed out"),
    (Errno::TXTBSY, "ETXTBSY", "text file is busy"),
    (Errno::XDEV, "EXDEV", "cross-device link not permitted"),
    (Errno::NXIO, "ENXIO", "no such device or address"),
    (Errno::MLINK, "EMLINK", "too many links"),
    (Errno::NOTTY, "ENOTTY", "inappropriate ioctl for device"),
    (Errno::ILSEQ, "EILSEQ", "illegal byte sequence"),
    (Errno::NOEXEC, "ENOEXEC", "exec format error"),
    #[cfg(any(target_os = "linux", target_os = "android"))]
    (Errno::NODATA, "ENODATA", "no data available"),
    #[cfg(any(target_os = "linux", target_os = "android"))]
    (Errno::REMOTEIO, "EREMOTEIO", "remote I/O error"),
    #[cfg(any(target_os = "linux", target_os = "android"))]
    (Errno::HOSTDOWN, "EHOSTDOWN", "host is down"),
];

/// libuv's code and description for a raw OS error number
/// (`UNKNOWN`/`unknown error` for numbers libuv does not name).
pub(crate) fn code_and_description(raw: i32) -> (&'static str, &'static str) {
    TABLE
        .iter()
        .find(|(e, _, _)| e.raw_os_error() == raw)
        .map(|(_, code, desc)| (*code, *desc))
        .unwrap_or(("UNKNOWN", "unknown error"))
}

/// Node's text for a failed `syscall`: `<CODE>: <description>, <syscall> '<path>'`
/// (without the path part when `path` is `None`). Errors that carry no OS
/// error number keep their own text.
pub(crate) fn node_error(err: &std::io::Error, syscall: &str, path: Option<&Path>) -> String {
    match err.raw_os_error() {
        Some(raw) => format_raw(raw, syscall, path),
        None => err.to_string(),
    }
}

/// [`node_error`] for an errno returned by `rustix`.
pub(crate) fn node_errno_error(errno: Errno, syscall: &str, path: Option<&Path>) -> String {
    format_raw(errno.raw_os_error(), syscall, path)
}

fn format_raw(raw: i32, syscall: &str, path: Option<&Path>) -> String {
    let (code, description) = code_and_description(raw);
    let path = path.map(|p| p.to_string_lossy());
    crate::text::common::system_error(code, description, syscall, path.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_node() {
        let e = std::io::Error::from_raw_os_error(Errno::NOENT.raw_os_error());
        assert_eq!(
            node_error(&e, "access", Some(Path::new("/x/y"))),
            "ENOENT: no such file or directory, access '/x/y'"
        );
        let e = std::io::Error::from_raw_os_error(Errno::ISDIR.raw_os_error());
        assert_eq!(node_error(&e, "read", None), "EISDIR: illegal operation on a directory, read");
        assert_eq!(
            node_errno_error(Errno::LOOP, "access", Some(Path::new("/l"))),
            "ELOOP: too many symbolic links encountered, access '/l'"
        );
        assert_eq!(
            node_errno_error(Errno::ACCESS, "scandir", Some(Path::new("/d"))),
            "EACCES: permission denied, scandir '/d'"
        );
        assert_eq!(code_and_description(-7), ("UNKNOWN", "unknown error"));
        assert_eq!(code_and_description(99999), ("UNKNOWN", "unknown error"));
        let custom = std::io::Error::other("boom");
        assert_eq!(node_error(&custom, "read", None), "boom");
    }
}
