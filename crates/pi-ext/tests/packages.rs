//! Packages from `node_modules` as Node resolves them: `exports` conditions
//! and subpaths, `imports`, `module` / `main`, JSON, CommonJS (interop both
//! ways, cycles, `__dirname`), and the errors for what is missing.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};

use pi_agent::{CallRequest, Caller, Dispatcher, RawArgs, Registry};
use pi_ext::{ExtensionHost, HostOptions};
use pi_tools::{Content, ToolContext};
use serde_json::{Value, json};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packages")
}

/// Load `ext` and call its tool `tool`, whose text is JSON.
async fn run_tool(ext: &Path, tool: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let opts = HostOptions { cwd: dir.path().to_path_buf(), ..Default::default() };
    let loaded = ExtensionHost::load(&[ext.to_path_buf()], opts).await.unwrap_or_else(|e| panic!("{e}"));
    let mut reg = Registry::new();
    for t in &loaded.tools {
        reg.register(t.clone());
    }
    reg.reset_active(&[tool.to_string()]);
    let d = Dispatcher::new(reg);
    let req = CallRequest { id: "c".into(), name: tool.into(), args: RawArgs::Json(json!({})), parent: None };
    let done = d.call(req, Caller::Model, &ToolContext::new(dir.path())).await;
    let text = match done.result.content.first() {
        Some(Content::Text { text }) => text.clone(),
        other => panic!("no text: {other:?}"),
    };
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

async fn load_error(dir: &Path, source: &str) -> String {
    let path = dir.join("ext.ts");
    std::fs::write(&path, source).unwrap();
    let mut opts = HostOptions { cwd: dir.to_path_buf(), ..Default::default() };
    opts.limits.time = std::time::Duration::from_millis(300);
    match ExtensionHost::load(&[path], opts).await {
        Ok(_) => panic!("loaded: {source}"),
        Err(e) => e.message,
    }
}

#[tokio::test]
async fn every_resolution_rule() {
    let v = run_tool(&fixtures().join("ext/index.ts"), "resolved").await;
    let nm = fixtures().join("node_modules");
    // exports: nested conditions in the object's order, subpaths, patterns, package.json; imports.
    assert_eq!(v["kind"], "import");
    assert_eq!(v["via"], "imports-field");
    assert_eq!(v["feature"], "subpath");
    assert_eq!(v["util"], "pattern-a");
    assert_eq!(v["condName"], "cond");
    assert_eq!(v["requireKind"], "require", "require() takes the require condition");
    let internal = v["internal"].as_str().unwrap();
    assert!(
        internal.contains("Package subpath './internal/x' is not defined by \"exports\" of package 'cond'"),
        "{internal}"
    );
    // main (without extension), JSON, relative require, __dirname / __filename.
    assert_eq!(
        v["legacy"],
        json!({"name": "legacy", "version": "2.0.0", "file": true, "dir": true, "answer": 42, "helper": 42, "not-an-identifier": true})
    );
    assert_eq!(v["answer"], 42, "named export of a CommonJS key");
    assert_eq!(v["helper"], 42);
    assert_eq!(v["modfield"], "module", "import prefers `module` over `main`");
    assert_eq!(v["scoped"], true);
    // CommonJS: default is module.exports (its own `default` key too), this === exports, require of built-ins and ESM.
    assert_eq!(v["cjs"]["joined"], "a/b");
    assert_eq!(v["cjs"]["hasReadFileSync"], true);
    assert_eq!(v["cjs"]["scoped"], true);
    assert_eq!(v["cjs"]["default"], "named-default");
    assert_eq!(v["joined"], "a/b");
    assert_eq!(v["thisIsExports"], true);
    assert_eq!(v["cjsNsDefault"], true);
    // A cycle sees the other side's exports as they are so far.
    assert_eq!(
        v["cycle"],
        json!({"early": "a-early", "late": "a-late", "bSawEarly": "a-early", "bSawLate": "not yet", "bDone": true})
    );
    assert_eq!(v["nearer"], "nearest node_modules wins");
    assert_eq!(v["config"], json!({"greeting": "hello", "list": [1, 2, 3]}));
    assert_eq!(v["requireEsm"]["esm"], 1, "require() of an ES module gives its namespace");
    assert_eq!(v["requireJson"], "hello");
    assert_eq!(v["requireResolve"], nm.join("legacy/lib/main.js").to_string_lossy().as_ref());
    assert_eq!(v["requireMissing"]["code"], "MODULE_NOT_FOUND");
    let missing = v["requireMissing"]["error"].as_str().unwrap();
    assert!(missing.starts_with("Cannot find package 'not-installed' imported from "), "{missing}");
    assert!(missing.contains("ext/index.ts"), "{missing}");
    let missing = v["missingImport"].as_str().unwrap();
    assert!(missing.contains("Cannot find package 'not-installed' imported from "), "{missing}");
}

#[tokio::test]
async fn missing_and_broken_packages_name_the_package_and_the_importer() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let importer = d.join("ext.ts").to_string_lossy().into_owned();
    let e = load_error(d, "import z from \"zod\";\nexport default function () { z; }").await;
    assert!(e.contains(&format!("Cannot find package 'zod' imported from {importer}")), "{e}");

    // A package whose own dependency is missing names that dependency and the package's file.
    let pkg = d.join("node_modules/uses-missing");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(pkg.join("package.json"), r#"{"name": "uses-missing", "type": "module", "main": "index.js"}"#)
        .unwrap();
    std::fs::write(pkg.join("index.js"), "import 'left-pad';\nexport default 1;").unwrap();
    let e = load_error(d, "import u from \"uses-missing\";\nexport default function () { u; }").await;
    let file = pkg.join("index.js").to_string_lossy().into_owned();
    assert!(e.contains(&format!("Cannot find package 'left-pad' imported from {file}")), "{e}");

    // Same through require().
    std::fs::write(pkg.join("package.json"), r#"{"name": "uses-missing", "main": "index.js"}"#).unwrap();
    std::fs::write(pkg.join("index.js"), "module.exports = require('left-pad');").unwrap();
    let e = load_error(d, "import u from \"uses-missing\";\nexport default function () { u; }").await;
    assert!(e.contains(&format!("Cannot find package 'left-pad' imported from {file}")), "{e}");

    // Bad JSON, and exports that do not offer the root.
    std::fs::write(d.join("bad.json"), "{ nope").unwrap();
    let e = load_error(d, "import j from \"./bad.json\";\nexport default function () { j; }").await;
    assert!(e.contains("Invalid JSON in ") && e.contains("bad.json"), "{e}");
    let only = d.join("node_modules/only-sub");
    std::fs::create_dir_all(&only).unwrap();
    std::fs::write(only.join("package.json"), r#"{"name": "only-sub", "exports": {"./x": "./x.js"}}"#).unwrap();
    let e = load_error(d, "import o from \"only-sub\";\nexport default function () { o; }").await;
    assert!(e.contains("Package subpath '.' is not defined by \"exports\" of package 'only-sub'"), "{e}");
    // A package entry that names no file.
    let gone = d.join("node_modules/gone");
    std::fs::create_dir_all(&gone).unwrap();
    std::fs::write(gone.join("package.json"), r#"{"name": "gone", "exports": "./nothere.js"}"#).unwrap();
    let e = load_error(d, "import g from \"gone\";\nexport default function () { g; }").await;
    assert!(e.contains("Cannot find module 'gone' imported from"), "{e}");
    // A CommonJS module that throws while loading.
    let throws = d.join("node_modules/throws");
    std::fs::create_dir_all(&throws).unwrap();
    std::fs::write(throws.join("index.js"), "throw new Error('cjs boom');").unwrap();
    let e = load_error(d, "import t from \"throws\";\nexport default function () { t; }").await;
    assert!(e.contains("cjs boom"), "{e}");
    // One that never ends is stopped by the time limit, as any extension code.
    let spins = d.join("node_modules/spins");
    std::fs::create_dir_all(&spins).unwrap();
    std::fs::write(spins.join("index.js"), "for (;;) {}").unwrap();
    let e = load_error(d, "import s from \"spins\";\nexport default function () { s; }").await;
    assert!(e.contains("exceeded its time limit"), "{e}");
    // A require() cycle of ES modules and a self-require do not hang either.
    let selfreq = d.join("node_modules/selfreq");
    std::fs::create_dir_all(&selfreq).unwrap();
    std::fs::write(selfreq.join("index.js"), "exports.me = require('./index.js') === exports;").unwrap();
    std::fs::write(
        d.join("ok.ts"),
        "import { me } from \"selfreq\";\nexport default function (pi: any) { if (!me) throw new Error('not self'); }",
    )
    .unwrap();
    let opts = HostOptions { cwd: d.to_path_buf(), ..Default::default() };
    ExtensionHost::load(&[d.join("ok.ts")], opts).await.unwrap_or_else(|e| panic!("{e}"));
}
