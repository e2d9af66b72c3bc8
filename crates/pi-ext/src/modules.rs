//! Module resolution and loading: the reference's packages and the Node
//! built-ins pi provides are built-in modules; other specifiers resolve as
//! Node resolves them ([`crate::resolve`]). Files are ES modules (TypeScript
//! stripped on the way in), JSON documents or CommonJS modules (reached
//! through a facade, [`crate::node::cjs`]).

use std::path::{Component, Path, PathBuf};

use rquickjs::loader::{ImportAttributes, Loader, Resolver};
use rquickjs::module::Declared;
use rquickjs::{Ctx, Error, Module, Result};

use crate::bytecode::{self, Cached};
use crate::resolve::{self, Format, Mode, NotFound};
use crate::{strip, text};

/// Built-in modules: canonical name and source (compiled once per process).
static BUILTINS: [Cached; 35] = [
    Cached::new("pi:coding-agent", include_str!("js/pi-coding-agent.js")),
    Cached::new("pi:ai", include_str!("js/pi-ai.js")),
    Cached::new("typebox", include_str!("js/typebox.js")),
    Cached::new("node:path", include_str!("js/path.js")),
    Cached::new("pi:tui", include_str!("js/pi-tui.js")),
    Cached::new("pi:ai-compat", include_str!("js/pi-ai-compat.js")),
    Cached::new("node:fs", include_str!("js/node/fs.js")),
    Cached::new("node:fs/promises", include_str!("js/node/fs-promises.js")),
    Cached::new("node:child_process", include_str!("js/node/child_process.js")),
    Cached::new("node:os", include_str!("js/node/os.js")),
    Cached::new("node:events", include_str!("js/node/events.js")),
    Cached::new("node:util", include_str!("js/node/util.js")),
    Cached::new("node:url", include_str!("js/node/url.js")),
    Cached::new("node:crypto", include_str!("js/node/crypto.js")),
    Cached::new("node:buffer", include_str!("js/node/buffer.js")),
    Cached::new("node:process", include_str!("js/node/process.js")),
    Cached::new("node:timers", include_str!("js/node/timers.js")),
    Cached::new("node:timers/promises", include_str!("js/node/timers-promises.js")),
    Cached::new("node:readline", include_str!("js/node/readline.js")),
    Cached::new("node:module", include_str!("js/node/module.js")),
    Cached::new("node:zlib", include_str!("js/node/zlib.js")),
    Cached::new("typebox/value", include_str!("js/typebox-value.js")),
    Cached::new("typebox/compile", include_str!("js/typebox-compile.js")),
    Cached::new("pi:surface-support", include_str!("js/surface/support.js")),
    Cached::new("pi:surface/coding-agent", include_str!("js/surface/coding-agent.js")),
    Cached::new("pi:surface/tui", include_str!("js/surface/tui.js")),
    Cached::new("pi:surface/ai", include_str!("js/surface/ai.js")),
    Cached::new("pi:surface/ai-compat", include_str!("js/surface/ai-compat.js")),
    Cached::new("pi:surface/ai-models", include_str!("js/surface/ai-models.js")),
    Cached::new("pi:surface/ai-oauth", include_str!("js/surface/ai-oauth.js")),
    Cached::new("pi:surface/ai-providers", include_str!("js/surface/ai-providers.js")),
    Cached::new("pi:surface/agent-core", include_str!("js/surface/agent-core.js")),
    Cached::new("pi:surface/typebox", include_str!("js/surface/typebox.js")),
    Cached::new("pi:surface/typebox-value", include_str!("js/surface/typebox-value.js")),
    Cached::new("pi:surface/typebox-compile", include_str!("js/surface/typebox-compile.js")),
];

/// The Node.js built-ins pi provides (`node:<name>` or `<name>`).
const NODE_PROVIDED: &[&str] = &[
    "fs",
    "fs/promises",
    "child_process",
    "os",
    "events",
    "util",
    "url",
    "crypto",
    "buffer",
    "process",
    "timers",
    "timers/promises",
    "readline",
    "module",
    "zlib",
];

