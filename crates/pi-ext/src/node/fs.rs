//! `node:fs` on std: the synchronous operations the glue's `fs`,
//! `fs/promises` and callback forms are built on. Every failure is a
//! [`NodeError`] worded as Node's.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use serde_json::{Value, json};

use super::error::NodeError;

fn s<'a>(a: &'a Value, key: &str) -> &'a str {
    a.get(key).and_then(Value::as_str).unwrap_or("")
}

fn flag(a: &Value, key: &str) -> bool {
    a.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// `stat`/`lstat` as the fields of Node's `Stats` (the glue adds the methods).
pub(crate) fn stat(path: &str, follow: bool) -> Result<Value, NodeError> {
    let m = if follow { fs::metadata(path) } else { fs::symlink_metadata(path) };
    let m = m.map_err(|e| NodeError::io(&e, if follow { "stat" } else { "lstat" }, Some(path)))?;
    let ms = |secs: i64, nsec: i64| secs as f64 * 1000.0 + nsec as f64 / 1e6;
    let ft = m.file_type();
    Ok(json!({
        "dev": m.dev(), "ino": m.ino(), "mode": m.mode(), "nlink": m.nlink(), "uid": m.uid(), "gid": m.gid(),
        "rdev": m.rdev(), "size": m.size(), "blksize": m.blksize(), "blocks": m.blocks(),
        "atimeMs": ms(m.atime(), m.atime_nsec()), "mtimeMs": ms(m.mtime(), m.mtime_nsec()),
        "ctimeMs": ms(m.ctime(), m.ctime_nsec()), "birthtimeMs": ms(m.ctime(), m.ctime_nsec()),
        "isFile": ft.is_file(), "isDirectory": ft.is_dir(), "isSymbolicLink": ft.is_symlink(),
    }))
}

/// `readdir`: names with their kinds (`file`, `dir`, `symlink`, `other`), sorted as Node's are not
/// (the order of the directory); Node sorts nothing either.
fn readdir(path: &str) -> Result<Value, NodeError> {
    let rd = fs::read_dir(path).map_err(|e| NodeError::io(&e, "scandir", Some(path)))?;
    let mut out = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| NodeError::io(&e, "scandir", Some(path)))?;
        let kind = match entry.file_type() {
            Ok(t) if t.is_symlink() => "symlink",
            Ok(t) if t.is_dir() => "dir",
            Ok(t) if t.is_file() => "file",
            _ => "other",
        };
        out.push(json!({"name": entry.file_name().to_string_lossy(), "kind": kind}));
    }
    Ok(Value::Array(out))
}

/// `mkdir`: with `recursive`, the first folder created (or null), as Node.
fn mkdir(path: &str, recursive: bool, mode: Option<u32>) -> Result<Value, NodeError> {
    let err = |e: std::io::Error| NodeError::io(&e, "mkdir", Some(path));
    if !recursive {
        fs::create_dir(path).map_err(err)?;
        if let Some(mode) = mode {
            let _ = fs::set_permissions(path, fs::Permissions::from_mode(mode));
        }
        return Ok(Value::Null);
    }
    let mut first = None;
    let mut p = Path::new(path);
    while !p.exists() {
        first = Some(p.to_path_buf());
        match p.parent() {
            Some(parent) => p = parent,
            None => break,
        }
    }
    fs::create_dir_all(path).map_err(err)?;
    Ok(first.map(|f| Value::String(f.to_string_lossy().into_owned())).unwrap_or(Value::Null))
}

/// `rm`: `recursive` removes folders, `force` ignores a missing path.
fn rm(path: &str, recursive: bool, force: bool) -> Result<(), NodeError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if force && e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(NodeError::io(&e, "rm", Some(path))),
    };
    if meta.is_dir() {
        if !recursive {
            let e = std::io::Error::from_raw_os_error(21);
            return Err(NodeError::invalid("ERR_FS_EISDIR", NodeError::io(&e, "rm", Some(path)).message.clone()));
        }
        fs::remove_dir_all(path).map_err(|e| NodeError::io(&e, "rm", Some(path)))
    } else {
        fs::remove_file(path).map_err(|e| NodeError::io(&e, "rm", Some(path)))
    }
}

