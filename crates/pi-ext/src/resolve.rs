//! Node's module resolution for files and packages: relative paths with the
//! extensions and index files Node (and TypeScript) try, bare specifiers
//! looked up in `node_modules` up the folders from the importer,
//! `package.json` `exports` / `imports` (subpaths, `*` patterns, nested
//! conditions), `module` and `main`; and which format a file is in
//! (ES module, CommonJS or JSON). Paths are normalized without touching
//! the file system ([`normalize`]).

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use crate::text;

/// How a module is asked for: `import` or `require` (picks the condition).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `import` / `import()`.
    Import,
    /// `require()`.
    Require,
}

impl Mode {
    /// The conditions this mode matches in `exports` / `imports`, besides `default`.
    fn conditions(self) -> [&'static str; 2] {
        match self {
            Mode::Import => ["import", "node"],
            Mode::Require => ["require", "node"],
        }
    }
}

/// The format a file is loaded in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// An ES module.
    Esm,
    /// A CommonJS module.
    Cjs,
    /// A JSON document.
    Json,
}

impl Format {
    /// The name the CommonJS glue uses.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::Esm => "esm",
            Format::Cjs => "cjs",
            Format::Json => "json",
        }
    }
}

/// Why a specifier resolves to no file.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NotFound {
    /// No `node_modules/<name>` up the folders.
    Package(String),
    /// The package's `exports` do not offer this subpath.
    NotExported { package: String, subpath: String },
    /// A `#name` no `imports` field maps.
    Import(String),
    /// A file the specifier (or a package's entry) names is missing.
    Module(String),
}

/// Extensions tried after a path as written (TypeScript first, as the engine
/// strips it; then JavaScript, then JSON).
const EXTENSIONS: [&str; 7] = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".json"];

/// The file `p` names: as written, with `.js` read as `.ts`, with an
/// extension added, or a folder's `package.json` `main` or `index` file.
pub(crate) fn find_file(p: &Path) -> Option<PathBuf> {
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
    for ext in EXTENSIONS {
        let alt = PathBuf::from(format!("{s}{ext}"));
        if alt.is_file() {
            return Some(alt);
        }
    }
    if !p.is_dir() {
        return None;
    }
    if let Some(main) = read_package(p).as_ref().and_then(|pkg| pkg.get("main")).and_then(Value::as_str)
        && let Some(found) = find_plain(&p.join(main))
    {
        return Some(found);
    }
    EXTENSIONS.iter().map(|ext| p.join(format!("index{ext}"))).find(|alt| alt.is_file())
}

/// [`find_file`] without a folder's own `package.json` (no loops).
fn find_plain(p: &Path) -> Option<PathBuf> {
    if p.is_file() {
        return Some(p.to_path_buf());
    }
    let s = p.to_string_lossy();
    EXTENSIONS
        .iter()
        .map(|ext| PathBuf::from(format!("{s}{ext}")))
        .chain(EXTENSIONS.iter().map(|ext| p.join(format!("index{ext}"))))
        .find(|alt| alt.is_file())
}