/// The built-in module an import specifier maps to, if any.
pub(crate) fn builtin(name: &str) -> Option<&'static str> {
    if let Some(b) = BUILTINS.iter().find(|b| b.name == name) {
        return Some(b.name);
    }
    Some(match name {
        "@earendil-works/pi-coding-agent" | "@mariozechner/pi-coding-agent" => "pi:coding-agent",
        "@earendil-works/pi-ai" | "@mariozechner/pi-ai" => "pi:ai",
        "typebox" | "@sinclair/typebox" => "typebox",
        "node:path" | "path" | "node:path/posix" | "path/posix" => "node:path",
        "@earendil-works/pi-ai/compat" | "@mariozechner/pi-ai/compat" => "pi:ai-compat",
        "@earendil-works/pi-tui" | "@mariozechner/pi-tui" => "pi:tui",
        "@earendil-works/pi-agent-core" | "@mariozechner/pi-agent-core" => "pi:surface/agent-core",
        "@earendil-works/pi-ai/models" | "@mariozechner/pi-ai/models" => "pi:surface/ai-models",
        "@earendil-works/pi-ai/oauth" | "@mariozechner/pi-ai/oauth" => "pi:surface/ai-oauth",
        "@earendil-works/pi-ai/providers/all" | "@mariozechner/pi-ai/providers/all" => "pi:surface/ai-providers",
        "typebox/value" | "@sinclair/typebox/value" => "typebox/value",
        "typebox/compile" | "@sinclair/typebox/compile" => "typebox/compile",
        _ => {
            let bare = name.strip_prefix("node:").unwrap_or(name);
            let known = NODE_PROVIDED.iter().find(|n| **n == bare)?;
            return BUILTINS.iter().find(|b| b.name.strip_prefix("node:") == Some(*known)).map(|b| b.name);
        }
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
        let bare = name.strip_prefix("node:").unwrap_or(name);
        if name.starts_with("node:") || NODE_BUILTINS.contains(&bare) {
            return Err(Error::new_resolving_message(base, name, text::node_builtin(name)));
        }
        match resolve_path(base, name, Mode::Import) {
            Ok(p) => Ok(p.to_string_lossy().into_owned()),
            Err(message) => Err(Error::new_resolving_message(base, name, message)),
        }
    }
}

/// The file `name` imported (or required) from `base` names, or the message saying why none.
pub(crate) fn resolve_path(base: &str, name: &str, mode: Mode) -> std::result::Result<PathBuf, String> {
    let importer = Path::new(base);
    let found =
        if name.starts_with("./") || name.starts_with("../") || name.starts_with('/') || name == "." || name == ".." {
            let dir = importer.parent().unwrap_or(Path::new("/"));
            resolve::find_file(&normalize(&dir.join(name))).ok_or_else(|| NotFound::Module(name.to_string()))
        } else if name.starts_with('#') {
            resolve::resolve_import(importer, name, mode)
        } else {
            resolve::resolve_package(importer, name, mode)
        };
    found.map_err(|e| match e {
        NotFound::Package(package) => text::package_not_found(&package, base),
        NotFound::NotExported { package, subpath } => text::not_exported(&package, &subpath, base),
        NotFound::Import(spec) => text::import_not_defined(&spec, base),
        NotFound::Module(_) => text::module_not_found(name, base),
    })
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
        if let Some(code) = BUILTINS.iter().find(|b| b.name == name) {
            return bytecode::declare_module(ctx, code);
        }
        let path = Path::new(name);
        let source = std::fs::read_to_string(path).map_err(|e| Error::new_loading_message(name, e.to_string()))?;
        let format = resolve::format_of(path, &source);
        if format != Format::Esm {
            let js = crate::node::cjs::facade(ctx, name, &source, format)?;
            return Module::declare(ctx.clone(), name, js);
        }
        let js = strip::to_javascript(path, &source).map_err(|e| Error::new_loading_message(name, e))?;
        let module = Module::declare(ctx.clone(), name, js)?;
        set_meta(&module, path)?;
        Ok(module)
    }
}

/// `import.meta.url` (a `file://` URL), `filename` and `dirname` of a file module, as Node gives them.
pub(crate) fn set_meta<T>(module: &Module<'_, T>, path: &Path) -> Result<()> {
    let meta = module.meta()?;
    meta.set("url", file_url(path))?;
    meta.set("filename", path.to_string_lossy().into_owned())?;
    meta.set("dirname", path.parent().unwrap_or(Path::new("/")).to_string_lossy().into_owned())?;
    Ok(())
}

/// `file://` and the path, percent-encoded as Node's `pathToFileURL` does.
pub(crate) fn file_url(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'/'
            | b'-'
            | b'_'
            | b'.'
            | b'~'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
            | b':'
            | b'@' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
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
        assert_eq!(builtin("node:fs"), Some("node:fs"));
        assert_eq!(builtin("fs/promises"), Some("node:fs/promises"));
        assert_eq!(builtin("child_process"), Some("node:child_process"));
        assert_eq!(builtin("node:http"), None);
        assert_eq!(builtin("ms"), None);
    }

    #[test]
    fn finds_ts_for_js_imports() {
        use crate::resolve::find_file;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("util.ts"), "export const a = 1;").unwrap();
        std::fs::create_dir(dir.path().join("lib")).unwrap();
        std::fs::write(dir.path().join("lib/index.ts"), "export const b = 1;").unwrap();
        assert_eq!(find_file(&dir.path().join("util.js")), Some(dir.path().join("util.ts")));
        assert_eq!(find_file(&dir.path().join("util")), Some(dir.path().join("util.ts")));
        assert_eq!(find_file(&dir.path().join("lib")), Some(dir.path().join("lib/index.ts")));
        assert_eq!(find_file(&dir.path().join("nope")), None);
        assert_eq!(normalize(Path::new("/a/./b/../c.ts")), PathBuf::from("/a/c.ts"));
        assert_eq!(file_url(Path::new("/tmp/a b/é#.ts")), "file:///tmp/a%20b/%C3%A9%23.ts");
    }
}
