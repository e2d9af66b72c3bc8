//! Module resolution and loading: the reference's packages and the Node
//! built-ins pi provides are built-in modules ([`crate::builtins`]); other specifiers resolve as
//! Node resolves them ([`crate::resolve`]). Files are ES modules (TypeScript
//! stripped on the way in), JSON documents or CommonJS modules (reached
//! through a facade, [`crate::node::cjs`]).

use std::path::Path;

use rquickjs::loader::{ImportAttributes, Loader, Resolver};
use rquickjs::module::Declared;
use rquickjs::{Constructor, Ctx, Error, Module, Result, Value};

use crate::resolve::{self, Format, Mode};
use crate::{builtins, bytecode, strip, text};

/// Resolves import specifiers to canonical module names (absolute paths or built-in names).
pub(crate) struct PiResolver;

impl Resolver for PiResolver {
    fn resolve<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        base: &str,
        name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> Result<String> {
        if let Some(b) = builtins::builtin(name) {
            return Ok(b.to_string());
        }
        let bare = name.strip_prefix("node:").unwrap_or(name);
        if name.starts_with("node:") || builtins::is_node_builtin(bare) {
            return Err(throw_whole(ctx, Error::new_resolving_message(base, name, text::node_builtin(name))));
        }
        match resolve::resolve_path(base, name, Mode::Import) {
            Ok(p) => Ok(p.to_string_lossy().into_owned()),
            Err(e) => Err(throw_whole(ctx, Error::new_resolving_message(base, name, e.to_string()))),
        }
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
        if let Some(code) = builtins::source(name) {
            return bytecode::declare_module(ctx, code);
        }
        let path = Path::new(name);
        let source = std::fs::read_to_string(path)
            .map_err(|e| throw_whole(ctx, Error::new_loading_message(name, e.to_string())))?;
        let format = resolve::format_of(path, &source);
        if format != Format::Esm {
            let js = crate::node::cjs::facade(ctx, name, &source, format)?;
            return Module::declare(ctx.clone(), name, js);
        }
        let js = strip::to_javascript(path, &source)
            .map_err(|e| throw_whole(ctx, Error::new_loading_message(name, e.to_string())))?;
        let module = Module::declare(ctx.clone(), name, js)?;
        set_meta(&module, path)?;
        Ok(module)
    }
}

/// Throw a resolving or loading error as a `ReferenceError` holding its
/// whole message. The engine's own throw formats messages into 256 bytes,
/// which cut what matters (the module and the importer) once paths are long.
pub(crate) fn throw_whole(ctx: &Ctx<'_>, e: Error) -> Error {
    let message = e.to_string();
    let error = ctx.globals().get::<_, Constructor>("ReferenceError").and_then(|c| c.construct::<_, Value>((message,)));
    match error {
        Ok(error) => ctx.throw(error),
        Err(_) => e,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_are_percent_encoded_as_nodes() {
        assert_eq!(file_url(Path::new("/tmp/a b/é#.ts")), "file:///tmp/a%20b/%C3%A9%23.ts");
    }
}
