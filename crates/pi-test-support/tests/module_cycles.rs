//! The workspace's module circles, measured: within each crate, the modules
//! (one per source file) that reach each other through `crate::`, `super::`
//! and `self::` paths form strongly connected groups; a group larger than
//! [`LIMIT`] is a circle a reader cannot enter at one end. Each crate's
//! largest group may not grow past its ceiling in [`CEILINGS`] (lowered as
//! circles are broken; the aim is [`LIMIT`] everywhere).
//!
//! What is counted: references in non-test code (a file is read up to its
//! first `#[cfg(test)]`; `*tests.rs` files are left out). The crate root
//! (`lib.rs`/`main.rs`, its façade of declarations and re-exports) is not a
//! node: a path through one of its re-exports counts as a reference to the
//! module that defines the item.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// The largest circle the design allows.
const LIMIT: usize = 4;

/// Each crate's largest circle today, where it is above [`LIMIT`]: it may
/// shrink (lower the figure then), never grow.
const CEILINGS: &[(&str, usize)] = &[];

type Module = Vec<String>;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every non-test source file of a crate's `src`, with its module path.
fn modules(src: &Path) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".rs") || name.ends_with("tests.rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap();
            let mut parts: Module = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            let last = parts.pop().unwrap();
            let stem = last.trim_end_matches(".rs").to_string();
            if !(parts.is_empty() && (stem == "lib" || stem == "main")) && stem != "mod" {
                parts.push(stem);
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            out.insert(parts, strip_comments(code));
        }
    }
    out
}

/// The code without `//` comments (doc comments name paths that are not references).
fn strip_comments(code: &str) -> String {
    code.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// The paths a file names: `crate::a::b`, `super::a`, `self::a`, with brace
/// groups of `use` spread out (`crate::{a, b::c}` → `crate::a`, `crate::b::c`).
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0 || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_' || bytes[i - 1] == ':');
        let rest: String = bytes[i..bytes.len().min(i + 7)].iter().collect();
        let starts = ["crate::", "super::", "self::"].iter().any(|p| rest.starts_with(p));
        if boundary && starts {
            let (mut found, end) = read_path(&bytes, i);
            out.append(&mut found);
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// Read the path starting at `at`: its expansions and where it ends.
fn read_path(chars: &[char], mut at: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix = Vec::new();
    loop {
        let start = at;
        while at < chars.len() && (chars[at].is_alphanumeric() || chars[at] == '_') {
            at += 1;
        }
        if at > start {
            prefix.push(chars[start..at].iter().collect::<String>());
        }
        let next2: String = chars[at..chars.len().min(at + 2)].iter().collect();
        if next2 == "::" {
            at += 2;
            if chars.get(at) == Some(&'{') {
                // A group: each item is a path relative to the prefix.
                let mut out = Vec::new();
                at += 1;
                loop {
                    while at < chars.len() && (chars[at].is_whitespace() || chars[at] == ',') {
                        at += 1;
                    }
                    if at >= chars.len() || chars[at] == '}' {
                        return (out, at + 1);
                    }
                    let (inner, end) = read_path(chars, at);
                    for p in inner {
                        out.push(prefix.iter().cloned().chain(p).collect());
                    }
                    if end <= at {
                        return (out, at + 1);
                    }
                    at = end;
                    // Skip `as alias`.
                    while at < chars.len() && !matches!(chars[at], ',' | '}') {
                        at += 1;
                    }
                }
            }
            continue;
        }
        return (vec![prefix], at);
    }
}

/// The module a path names from `from`, if it is another module of the crate.
fn resolve(
    from: &Module,
    path: &[String],
    known: &BTreeSet<Module>,
    exports: &HashMap<(Module, String), Module>,
) -> Option<Module> {
    let mut base: Module = Vec::new();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => rest = &path[1..],
        Some("self") | Some("super") => {
            base = from.clone();
            while let Some(seg) = rest.first() {
                match seg.as_str() {
                    "self" => rest = &rest[1..],
                    "super" => {
                        base.pop();
                        rest = &rest[1..];
                    }
                    _ => break,
                }
            }
        }
        _ => return None,
    }
    let mut module = base;
    for seg in rest {
        let mut next = module.clone();
        next.push(seg.clone());
        if known.contains(&next) {
            module = next;
        } else if let Some(target) = exports.get(&(module.clone(), seg.clone())) {
            module = target.clone();
            break;
        } else {
            break;
        }
    }
    (!module.is_empty()).then_some(module)
}

/// Re-exports: `pub use x::Name` in module `m` makes `m::Name` mean module `x`.
fn reexports(files: &BTreeMap<Module, String>, known: &BTreeSet<Module>) -> HashMap<(Module, String), Module> {
    let mut out = HashMap::new();
    for (module, code) in files {
        for stmt in code.split(';') {
            let stmt = stmt.trim();
            let Some(at) = stmt.find("use ") else { continue };
            if !stmt[..at].trim_start().starts_with("pub") {
                continue;
            }
            let body = &stmt[at + 4..];
            let body = if body.starts_with("crate::") || body.starts_with("self::") || body.starts_with("super::") {
                body.to_string()
            } else {
                format!("self::{body}")
            };
            for p in paths(&body) {
                let (Some(name), Some(target)) = (p.last(), resolve(module, &p[..p.len() - 1], known, &HashMap::new()))
                else {
                    continue;
                };
                out.insert((module.clone(), name.clone()), target);
            }
        }
    }
    out
}

/// Strongly connected groups of more than one module (Tarjan).
fn circles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: HashMap<&'a Module, usize>,
        low: HashMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on: BTreeSet<&'a Module>,
        out: Vec<Vec<Module>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Module) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.edges.get(v).into_iter().flatten() {
            let Some((w, _)) = s.edges.get_key_value(w) else { continue };
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                group.push(w.clone());
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                s.out.push(group);
            }
        }
    }
    let mut s = State {
        edges,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out.sort_by_key(|g| std::cmp::Reverse(g.len()));
    s.out
}