/// `package.json` of folder `dir`, parsed (`None`: missing or not JSON).
fn read_package(dir: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// The nearest folder from `file` up that holds a `package.json`, and that file parsed.
fn nearest_package(file: &Path) -> Option<(PathBuf, Value)> {
    for dir in file.parent()?.ancestors() {
        if dir.join("package.json").is_file() {
            return Some((dir.to_path_buf(), read_package(dir).unwrap_or(Value::Null)));
        }
    }
    None
}

/// `name` and `./subpath` of a bare specifier (`@scope/name/sub` → `@scope/name`, `./sub`).
pub(crate) fn split_bare(spec: &str) -> (&str, String) {
    let cut = if spec.starts_with('@') { spec.match_indices('/').nth(1).map(|(i, _)| i) } else { spec.find('/') };
    match cut {
        Some(i) => (&spec[..i], format!(".{}", &spec[i..])),
        None => (spec, ".".to_string()),
    }
}

/// Resolve the bare specifier `spec` imported by `importer` through `node_modules`.
pub(crate) fn resolve_package(importer: &Path, spec: &str, mode: Mode) -> Result<PathBuf, NotFound> {
    let (name, subpath) = split_bare(spec);
    let start = importer.parent().unwrap_or(Path::new("/"));
    for dir in start.ancestors() {
        if dir.file_name().is_some_and(|n| n == "node_modules") {
            continue;
        }
        let pkg_dir = dir.join("node_modules").join(name);
        if pkg_dir.is_dir() {
            return resolve_in_package(&pkg_dir, name, &subpath, mode);
        }
    }
    Err(NotFound::Package(name.to_string()))
}

/// `subpath` of the package in `pkg_dir`: through `exports` when it has them,
/// else `module` / `main` / `index` for the package itself, or the file.
fn resolve_in_package(pkg_dir: &Path, name: &str, subpath: &str, mode: Mode) -> Result<PathBuf, NotFound> {
    let pkg = read_package(pkg_dir).unwrap_or(Value::Null);
    if let Some(exports) = pkg.get("exports").filter(|e| !e.is_null()) {
        let target = match_map(exports, subpath, mode, true)
            .ok_or_else(|| NotFound::NotExported { package: name.to_string(), subpath: subpath.to_string() })?;
        let path = normalize(&pkg_dir.join(&target));
        return if path.is_file() { Ok(path) } else { Err(NotFound::Module(path.to_string_lossy().into_owned())) };
    }
    if subpath != "." {
        let path = pkg_dir.join(subpath);
        return find_file(&path).ok_or_else(|| NotFound::Module(path.to_string_lossy().into_owned()));
    }
    let fields: &[&str] = if mode == Mode::Import { &["module", "main"] } else { &["main"] };
    for field in fields {
        if let Some(entry) = pkg.get(*field).and_then(Value::as_str)
            && let Some(found) = find_plain(&pkg_dir.join(entry))
        {
            return Ok(found);
        }
    }
    find_plain(&pkg_dir.join("index")).ok_or_else(|| NotFound::Module(pkg_dir.to_string_lossy().into_owned()))
}

/// Resolve `#name` through the `imports` of the importer's nearest `package.json`.
pub(crate) fn resolve_import(importer: &Path, spec: &str, mode: Mode) -> Result<PathBuf, NotFound> {
    let missing = || NotFound::Import(spec.to_string());
    let (dir, pkg) = nearest_package(importer).ok_or_else(missing)?;
    let imports = pkg.get("imports").ok_or_else(missing)?;
    let target = match_map(imports, spec, mode, false).ok_or_else(missing)?;
    if target.starts_with("./") {
        let path = normalize(&dir.join(&target));
        return if path.is_file() { Ok(path) } else { Err(NotFound::Module(path.to_string_lossy().into_owned())) };
    }
    resolve_package(&dir.join("package.json"), &target, mode)
}

/// The target `key` maps to in an `exports` / `imports` value. For
/// `exports`, a string, array or conditions object stands for `"."`.
fn match_map(map: &Value, key: &str, mode: Mode, exports: bool) -> Option<String> {
    let is_subpath_map = map.as_object().is_some_and(|o| o.keys().next().is_some_and(|k| k.starts_with(['.', '#'])));
    if exports && !is_subpath_map {
        return (key == ".").then(|| target(map, None, mode)).flatten();
    }
    let object = map.as_object()?;
    if let Some(value) = object.get(key)
        && !key.contains('*')
    {
        return target(value, None, mode);
    }
    // Patterns: the longest prefix before `*` wins; legacy folder keys end in `/`.
    let mut best: Option<(&str, &Value, String)> = None;
    for (k, v) in object {
        let matched = match k.split_once('*') {
            Some((pre, post)) => key
                .strip_prefix(pre)
                .and_then(|rest| rest.strip_suffix(post))
                .filter(|_| key.len() >= k.len())
                .map(str::to_string),
            None if k.ends_with('/') => key.strip_prefix(k.as_str()).map(|rest| format!("\0{rest}")),
            None => None,
        };
        if let Some(star) = matched
            && best.as_ref().is_none_or(|(b, _, _)| k.len() > b.len())
        {
            best = Some((k, v, star));
        }
    }
    let (_, value, star) = best?;
    match star.strip_prefix('\0') {
        Some(rest) => target(value, None, mode).map(|t| format!("{t}{rest}")),
        None => target(value, Some(&star), mode),
    }
}

/// A target: a string (with `*` replaced), the first of an array that
/// resolves, or the first condition in the object's own order that matches.
fn target(value: &Value, star: Option<&str>, mode: Mode) -> Option<String> {
    match value {
        Value::String(s) => Some(match star {
            Some(star) => s.replace('*', star),
            None => s.clone(),
        }),
        Value::Array(items) => items.iter().find_map(|v| target(v, star, mode)),
        Value::Object(conditions) => conditions
            .iter()
            .filter(|(k, _)| *k == "default" || mode.conditions().contains(&k.as_str()))
            .find_map(|(_, v)| target(v, star, mode)),
        _ => None,
    }
}

/// The format of `path` whose text is `source`: by extension, then by the
/// nearest `package.json` `type`, then (as Node does for files without one)
/// by whether the text has `import` / `export` statements.
pub(crate) fn format_of(path: &Path, source: &str) -> Format {
    match path.extension().and_then(|e| e.to_str()) {
        Some("json") => return Format::Json,
        Some("cjs" | "cts") => return Format::Cjs,
        Some("mjs" | "mts" | "ts" | "tsx") => return Format::Esm,
        _ => {}
    }
    let declared =
        nearest_package(path).and_then(|(_, pkg)| pkg.get("type").and_then(Value::as_str).map(str::to_string));
    match declared.as_deref() {
        Some("module") => Format::Esm,
        Some("commonjs") => Format::Cjs,
        _ if has_module_syntax(source) => Format::Esm,
        _ => Format::Cjs,
    }
}

/// Whether a line of `source` starts with an `import` or `export` statement
/// (or uses `import.meta`): Node's test for a file of undeclared format.
fn has_module_syntax(source: &str) -> bool {
    source.contains("import.meta")
        || source.lines().any(|line| {
            let l = line.trim_start();
            let after = |kw: &str| l.strip_prefix(kw).and_then(|r| r.chars().next());
            matches!(after("import"), Some(' ' | '{' | '*' | '"' | '\''))
                || matches!(after("export"), Some(' ' | '{' | '*'))
        })
}

/// Why an import or `require()` finds no file it can load. Its `Display`
/// is the message the importer gets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ResolveError {
    /// No `node_modules/<package>` up the folders from the importer.
    #[error("{}", text::package_not_found(.package, .importer))]
    PackageNotFound {
        /// The package.
        package: String,
        /// The importing file.
        importer: String,
    },
    /// The package's `exports` do not offer the subpath.
    #[error("{}", text::not_exported(.package, .subpath, .importer))]
    NotExported {
        /// The package.
        package: String,
        /// The subpath (`./x`).
        subpath: String,
        /// The importing file.
        importer: String,
    },
    /// A `#name` no `imports` field maps.
    #[error("{}", text::import_not_defined(.spec, .importer))]
    ImportNotDefined {
        /// The specifier.
        spec: String,
        /// The importing file.
        importer: String,
    },
    /// The specifier (or a package's entry) names no file.
    #[error("{}", text::module_not_found(.name, .importer))]
    ModuleNotFound {
        /// The specifier as written.
        name: String,
        /// The importing file.
        importer: String,
    },
    /// The file is a native addon (`.node`), machine code the engine cannot run.
    #[error("{}", text::native_addon(&.path.to_string_lossy(), .importer))]
    NativeAddon {
        /// The addon.
        path: PathBuf,
        /// The importing file.
        importer: String,
    },
}

