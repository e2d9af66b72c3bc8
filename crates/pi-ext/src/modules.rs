//! Module resolution and loading: relative imports are files (TypeScript is
//! stripped on the way in); the reference's packages are built-in modules.

use std::path::{Component, Path, PathBuf};

use rquickjs::loader::{ImportAttributes, Loader, Resolver};
use rquickjs::module::Declared;
use rquickjs::{Ctx, Error, Module, Result};

use crate::{strip, text};

/// Built-in modules: canonical name and source.
const BUILTINS: &[(&str, &str)] = &[
    ("pi:coding-agent", include_str!("js/pi-coding-agent.js")),
    ("pi:ai", include_str!("js/pi-ai.js")),
    ("typebox", include_str!("js/typebox.js")),
    ("node:path", include_str!("js/path.js")),
    ("pi:empty", include_str!("js/empty.js")),
];

/// The built-in module an import specifier maps to, if any.
fn builtin(name: &str) -> Option<&'static str> {
    Some(match name {
        "@earendil-works/pi-coding-agent" | "@mariozechner/pi-coding-agent" => "pi:coding-agent",
        "@earendil-works/pi-ai" | "@mariozechner/pi-ai" => "pi:ai",
        "typebox" | "@sinclair/typebox" => "typebox",
        "node:path" | "path" | "node:path/posix" | "path/posix" => "node:path",
        "@earendil-works/pi-agent-core"
        | "@mariozechner/pi-agent-core"
        | "@earendil-works/pi-tui"
        | "@mariozechner/pi-tui" => "pi:empty",
        _ => return None,
    })
}

const NODE_BUILTINS: &[&str] = &[
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "crypto",
    "dgram",
    "dns",
    "events",
    "fs",
    "fs/promises",
    "http",
    "http2",
    "https",
    "module",
    "net",
    "os",
    "perf_hooks",
    "process",
    "querystring",
    "readline",
    "stream",
    "string_decoder",
    "timers",
    "timers/promises",
    "tls",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "worker_threads",
    "zlib",
];

/// Resolves import specifiers to canonical module names (absolute paths or built-in names).
pub(crate) struct PiResolver;

impl Resolver for PiResolver {
    fn resolve<'js>(
        &mut self,
        _ctx: &Ctx<'js>,
        base: &str,
        name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> Result<String> {
        if let Some(b) = builtin(name) {
            return Ok(b.to_string());
        }
        if name.starts_with("./") || name.starts_with("../") || name.starts_with('/') || name == "." || name == ".." {
            let dir = Path::new(base).parent().unwrap_or(Path::new("/"));
            let joined = normalize(&dir.join(name));
            return match find_file(&joined) {
                Some(p) => Ok(p.to_string_lossy().into_owned()),
                None => Err(Error::new_resolving_message(base, name, text::module_not_found(name))),
            };
        }
        let bare = name.strip_prefix("node:").unwrap_or(name);
        if name.starts_with("node:") || NODE_BUILTINS.contains(&bare) {
            return Err(Error::new_resolving_message(base, name, text::node_builtin(name)));
        }
        Err(Error::new_resolving_message(base, name, text::no_packages(name)))
    }
}

/// Loads built-in sources and files (TypeScript stripped).
pub(crate) struct PiLoader;

impl Loader for PiLoader {
    fn load<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> Result<Module<'js, Declared>> {
        if let Some((_, src)) = BUILTINS.iter().find(|(n, _)| *n == name) {
            return Module::declare(ctx.clone(), name, *src);
        }
        let path = Path::new(name);
        let source = std::fs::read_to_string(path).map_err(|e| Error::new_loading_message(name, e.to_string()))?;
        let js = strip::to_javascript(path, &source).map_err(|e| Error::new_loading_message(name, e))?;
        Module::declare(ctx.clone(), name, js)
    }
}

/// The file a relative import names: as written, with `.js` read as `.ts`, with
/// an extension added, or a folder's `index` file.
fn find_file(p: &Path) -> Option<PathBuf> {
    if p.is_file() {
        return Some(p.to_path_buf());
    }
    let s = p.to_string_lossy();
    for (from, to) in [(".js", ".ts"), (".mjs", ".mts"), (".cjs", ".cts"), (".jsx", ".tsx")] {
        if let Some(stem) = s.strip_suffix(from) {
            let alt = PathBuf::from(format!("{stem}{to}"));
            if alt.is_file() {
                return Some(alt);
            }
        }
    }
    for ext in [".ts", ".mts", ".js", ".mjs"] {
        let alt = PathBuf::from(format!("{s}{ext}"));
        if alt.is_file() {
            return Some(alt);
        }
    }
    for index in ["index.ts", "index.mts", "index.js", "index.mjs"] {
        let alt = p.join(index);
        if alt.is_file() {
            return Some(alt);
        }
    }
    None
}

/// `a/./b/../c` → `a/c`, without touching the file system.
pub(crate) fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_reference_packages() {
        assert_eq!(builtin("@mariozechner/pi-coding-agent"), Some("pi:coding-agent"));
        assert_eq!(builtin("@sinclair/typebox"), Some("typebox"));
        assert_eq!(builtin("node:fs"), None);
    }

    #[test]
    fn finds_ts_for_js_imports() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("util.ts"), "export const a = 1;").unwrap();
        std::fs::create_dir(dir.path().join("lib")).unwrap();
        std::fs::write(dir.path().join("lib/index.ts"), "export const b = 1;").unwrap();
        assert_eq!(find_file(&dir.path().join("util.js")), Some(dir.path().join("util.ts")));
        assert_eq!(find_file(&dir.path().join("util")), Some(dir.path().join("util.ts")));
        assert_eq!(find_file(&dir.path().join("lib")), Some(dir.path().join("lib/index.ts")));
        assert_eq!(find_file(&dir.path().join("nope")), None);
        assert_eq!(normalize(Path::new("/a/./b/../c.ts")), PathBuf::from("/a/c.ts"));
    }
}
