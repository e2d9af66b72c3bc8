//! Extensions importing packages from `node_modules` through the real `pi` in
//! print mode: a package of our own (ES module and CommonJS, always), and
//! real packages from npm (`yaml`, `zod`, `minimatch`, `p-limit`, installed by
//! `.ci/run` into `$PI_NPM_PACKAGES`; skipped with a note when missing).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};

use pi_test_support::{MockServer, Turn, isolated_pi};
use serde_json::{Value, json};

/// Run `pi -p` with the extension `ext` in `work`; the model calls its tool
/// `probe`; the tool's answer as JSON.
fn probe(work: &Path, ext: &str) -> Value {
    let root = work.parent().unwrap();
    let (home, tmp) = (root.join("home"), root.join("tmp"));
    std::fs::create_dir_all(home.join(".pi/agent")).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let server = MockServer::start(vec![Turn::tool("probe", json!({})), Turn::text("done")]);
    server.write_models_json(&home.join(".pi/agent"), "openai-completions");
    let out = isolated_pi(env!("CARGO_BIN_EXE_pi"), &home, work, &tmp)
        .args(["--offline", "--no-session", "--model", "mock/mock-1", "-e", ext, "-p", "go"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reqs = server.requests();
    let tool = reqs[1].body["messages"].as_array().unwrap().iter().find(|m| m["role"] == "tool").cloned().unwrap();
    serde_json::from_str(tool["content"].as_str().unwrap()).unwrap()
}

fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

const TOOL: &str = r#"
export default function (pi: any) {
  pi.registerTool({
    name: "probe", label: "probe", description: "what the imports gave",
    parameters: { type: "object", properties: {} },
    async execute() { return { content: [{ type: "text", text: JSON.stringify(await result()) }], details: {} }; },
  });
}
"#;

#[test]
fn an_extension_imports_esm_and_commonjs_packages_from_node_modules() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    write(
        &work.join("node_modules/esm-pkg/package.json"),
        r#"{"name": "esm-pkg", "type": "module", "exports": {".": {"import": "./i.js", "require": "./r.cjs"}}}"#,
    );
    write(&work.join("node_modules/esm-pkg/i.js"), "export const greet = (n) => `hello ${n}`;");
    write(&work.join("node_modules/esm-pkg/r.cjs"), "exports.greet = () => 'wrong condition';");
    write(&work.join("node_modules/cjs-pkg/package.json"), r#"{"name": "cjs-pkg", "main": "lib/index.js"}"#);
    write(
        &work.join("node_modules/cjs-pkg/lib/index.js"),
        "const d = require('./data.json');\nmodule.exports = { total: d.a + d.b, here: __dirname.endsWith('cjs-pkg/lib') };",
    );
    write(&work.join("node_modules/cjs-pkg/lib/data.json"), r#"{"a": 40, "b": 2}"#);
    let ext = format!(
        "import {{ greet }} from \"esm-pkg\";\nimport cjs, {{ total }} from \"cjs-pkg\";\nasync function result() {{ return {{ greet: greet(\"pi\"), cjs, total }}; }}\n{TOOL}"
    );
    write(&work.join("ext.ts"), &ext);
    let v = probe(&work, "ext.ts");
    assert_eq!(v, json!({"greet": "hello pi", "cjs": {"total": 42, "here": true}, "total": 42}));
}

#[test]
fn a_missing_package_stops_start_up_naming_the_package_and_the_importer() {
    let dir = tempfile::tempdir().unwrap();
    let (home, work, tmp) = (dir.path().join("home"), dir.path().join("work"), dir.path().join("tmp"));
    for d in [&home.join(".pi/agent"), &work, &tmp] {
        std::fs::create_dir_all(d).unwrap();
    }
    write(&work.join("ext.ts"), "import YAML from \"yaml\";\nexport default function () { YAML; }\n");
    let out = isolated_pi(env!("CARGO_BIN_EXE_pi"), &home, &work, &tmp)
        .args(["--offline", "--no-session", "-e", "ext.ts", "-p", "go"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let importer = work.join("ext.ts");
    assert!(err.contains(&format!("Cannot find package 'yaml' imported from {}", importer.display())), "{err}");
}

/// The folder holding `node_modules` with the real packages, if installed.
fn npm_packages() -> Option<PathBuf> {
    let dir = std::env::var_os("PI_NPM_PACKAGES").map(PathBuf::from)?;
    let ok = ["yaml", "zod", "minimatch", "p-limit"].iter().all(|p| dir.join("node_modules").join(p).is_dir());
    ok.then_some(dir)
}

#[test]
fn real_npm_packages_load_in_the_engine() {
    let Some(packages) = npm_packages() else {
        eprintln!("note: npm test packages not installed (set PI_NPM_PACKAGES, see .ci/run); skipping");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::os::unix::fs::symlink(packages.join("node_modules"), work.join("node_modules")).unwrap();
    let ext = format!(
        r#"import YAML from "yaml";
import {{ minimatch }} from "minimatch";
import {{ z }} from "zod";
import pLimit from "p-limit";
import {{ createRequire }} from "node:module";
const require = createRequire(import.meta.url);
async function result() {{
  const limit = pLimit(1);
  return {{
    yaml: YAML.parse("a: [1, 2]\nb: x"),
    dump: YAML.stringify({{ k: "v" }}),
    glob: [minimatch("src/a/b.ts", "src/**/*.ts"), minimatch("b.js", "*.ts")],
    zod: [z.object({{ n: z.number() }}).safeParse({{ n: 1 }}).success, z.number().safeParse("x").success],
    limited: await Promise.all([1, 2, 3].map((n) => limit(async () => n * 2))),
    required: typeof require("yaml").parse,
  }};
}}
{TOOL}"#
    );
    write(&work.join("ext.ts"), &ext);
    let v = probe(&work, "ext.ts");
    assert_eq!(
        v,
        json!({"yaml": {"a": [1, 2], "b": "x"}, "dump": "k: v\n", "glob": [true, false], "zod": [true, false], "limited": [2, 4, 6], "required": "function"})
    );
}
