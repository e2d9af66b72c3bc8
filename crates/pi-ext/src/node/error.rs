//! Node's error shape for system calls: `code`, `errno`, `syscall`, `path`
//! and the message `<CODE>: <description>, <syscall> '<path>'`.

use std::io;

use crate::text::node as t;

/// A failed system call, as Node reports it (boxed: errors stay small to pass around).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodeError(Box<Fields>);

impl std::ops::Deref for NodeError {
    type Target = Fields;
    fn deref(&self) -> &Fields {
        &self.0
    }
}

impl std::ops::DerefMut for NodeError {
    fn deref_mut(&mut self) -> &mut Fields {
        &mut self.0
    }
}

/// The fields of a [`NodeError`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fields {
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
        Self(Box::new(Fields {
            code,
            errno: -errno,
            syscall: syscall.to_string(),
            path: path.map(str::to_string),
            dest: dest.map(str::to_string),
            message,
        }))
    }

    /// An invalid argument (Node's `ERR_INVALID_ARG_TYPE` family): only a code and a message.
    pub fn invalid(code: &str, message: String) -> Self {
        Self(Box::new(Fields {
            code: code.to_string(),
            errno: 0,
            syscall: String::new(),
            path: None,
            dest: None,
            message,
        }))
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