/// The file `name` imported (or required) from `base` names, or why none.
pub(crate) fn resolve_path(base: &str, name: &str, mode: Mode) -> Result<PathBuf, ResolveError> {
    let importer = Path::new(base);
    let found =
        if name.starts_with("./") || name.starts_with("../") || name.starts_with('/') || name == "." || name == ".." {
            let dir = importer.parent().unwrap_or(Path::new("/"));
            find_file(&normalize(&dir.join(name))).ok_or_else(|| NotFound::Module(name.to_string()))
        } else if name.starts_with('#') {
            resolve_import(importer, name, mode)
        } else {
            resolve_package(importer, name, mode)
        };
    let importer = base.to_string();
    let found = found.map_err(|e| match e {
        NotFound::Package(package) => ResolveError::PackageNotFound { package, importer: importer.clone() },
        NotFound::NotExported { package, subpath } => {
            ResolveError::NotExported { package, subpath, importer: importer.clone() }
        }
        NotFound::Import(spec) => ResolveError::ImportNotDefined { spec, importer: importer.clone() },
        NotFound::Module(_) => ResolveError::ModuleNotFound { name: name.to_string(), importer: importer.clone() },
    })?;
    // A native addon is machine code for Node: say so, rather than parse it.
    if found.extension().is_some_and(|e| e == "node") {
        return Err(ResolveError::NativeAddon { path: found, importer });
    }
    Ok(found)
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
    use serde_json::json;

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

    #[test]
    fn splits_scoped_and_plain_names() {
        assert_eq!(split_bare("yaml"), ("yaml", ".".to_string()));
        assert_eq!(split_bare("typebox/value"), ("typebox", "./value".to_string()));
        assert_eq!(split_bare("@scope/pkg"), ("@scope/pkg", ".".to_string()));
        assert_eq!(split_bare("@scope/pkg/a/b"), ("@scope/pkg", "./a/b".to_string()));
    }

    #[test]
    fn exports_conditions_subpaths_and_patterns() {
        let m = |v: &Value, k: &str, mode| match_map(v, k, mode, true);
        let s = json!("./main.js");
        assert_eq!(m(&s, ".", Mode::Import).as_deref(), Some("./main.js"));
        assert_eq!(m(&s, "./x", Mode::Import), None);
        let c = json!({"import": {"types": "./a.d.ts", "default": "./a.mjs"}, "require": "./a.cjs"});
        assert_eq!(m(&c, ".", Mode::Import).as_deref(), Some("./a.mjs"));
        assert_eq!(m(&c, ".", Mode::Require).as_deref(), Some("./a.cjs"));
        let sub = json!({".": "./i.js", "./value": {"node": "./v.js"}, "./lib/*": "./dist/*.js", "./lib/x/*": "./x/*.js", "./private/*": null});
        assert_eq!(m(&sub, "./value", Mode::Require).as_deref(), Some("./v.js"));
        assert_eq!(m(&sub, "./lib/a/b", Mode::Import).as_deref(), Some("./dist/a/b.js"));
        assert_eq!(m(&sub, "./lib/x/y", Mode::Import).as_deref(), Some("./x/y.js"));
        assert_eq!(m(&sub, "./private/k", Mode::Import), None);
        assert_eq!(m(&sub, "./nope", Mode::Import), None);
        let order = json!({"default": "./d.js", "import": "./i.js"});
        assert_eq!(m(&order, ".", Mode::Import).as_deref(), Some("./d.js"), "object order decides");
        let arr = json!([{"worker": "./w.js"}, "./fallback.js"]);
        assert_eq!(m(&arr, ".", Mode::Import).as_deref(), Some("./fallback.js"));
    }

    #[test]
    fn module_syntax_detection() {
        assert!(has_module_syntax("const a = 1;\nexport default a;"));
        assert!(has_module_syntax("import x from 'y';"));
        assert!(has_module_syntax("import{x}from'y'"));
        assert!(!has_module_syntax("module.exports = { a: 1 };\nconst m = import('x');"));
        assert!(!has_module_syntax("exports.importer = 1; // import me"));
    }
}
