//! Node's error shape for system calls: `code`, `errno`, `syscall`, `path`
//! and the message `<CODE>: <description>, <syscall> '<path>'`.

use std::io;

use crate::text::node as t;

/// A failed system call, as Node reports it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodeError {
    /// `ENOENT`, `EACCES`, … (`EUNKNOWN` for an error without an errno).
    pub code: String,
    /// The negated errno, as Node gives it.
    pub errno: i32,
    /// The system call (`open`, `stat`, `spawn …`).
    pub syscall: String,
    /// The path it was about.
    pub path: Option<String>,
    /// The second path (rename, copy, link).
    pub dest: Option<String>,
    /// The whole message.
    pub message: String,
}

impl NodeError {
    /// An I/O error of `syscall` on `path`.
    pub fn io(e: &io::Error, syscall: &str, path: Option<&str>) -> Self {
        Self::io2(e, syscall, path, None)
    }

    /// An I/O error of `syscall` from `path` to `dest`.
    pub fn io2(e: &io::Error, syscall: &str, path: Option<&str>, dest: Option<&str>) -> Self {
        let errno = e.raw_os_error().unwrap_or(0);
        let (code, description) = t::errno(errno);
        let code = if errno == 0 { t::UNKNOWN_CODE.to_string() } else { code.to_string() };
        let description = if errno == 0 { e.to_string() } else { description.to_string() };
        let message = t::syscall_message(&code, &description, syscall, path, dest);
        Self {
            code,
            errno: -errno,
            syscall: syscall.to_string(),
            path: path.map(str::to_string),
            dest: dest.map(str::to_string),
            message,
        }
    }

    /// An invalid argument (Node's `ERR_INVALID_ARG_TYPE` family): only a code and a message.
    pub fn invalid(code: &str, message: String) -> Self {
        Self { code: code.to_string(), errno: 0, syscall: String::new(), path: None, dest: None, message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_reads_like_node() {
        let e = NodeError::io(&io::Error::from_raw_os_error(2), "open", Some("/nope"));
        assert_eq!(e.message, "ENOENT: no such file or directory, open '/nope'");
        assert_eq!((e.code.as_str(), e.errno), ("ENOENT", -2));
        let e = NodeError::io2(&io::Error::from_raw_os_error(18), "rename", Some("/a"), Some("/b"));
        assert_eq!(e.message, "EXDEV: cross-device link not permitted, rename '/a' -> '/b'");
        let e = NodeError::io(&io::Error::other("odd"), "read", None);
        assert_eq!(e.code, "EUNKNOWN");
        assert_eq!(e.message, "EUNKNOWN: odd, read");
    }
}