/// `mkdtemp`: the prefix plus six random characters, created exclusively.
fn mkdtemp(prefix: &str) -> Result<Value, NodeError> {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut last = None;
    for _ in 0..16 {
        let mut bytes = [0u8; 6];
        let _ = getrandom::fill(&mut bytes);
        let suffix: String = bytes.iter().map(|b| CHARS[*b as usize % CHARS.len()] as char).collect();
        let path = format!("{prefix}{suffix}");
        match fs::create_dir(&path) {
            Ok(()) => {
                let _ = fs::set_permissions(&path, fs::Permissions::from_mode(0o700));
                return Ok(Value::String(path));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(NodeError::io(&e, "mkdtemp", Some(&format!("{prefix}XXXXXX")))),
        }
    }
    let e = last.unwrap_or_else(|| std::io::Error::from_raw_os_error(17));
    Err(NodeError::io(&e, "mkdtemp", Some(&format!("{prefix}XXXXXX"))))
}

/// `access`: mode bits 4 (read), 2 (write), 1 (execute); 0 checks existence.
fn access(path: &str, mode: u32) -> Result<(), NodeError> {
    let m = fs::metadata(path).map_err(|e| NodeError::io(&e, "access", Some(path)))?;
    let denied = std::io::Error::from_raw_os_error(13);
    let bits = m.permissions().mode();
    let root = rustix::process::geteuid().is_root();
    let uid_match = m.uid() == rustix::process::geteuid().as_raw();
    let shift = if uid_match { 6 } else { 0 };
    for (want, bit) in [(4, 4), (2, 2), (1, 1)] {
        if mode & want != 0 {
            let allowed = if root { want != 1 || bits & 0o111 != 0 } else { bits >> shift & bit != 0 };
            if !allowed {
                return Err(NodeError::io(&denied, "access", Some(path)));
            }
        }
    }
    Ok(())
}

/// Write `data` to `path`: replace, or append with `append`; `exclusive` fails on an existing file.
pub(crate) fn write(
    path: &str,
    data: &[u8],
    append: bool,
    exclusive: bool,
    mode: Option<u32>,
) -> Result<(), NodeError> {
    let mut o = fs::OpenOptions::new();
    o.write(true);
    if exclusive {
        o.create_new(true);
    } else {
        o.create(true);
    }
    if append {
        o.append(true);
    } else {
        o.truncate(true);
    }
    if let Some(mode) = mode {
        std::os::unix::fs::OpenOptionsExt::mode(&mut o, mode);
    }
    let mut f = o.open(path).map_err(|e| NodeError::io(&e, "open", Some(path)))?;
    f.write_all(data).map_err(|e| NodeError::io(&e, "write", None))
}

/// Read the whole of `path`.
pub(crate) fn read(path: &str) -> Result<Vec<u8>, NodeError> {
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return Err(NodeError::io(&std::io::Error::from_raw_os_error(21), "read", None));
        }
        _ => {}
    }
    fs::read(path).map_err(|e| NodeError::io(&e, "open", Some(path)))
}

