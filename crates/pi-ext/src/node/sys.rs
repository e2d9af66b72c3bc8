//! `node:os`, `node:crypto` (hashes, random bytes, UUIDs), text encoding
//! and the facts behind `process` (environment, ids, arguments).

use rquickjs::{Ctx, Function, Object, TypedArray, Value as JsValue};
use serde_json::{Value, json};
use sha2::Digest;

use super::error::NodeError;
use super::{from_latin1, throw};
use crate::text::node as t;

/// The digest of `data` with `algorithm` (Node's names), or `None` for one pi does not have.
pub(crate) fn digest(algorithm: &str, data: &[u8]) -> Option<Vec<u8>> {
    Some(match algorithm.to_ascii_lowercase().as_str() {
        "sha256" => sha2::Sha256::digest(data).to_vec(),
        "sha224" => sha2::Sha224::digest(data).to_vec(),
        "sha384" => sha2::Sha384::digest(data).to_vec(),
        "sha512" => sha2::Sha512::digest(data).to_vec(),
        "sha1" => sha1::Sha1::digest(data).to_vec(),
        "md5" => md5::Md5::digest(data).to_vec(),
        _ => return None,
    })
}

/// What `node:os` answers, read once per call.
pub(crate) fn os_info() -> Value {
    let uname = rustix::system::uname();
    let text = |s: &std::ffi::CStr| s.to_string_lossy().into_owned();
    let home = std::env::var("HOME").unwrap_or_else(|_| "/".into());
    let tmp = std::env::var("TMPDIR").ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "/tmp".into());
    let tmp = if tmp.len() > 1 { tmp.trim_end_matches('/').to_string() } else { tmp };
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let user = std::env::var("USER").or_else(|_| std::env::var("LOGNAME")).unwrap_or_default();
    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let kib = |key: &str| -> f64 {
        meminfo
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse::<f64>().ok())
            .unwrap_or(0.0)
            * 1024.0
    };
    let uptime = std::fs::read_to_string("/proc/uptime")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse::<f64>().ok()))
        .unwrap_or(0.0);
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        "x86" => "ia32",
        other => other,
    };
    json!({
        "homedir": home, "tmpdir": tmp, "hostname": text(uname.nodename()), "type": text(uname.sysname()),
        "release": text(uname.release()), "version": text(uname.version()), "machine": text(uname.machine()),
        "platform": std::env::consts::OS, "arch": arch, "cpus": cpus, "totalmem": kib("MemTotal:"),
        "freemem": kib("MemAvailable:"), "uptime": uptime,
        "userInfo": {"username": user, "uid": uid, "gid": gid, "homedir": std::env::var("HOME").unwrap_or_default(),
            "shell": std::env::var("SHELL").ok()},
    })
}

/// The facts of `process`: environment, ids, arguments, executable.
pub(crate) fn process_info() -> Value {
    let env: serde_json::Map<String, Value> =
        std::env::vars_os().map(|(k, v)| (k.to_string_lossy().into_owned(), json!(v.to_string_lossy()))).collect();
    let argv: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    let exe = std::env::current_exe().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
    json!({
        "env": env, "argv": argv, "execPath": exe, "pid": std::process::id(),
        "ppid": rustix::process::getppid().map(|p| p.as_raw_nonzero().get()).unwrap_or(0),
        "uid": rustix::process::getuid().as_raw(), "gid": rustix::process::getgid().as_raw(),
        "platform": std::env::consts::OS,
    })
}

pub(super) fn install<'js>(ctx: &Ctx<'js>, node: &Object<'js>) -> rquickjs::Result<()> {
    node.set("os", Function::new(ctx.clone(), || os_info().to_string())?)?;
    node.set("process", Function::new(ctx.clone(), || process_info().to_string())?)?;
    node.set("hashSupported", Function::new(ctx.clone(), |alg: String| digest(&alg, b"").is_some())?)?;
    node.set(
        "hash",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, alg: String, data: String| -> rquickjs::Result<JsValue<'js>> {
            match digest(&alg, &from_latin1(&data)) {
                Some(d) => Ok(TypedArray::<u8>::new(ctx.clone(), d)?.into_value()),
                None => Err(throw(&ctx, &NodeError::invalid("ERR_OSSL_EVP_UNSUPPORTED", t::DIGEST_UNSUPPORTED.into()))),
            }
        })?,
    )?;
    node.set(
        "randomBytes",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, n: f64| -> rquickjs::Result<JsValue<'js>> {
            let n = if n.is_finite() && n > 0.0 { (n as usize).min(1 << 20) } else { 0 };
            let mut v = vec![0u8; n];
            let _ = getrandom::fill(&mut v);
            Ok(TypedArray::<u8>::new(ctx.clone(), v)?.into_value())
        })?,
    )?;
    node.set(
        "randomUUID",
        Function::new(ctx.clone(), || {
            let mut b = [0u8; 16];
            let _ = getrandom::fill(&mut b);
            uuid::Builder::from_random_bytes(b).into_uuid().to_string()
        })?,
    )?;
    node.set("uuidv7", Function::new(ctx.clone(), || uuid::Uuid::now_v7().to_string())?)?;
    node.set(
        "utf8Encode",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, s: String| -> rquickjs::Result<JsValue<'js>> {
            Ok(TypedArray::<u8>::new(ctx.clone(), s.into_bytes())?.into_value())
        })?,
    )?;
    node.set(
        "utf8Decode",
        Function::new(ctx.clone(), |bytes: String| String::from_utf8_lossy(&from_latin1(&bytes)).into_owned())?,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn digests_match_known_values() {
        assert_eq!(
            hex(&digest("sha256", b"abc").unwrap()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(hex(&digest("MD5", b"").unwrap()), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(&digest("sha1", b"abc").unwrap()), "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(digest("whirlpool", b""), None);
    }

    #[test]
    fn os_and_process_facts() {
        let os = os_info();
        assert_eq!(os["platform"], "linux");
        assert!(os["cpus"].as_u64().unwrap() >= 1);
        assert!(!os["tmpdir"].as_str().unwrap().ends_with('/') || os["tmpdir"] == "/");
        let p = process_info();
        assert_eq!(p["pid"], std::process::id());
        assert!(p["env"].is_object() && p["argv"].is_array());
    }
}
