#!/usr/bin/env node
// Refresh crates/pi-ext/src/js/surface/*.js: the names the reference's
// packages export to extensions, so that an extension importing any of them
// loads in pi's engine. Reads the packages' module namespaces only (nothing
// is called): a constant is written with its value (JSON), a namespace object
// with its constant members, every function and class as a stand-in that
// throws a clear error when it is called or constructed. pi's own modules
// (crates/pi-ext/src/js/*.js) re-export a surface with `export *`, so what
// they implement themselves wins.
// The build reads the written files; it never needs npm or this script.
//
// Usage: node scripts/refresh-ext-surface.mjs [PATH/TO/node_modules]
//        (default /work/ref/node_modules, holding @earendil-works/* and typebox)

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(process.argv[2] ?? "/work/ref/node_modules");
const out = path.join(here, "..", "crates", "pi-ext", "src", "js", "surface");
const agentDist = path.join(root, "@earendil-works", "pi-coding-agent", "dist");

// surface file → [the specifier extensions import, where the reference takes it from]
const MODULES = {
  "coding-agent": ["@earendil-works/pi-coding-agent", path.join(agentDist, "index.js")],
  tui: ["@earendil-works/pi-tui", "@earendil-works/pi-tui"],
  // Extensions importing "@earendil-works/pi-ai" get the reference's extension view of it.
  ai: ["@earendil-works/pi-ai", path.join(agentDist, "core", "extensions", "pi-ai-extension-view.js")],
  "ai-compat": ["@earendil-works/pi-ai/compat", "@earendil-works/pi-ai/compat"],
  "ai-models": ["@earendil-works/pi-ai/models", "@earendil-works/pi-ai/models"],
  "ai-oauth": ["@earendil-works/pi-ai/oauth", "@earendil-works/pi-ai/oauth"],
  "ai-providers": ["@earendil-works/pi-ai/providers/all", "@earendil-works/pi-ai/providers/all"],
  "agent-core": ["@earendil-works/pi-agent-core", "@earendil-works/pi-agent-core"],
  typebox: ["typebox", "typebox"],
  "typebox-value": ["typebox/value", "typebox/value"],
  "typebox-compile": ["typebox/compile", "typebox/compile"],
};

// Node's own modules, for the built-ins pi provides in part or not at all
// (surface node-<name>.js, with a default export holding every name, as Node's).
const NODE_MODULES = [
  "assert", "assert/strict", "async_hooks", "buffer", "child_process", "cluster", "console", "constants",
  "crypto", "dgram", "diagnostics_channel", "dns", "dns/promises", "domain", "events", "fs", "fs/promises",
  "http", "http2", "https", "inspector", "module", "net", "os", "perf_hooks", "punycode",
  "querystring", "readline", "readline/promises", "stream", "stream/consumers", "stream/promises",
  "stream/web", "string_decoder", "timers", "timers/promises", "tls", "trace_events", "tty", "url", "util",
  "util/types", "v8", "vm", "wasi", "worker_threads", "zlib",
];
for (const name of NODE_MODULES) MODULES[`node-${name.replace("/", "-")}`] = [`node:${name}`, `node:${name}`];