/// The JSON operations: `op` with its arguments object.
pub(crate) fn call(op: &str, a: &Value) -> Result<Value, NodeError> {
    let path = s(a, "path");
    let two = |syscall: &str, e: std::io::Error| NodeError::io2(&e, syscall, Some(path), Some(s(a, "dest")));
    match op {
        "exists" => Ok(Value::Bool(Path::new(path).exists())),
        "stat" => stat(path, true),
        "lstat" => stat(path, false),
        "readdir" => readdir(path),
        "mkdir" => mkdir(path, flag(a, "recursive"), a.get("mode").and_then(Value::as_u64).map(|m| m as u32)),
        "rm" => rm(path, flag(a, "recursive"), flag(a, "force")).map(|_| Value::Null),
        "rmdir" => {
            if flag(a, "recursive") {
                return rm(path, true, false).map(|_| Value::Null);
            }
            fs::remove_dir(path).map(|_| Value::Null).map_err(|e| NodeError::io(&e, "rmdir", Some(path)))
        }
        "unlink" => fs::remove_file(path).map(|_| Value::Null).map_err(|e| NodeError::io(&e, "unlink", Some(path))),
        "rename" => fs::rename(path, s(a, "dest")).map(|_| Value::Null).map_err(|e| two("rename", e)),
        "copyFile" => fs::copy(path, s(a, "dest")).map(|_| Value::Null).map_err(|e| two("copyfile", e)),
        "symlink" => std::os::unix::fs::symlink(path, s(a, "dest")).map(|_| Value::Null).map_err(|e| two("symlink", e)),
        "link" => fs::hard_link(path, s(a, "dest")).map(|_| Value::Null).map_err(|e| two("link", e)),
        "realpath" => fs::canonicalize(path)
            .map(|p| Value::String(p.to_string_lossy().into_owned()))
            .map_err(|e| NodeError::io(&e, "realpath", Some(path))),
        "readlink" => fs::read_link(path)
            .map(|p| Value::String(p.to_string_lossy().into_owned()))
            .map_err(|e| NodeError::io(&e, "readlink", Some(path))),
        "chmod" => {
            let mode = a.get("mode").and_then(Value::as_u64).unwrap_or(0o644) as u32;
            fs::set_permissions(path, fs::Permissions::from_mode(mode))
                .map(|_| Value::Null)
                .map_err(|e| NodeError::io(&e, "chmod", Some(path)))
        }
        "truncate" => {
            let len = a.get("len").and_then(Value::as_u64).unwrap_or(0);
            fs::OpenOptions::new()
                .write(true)
                .open(path)
                .and_then(|f| f.set_len(len))
                .map(|_| Value::Null)
                .map_err(|e| NodeError::io(&e, "open", Some(path)))
        }
        "access" => access(path, a.get("mode").and_then(Value::as_u64).unwrap_or(0) as u32).map(|_| Value::Null),
        "mkdtemp" => mkdtemp(path),
        other => Err(NodeError::invalid("ERR_INVALID_ARG_VALUE", crate::text::node::unknown_op(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_and_their_failures() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_string_lossy().into_owned();
        let f = format!("{d}/a.txt");
        write(&f, b"hi", false, false, None).unwrap();
        write(&f, b"!", true, false, None).unwrap();
        assert_eq!(read(&f).unwrap(), b"hi!");
        assert_eq!(write(&f, b"x", false, true, None).unwrap_err().code, "EEXIST");
        assert_eq!(call("stat", &json!({"path": f})).unwrap()["size"], 3);
        assert_eq!(call("stat", &json!({"path": f})).unwrap()["isFile"], true);
        let e = call("stat", &json!({"path": format!("{d}/nope")})).unwrap_err();
        assert_eq!(e.message, format!("ENOENT: no such file or directory, stat '{d}/nope'"));
        let e = read(&format!("{d}/nope")).unwrap_err();
        assert_eq!((e.code.as_str(), e.syscall.as_str(), e.errno), ("ENOENT", "open", -2));
        assert_eq!(read(&d).unwrap_err().code, "EISDIR");
        let created = call("mkdir", &json!({"path": format!("{d}/x/y"), "recursive": true})).unwrap();
        assert_eq!(created, json!(format!("{d}/x")));
        assert_eq!(call("mkdir", &json!({"path": format!("{d}/x"), "recursive": true})).unwrap(), Value::Null);
        assert_eq!(call("mkdir", &json!({"path": format!("{d}/x")})).unwrap_err().code, "EEXIST");
        let names = call("readdir", &json!({"path": d})).unwrap();
        assert_eq!(names.as_array().unwrap().len(), 2);
        assert_eq!(call("rmdir", &json!({"path": format!("{d}/x")})).unwrap_err().code, "ENOTEMPTY");
        assert_eq!(call("rm", &json!({"path": format!("{d}/x")})).unwrap_err().code, "ERR_FS_EISDIR");
        call("rm", &json!({"path": format!("{d}/x"), "recursive": true})).unwrap();
        call("rm", &json!({"path": format!("{d}/x"), "force": true})).unwrap();
        call("rename", &json!({"path": f, "dest": format!("{d}/b.txt")})).unwrap();
        assert_eq!(call("exists", &json!({"path": f})).unwrap(), Value::Bool(false));
        let t = call("mkdtemp", &json!({"path": format!("{d}/t-")})).unwrap();
        assert!(t.as_str().unwrap().starts_with(&format!("{d}/t-")) && t.as_str().unwrap().len() == d.len() + 9);
        assert_eq!(call("access", &json!({"path": format!("{d}/b.txt"), "mode": 4})).unwrap(), Value::Null);
        assert_eq!(call("access", &json!({"path": format!("{d}/zz")})).unwrap_err().code, "ENOENT");
        assert_eq!(call("frobnicate", &json!({})).unwrap_err().code, "ERR_INVALID_ARG_VALUE");
        // No path at all: an error, never a panic.
        assert_eq!(call("stat", &json!({})).unwrap_err().code, "ENOENT");
    }
}
