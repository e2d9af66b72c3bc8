//! Every user- or model-visible message of the extension host, in one place.

use std::time::Duration;

/// `Extension path does not exist: <path>` (as the reference).
pub fn path_missing(path: &str) -> String {
    format!("Extension path does not exist: {path}")
}

/// `Extension does not export a valid factory function: <path>` (as the reference).
pub fn not_a_factory(path: &str) -> String {
    format!("Extension does not export a valid factory function: {path}")
}

/// `Failed to load extension: <error>`: the factory or the module failed (as the reference).
pub fn load_failed(error: &str) -> String {
    format!("Failed to load extension: {error}")
}

/// TypeScript that did not parse: `ParseError: <message>` and, on the next
/// line, ` <path>:<line>:<column>` (the place when the parser named one).
pub fn parse_error(message: &str, path: &str, place: Option<(usize, usize)>) -> String {
    match place {
        Some((line, column)) => format!("ParseError: {message}\n {path}:{line}:{column}"),
        None => format!("ParseError: {message}\n {path}"),
    }
}

/// A folder given as an extension has no entry point.
pub fn no_entry_point(path: &str) -> String {
    format!("Extension folder has no index.ts, index.js or package.json \"pi.extensions\" entry: {path}")
}

/// The whole load error, as pi prints it: `Failed to load extension "<path>": <error>`.
pub fn load_error(path: &str, error: &str) -> String {
    format!("Failed to load extension \"{path}\": {error}")
}

/// A handler or tool ran JavaScript longer than the limit without pausing; the extension is stopped.
pub fn time_limit(path: &str, limit: Duration) -> String {
    format!(
        "Extension {path} exceeded its time limit ({} of JavaScript without pausing); the extension is stopped",
        human(limit)
    )
}

/// An extension's JavaScript heap reached its limit; the extension is stopped.
pub fn out_of_memory(path: &str, limit: usize) -> String {
    format!("Extension {path} ran out of memory (its limit is {}); the extension is stopped", bytes(limit))
}

/// The extension's engine has stopped (after a time limit, or at shutdown).
pub fn stopped(path: &str) -> String {
    format!("Extension {path} is not running")
}

/// A `tool_call` handler threw something that is not an `Error` (as the reference).
pub fn blocking_failure(value: &str) -> String {
    format!("Extension failed, blocking execution: {value}")
}

/// A handler failure reported on stderr (as the reference): `Extension error (<path>): <message>`.
pub fn extension_error(path: &str, message: &str) -> String {
    format!("Extension error ({path}): {message}")
}

/// A failing `project_trust` handler (as the reference): a warning, the next handler is asked.
pub fn project_trust_error(path: &str, message: &str) -> String {
    format!("Extension \"{path}\" project_trust error: {message}")
}

/// A module import the engine cannot satisfy: a Node.js built-in.
pub fn node_builtin(name: &str) -> String {
    format!("Node.js built-in module '{name}' is not available in pi's extension engine")
}

/// A bare import no `node_modules` folder up from the importer holds.
pub fn package_not_found(name: &str, importer: &str) -> String {
    format!(
        "Cannot find package '{name}' imported from {importer}: install it (npm install {name}) next to the extension"
    )
}

/// A package subpath its `exports` do not offer.
pub fn not_exported(package: &str, subpath: &str, importer: &str) -> String {
    format!("Package subpath '{subpath}' is not defined by \"exports\" of package '{package}' imported from {importer}")
}

/// A `#name` import no `imports` field maps.
pub fn import_not_defined(name: &str, importer: &str) -> String {
    format!("Package import specifier '{name}' is not defined in the package.json of {importer}")
}

/// An import that names no file.
pub fn module_not_found(name: &str, importer: &str) -> String {
    format!("Cannot find module '{name}' imported from {importer}")
}

/// An import that reaches a native addon (`.node`), which the engine cannot run.
pub fn native_addon(path: &str, importer: &str) -> String {
    format!(
        "Native addon {path} imported from {importer} cannot run in pi's extension engine (it runs JavaScript, not Node's native modules); see docs/extensions.md, \"Differences\""
    )
}

/// A JSON module that does not parse.
pub fn bad_json(path: &str, error: &str) -> String {
    format!("Invalid JSON in {path}: {error}")
}

/// `require()` of an ES module that waits (top-level `await`).
pub fn require_async(name: &str) -> String {
    format!("require() cannot load the ES module '{name}': it uses top-level await (import it instead)")
}

/// Node's error code for a module that cannot be found.
pub const MODULE_NOT_FOUND: &str = "MODULE_NOT_FOUND";

/// Node's error code for `require()` of an ES module with top-level `await`.
pub const REQUIRE_ASYNC: &str = "ERR_REQUIRE_ASYNC_MODULE";

/// A factory whose promise waits on nothing that could settle it.
pub const FACTORY_STALLED: &str = "the extension's factory never finished (its promise waits on nothing)";

/// A synchronous hook (`prepareArguments`, `reachesTools`, `prepareLoadout`)
/// whose extension stopped or did not answer in time.
pub const ENGINE_STOPPED: &str = "the extension stopped or did not answer in time";

/// `reachesTools` returned something other than `"all"` or a list of words.
pub const BAD_REACH: &str = "reachesTools must return \"all\" or an array of strings";

/// JavaScript asked the host for an operation it does not know.
pub fn unknown_host_operation(kind: &str) -> String {
    format!("unknown host operation {kind}")
}