/// A crate's circles, and its reference graph.
fn crate_circles(krate: &Path) -> (Vec<Vec<Module>>, BTreeMap<Module, BTreeSet<Module>>) {
    let files = modules(&krate.join("src"));
    let known: BTreeSet<Module> = files.keys().cloned().collect();
    let exports = reexports(&files, &known);
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, code) in &files {
        if module.is_empty() {
            continue;
        }
        let out = edges.entry(module.clone()).or_default();
        for p in paths(code) {
            if let Some(target) = resolve(module, &p, &known, &exports)
                && &target != module
            {
                out.insert(target);
            }
        }
    }
    (circles(&edges), edges)
}

fn show(m: &Module) -> String {
    m.join("::")
}

#[test]
fn no_crate_has_a_module_circle_larger_than_its_ceiling() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    let mut crates: Vec<PathBuf> =
        std::fs::read_dir(workspace().join("crates")).unwrap().flatten().map(|e| e.path()).collect();
    crates.sort();
    for krate in crates {
        let name = krate.file_name().unwrap().to_string_lossy().into_owned();
        let (found, edges) = crate_circles(&krate);
        let largest = found.first().map_or(0, Vec::len);
        let ceiling = CEILINGS.iter().find(|(n, _)| *n == name).map_or(LIMIT, |(_, c)| *c);
        report.push(format!("{name}: largest circle {largest} (ceiling {ceiling})"));
        for group in &found {
            report.push(format!("  {}: {}", group.len(), group.iter().map(show).collect::<Vec<_>>().join(", ")));
            // Which module reaches which inside the circle: where to cut it.
            for m in group.iter().filter(|_| group.len() > LIMIT) {
                let inside: Vec<String> = edges[m].iter().filter(|t| group.contains(t)).map(show).collect();
                report.push(format!("    {} → {}", show(m), inside.join(", ")));
            }
        }
        if largest > ceiling {
            failures.push(format!("{name}: a circle of {largest} modules (ceiling {ceiling})"));
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}\n\n{}", failures.join("\n"), report.join("\n"));
}

#[test]
fn the_checker_sees_a_circle_and_reads_paths_as_rust_writes_them() {
    let code = "use crate::{a::{B, c}, d as e};\nlet x = super::super::f::G;\nfoo::crate::not;";
    let got = paths(code);
    let want: Vec<Vec<String>> =
        vec![vec!["crate", "a", "B"], vec!["crate", "a", "c"], vec!["crate", "d"], vec!["super", "super", "f", "G"]]
            .into_iter()
            .map(|p| p.into_iter().map(String::from).collect())
            .collect();
    assert_eq!(got, want);
    let m = |s: &str| s.split("::").map(String::from).collect::<Module>();
    let mut edges = BTreeMap::new();
    edges.insert(m("a"), BTreeSet::from([m("b")]));
    edges.insert(m("b"), BTreeSet::from([m("c")]));
    edges.insert(m("c"), BTreeSet::from([m("a")]));
    edges.insert(m("d"), BTreeSet::from([m("a")]));
    assert_eq!(circles(&edges), vec![vec![m("a"), m("b"), m("c")]]);
    let known = BTreeSet::from([m("x"), m("x::y"), m("z")]);
    let mut exports = HashMap::new();
    exports.insert((Vec::new(), "Thing".to_string()), m("z"));
    let path = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    assert_eq!(resolve(&m("x::y"), &path("super::super::z::T"), &known, &exports), Some(m("z")));
    assert_eq!(resolve(&m("x::y"), &path("crate::Thing"), &known, &exports), Some(m("z")));
    assert_eq!(resolve(&m("x::y"), &path("super::Q"), &known, &exports), Some(m("x")));
}