/** The largest constant written as it is (bigger ones become stand-ins). */
const MAX_CONSTANT = 16 * 1024;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function isClass(f) {
  return /^class[\s{]/.test(Function.prototype.toString.call(f));
}

/** Whether `v` is data alone: primitives, arrays and plain objects of them. */
function plain(v, depth = 0) {
  if (v === null || ["string", "number", "boolean"].includes(typeof v)) return true;
  if (typeof v !== "object" || depth > 32) return false;
  const proto = Object.getPrototypeOf(v);
  if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return false;
  return Object.values(v).every((m) => plain(m, depth + 1));
}

/** Paths of the machine running this script, never written. */
const MACHINE = [os.homedir(), path.dirname(process.execPath), process.cwd(), root].filter((p) => p.length > 1);

/** The largest constant of a Node module (its runtime state is not copied). */
const MAX_NODE_CONSTANT = 4 * 1024;

/** The limit for the module being written. */
let limit = MAX_CONSTANT;

/** A JSON text of `v` when it is plain data and small, else undefined. */
function constant(v) {
  if (!plain(v)) return undefined;
  try {
    const text = JSON.stringify(v);
    if (text === undefined || text.length > limit) return undefined;
    // Nothing of the machine this ran on (its paths).
    if (MACHINE.some((p) => text.includes(p))) return undefined;
    const back = JSON.parse(text);
    return JSON.stringify(back) === JSON.stringify(v) ? text : undefined;
  } catch {
    return undefined;
  }
}

/** The JavaScript expression standing for export `name` (value `v`) of `spec`. */
function standIn(spec, name, v) {
  const where = JSON.stringify(spec);
  const label = JSON.stringify(name);
  if (typeof v === "function") return `unavailable(${where}, ${label})`;
  if (v === undefined) return "undefined";
  if (typeof v === "symbol") return `Symbol.for(${JSON.stringify(v.description ?? name)})`;
  if (typeof v === "bigint") return `${v}n`;
  const data = constant(v);
  if (data !== undefined) return data;
  if (v && typeof v === "object" && !Array.isArray(v)) {
    const members = [];
    for (const key of Object.keys(v).sort().filter((k) => !k.startsWith("_"))) {
      const member = v[key];
      const text =
        typeof member === "function"
          ? `unavailable(${where}, ${JSON.stringify(`${name}.${key}`)})`
          : (constant(member) ?? "undefined");
      members.push(`  ${JSON.stringify(key)}: ${text},`);
    }
    return `frozen({\n${members.join("\n")}\n})`;
  }
  return "undefined";
}

/** The file a bare specifier names in `dir`'s node_modules (`exports` or `main`). */
function resolveIn(dir, spec) {
  const parts = spec.split("/");
  const n = spec.startsWith("@") ? 2 : 1;
  const pkgDir = path.join(dir, ...parts.slice(0, n));
  const sub = parts.slice(n).join("/");
  const pj = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8"));
  const pick = (e) => (typeof e === "string" ? e : e && (pick(e.import) ?? pick(e.default)));
  if (pj.exports) {
    const key = sub ? `./${sub}` : ".";
    if (pj.exports[key]) return path.join(pkgDir, pick(pj.exports[key]));
    for (const [pattern, target] of Object.entries(pj.exports)) {
      const [head, tail] = pattern.split("*");
      if (tail !== undefined && key.startsWith(head) && key.endsWith(tail)) {
        const star = key.slice(head.length, key.length - tail.length);
        return path.join(pkgDir, pick(target).replace("*", star));
      }
    }
    throw new Error(`${spec}: not exported`);
  }
  return path.join(pkgDir, sub || pj.main || "index.js");
}

fs.mkdirSync(out, { recursive: true });
let total = 0;
for (const [file, [spec, from]] of Object.entries(MODULES)) {
  const node = from.startsWith("node:");
  limit = node ? MAX_NODE_CONSTANT : MAX_CONSTANT;
  const ns = await import(node ? from : pathToFileURL(from.startsWith("/") ? from : resolveIn(root, from)).href);
  // Node's `_private` names (module caches and the like) are not copied.
  const names = Object.keys(ns)
    .filter((n) => n !== "default" && IDENT.test(n) && !(node && n.startsWith("_")))
    .sort();
  const lines = [
    `// Generated by scripts/refresh-ext-surface.mjs from the names ${spec} exports`,
    node ? "// (Node.js 22's): do not edit. pi's own module, if any, re-exports this one" : "// to the reference's extensions: do not edit. pi's own module re-exports this one",
    "// (`export *`); what it defines itself wins. Functions and classes stand in as",
    "// `unavailable` (they throw, naming themselves, when called or constructed).",
    'import { frozen, unavailable } from "pi:surface-support";',
    "",
  ];
  // Local names `s<N>`: an export may be called `Object` or `Symbol`.
  names.forEach((name, i) => lines.push(`const s${i} = ${standIn(spec, name, ns[name])};`));
  lines.push("", "export {", ...names.map((name, i) => `  s${i} as ${name},`), "};");
  if (node) lines.push("export default {", ...names.map((name, i) => `  ${name}: s${i},`), "};");
  fs.writeFileSync(path.join(out, `${file}.js`), `${lines.join("\n")}\n`);
  total += names.length;
  console.log(`${file}.js: ${names.length} names of ${spec}`);
}
// The build's list of them (crates/pi-ext/src/modules.rs includes it).
const list = Object.keys(MODULES)
  .map((file) => `    Cached::new("pi:surface/${file}", include_str!("${file}.js")),`)
  .join("\n");
fs.writeFileSync(
  path.join(out, "list.rs"),
  "// Generated by scripts/refresh-ext-surface.mjs: do not edit.\n" +
    "/// The names the reference's packages and Node's built-ins export, as stand-ins.\n" +
    `static SURFACES: [Cached; ${Object.keys(MODULES).length}] = [\n${list}\n];\n`,
);
console.log(`${total} names in ${Object.keys(MODULES).length} surfaces`);