/// `ctx.executeTool` from a context whose call has ended.
pub const CALL_ENDED: &str = "The call this context belongs to has ended";

/// A command handler's session operation before the session was bound.
pub const NO_SESSION: &str = "The session is not available yet";

/// Two extensions registered the same tool name (as the reference): the
/// second one fails to load.
pub fn tool_conflict(name: &str, first_path: &str) -> String {
    format!("Tool \"{name}\" conflicts with {first_path}")
}

fn bytes(n: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if n >= MIB && n.is_multiple_of(MIB) { format!("{} MiB", n / MIB) } else { format!("{n} bytes") }
}

fn human(d: Duration) -> String {
    if d.as_millis().is_multiple_of(1000) { format!("{} s", d.as_secs()) } else { format!("{} ms", d.as_millis()) }
}

/// The texts of the Node.js built-ins (`node:fs`, `node:child_process`, …),
/// worded as Node words them.
pub mod node {
    /// The code of an error without an errno.
    pub const UNKNOWN_CODE: &str = "EUNKNOWN";
    /// A child process asked for outside any extension's code (cannot happen from an extension).
    pub const NO_EXTENSION: &str = "no extension is running";

    /// Node's code and description (libuv's) for an errno.
    pub fn errno(errno: i32) -> (&'static str, &'static str) {
        match errno {
            1 => ("EPERM", "operation not permitted"),
            2 => ("ENOENT", "no such file or directory"),
            4 => ("EINTR", "interrupted system call"),
            5 => ("EIO", "i/o error"),
            7 => ("E2BIG", "argument list too long"),
            9 => ("EBADF", "bad file descriptor"),
            11 => ("EAGAIN", "resource temporarily unavailable"),
            12 => ("ENOMEM", "not enough memory"),
            13 => ("EACCES", "permission denied"),
            16 => ("EBUSY", "resource busy or locked"),
            17 => ("EEXIST", "file already exists"),
            18 => ("EXDEV", "cross-device link not permitted"),
            20 => ("ENOTDIR", "not a directory"),
            21 => ("EISDIR", "illegal operation on a directory"),
            22 => ("EINVAL", "invalid argument"),
            24 => ("EMFILE", "too many open files"),
            26 => ("ETXTBSY", "text file is busy"),
            27 => ("EFBIG", "file too large"),
            28 => ("ENOSPC", "no space left on device"),
            30 => ("EROFS", "read-only file system"),
            32 => ("EPIPE", "broken pipe"),
            36 => ("ENAMETOOLONG", "name too long"),
            39 => ("ENOTEMPTY", "directory not empty"),
            40 => ("ELOOP", "too many symbolic links encountered"),
            110 => ("ETIMEDOUT", "connection timed out"),
            _ => (UNKNOWN_CODE, "unknown error"),
        }
    }

    /// `<CODE>: <description>, <syscall>[ '<path>'][ -> '<dest>']`.
    pub fn syscall_message(
        code: &str,
        description: &str,
        syscall: &str,
        path: Option<&str>,
        dest: Option<&str>,
    ) -> String {
        let mut m = format!("{code}: {description}, {syscall}");
        if let Some(p) = path {
            m.push_str(&format!(" '{p}'"));
        }
        if let Some(d) = dest {
            m.push_str(&format!(" -> '{d}'"));
        }
        m
    }

    /// A child process that could not run or timed out: `spawn <file> ENOENT`.
    pub fn spawn_message(syscall: &str, code: &str) -> String {
        format!("{syscall} {code}")
    }

    /// A host function got an argument it cannot use.
    pub fn invalid_arg(name: &str, expected: &str) -> String {
        format!("The \"{name}\" argument must be {expected}")
    }

    /// The code of [`invalid_arg`].
    pub const INVALID_ARG_CODE: &str = "ERR_INVALID_ARG_TYPE";

    /// An unknown operation asked of the host (a bug in the glue).
    pub fn unknown_op(op: &str) -> String {
        format!("unknown operation {op}")
    }

    /// `execSync`/`execFileSync` of a command that failed.
    pub fn command_failed(command: &str, stderr: &str) -> String {
        if stderr.is_empty() {
            format!("Command failed: {command}")
        } else {
            format!("Command failed: {command}\n{stderr}")
        }
    }

    /// `createHash` of an algorithm pi does not have.
    pub const DIGEST_UNSUPPORTED: &str = "Digest method not supported";

    /// The largest output `spawnSync`/`execSync` keep by default (Node's `maxBuffer`).
    pub const MAX_BUFFER: usize = 1024 * 1024;

    /// Read chunk size of a child's output streams.
    pub const CHUNK: usize = 64 * 1024;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages() {
        assert_eq!(
            load_error("/a/x.ts", &path_missing("/a/x.ts")),
            "Failed to load extension \"/a/x.ts\": Extension path does not exist: /a/x.ts"
        );
        assert_eq!(
            time_limit("/a/x.ts", Duration::from_millis(250)),
            "Extension /a/x.ts exceeded its time limit (250 ms of JavaScript without pausing); the extension is stopped"
        );
        assert_eq!(
            time_limit("/a/x.ts", Duration::from_secs(10)),
            "Extension /a/x.ts exceeded its time limit (10 s of JavaScript without pausing); the extension is stopped"
        );
        assert_eq!(
            out_of_memory("/a/x.ts", 256 * 1024 * 1024),
            "Extension /a/x.ts ran out of memory (its limit is 256 MiB); the extension is stopped"
        );
    }
}
