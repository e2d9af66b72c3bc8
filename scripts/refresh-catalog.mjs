#!/usr/bin/env node
// Refresh crates/pi-config/catalog/catalog.json from the reference's published
// package (@earendil-works/pi-ai). Reads data only:
//   - every chat model from dist/providers/data/<provider>.json, as it is;
//   - each built-in provider's id, display name, base URL and headers from the
//     provider objects the package exports (constructed, never called);
//   - each provider's key variables by asking the package's exported
//     `findEnvKeys(provider, env)` which variables of a fully-set `env` it finds.
// It also rewrites the table of providers in docs/providers.md (between the
// `catalog:begin` and `catalog:end` markers).
// The build reads the written file; it never needs npm or this script.
//
// Usage: node scripts/refresh-catalog.mjs [PATH/TO/node_modules/@earendil-works]
//        (default /work/ref/node_modules/@earendil-works, holding pi-ai and
//        pi-coding-agent)

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const scope = path.resolve(process.argv[2] ?? "/work/ref/node_modules/@earendil-works");
const pkg = path.join(scope, "pi-ai");
const agent = path.join(scope, "pi-coding-agent");
const out = path.join(here, "..", "crates", "pi-config", "catalog", "catalog.json");
const dist = path.join(pkg, "dist");
const load = (rel) => import(pathToFileURL(path.join(dist, rel)).href);

const version = JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")).version;
const manifest = JSON.parse(fs.readFileSync(path.join(dist, "providers", "data", ".manifest.json"), "utf8"));
const { builtinProviders } = await load("providers/all.js");
const { findEnvKeys } = await load("env-api-keys.js");
const { defaultModelPerProvider } = await import(pathToFileURL(path.join(agent, "dist", "core", "model-resolver.js")).href);

// An environment in which every variable is set: findEnvKeys then answers with
// the provider's whole list of key variables, in its order.
const everything = new Proxy({}, { get: (_, name) => (typeof name === "string" ? "set" : undefined) });

function chatModels(id) {
  const file = path.join(dist, "providers", "data", `${id}.json`);
  if (!fs.existsSync(file)) return [];
  const byApi = JSON.parse(fs.readFileSync(file, "utf8"));
  const models = [];
  for (const entries of Object.values(byApi)) {
    for (const model of Object.values(entries)) {
      if ((model.type ?? "chat") !== "chat") continue;
      const { type: _type, provider: _provider, ...facts } = model;
      models.push(facts);
    }
  }
  return models;
}

const providers = [];
for (const p of builtinProviders()) {
  const models = chatModels(p.id);
  const entry = { id: p.id, name: p.name };
  if (p.baseUrl) entry.baseUrl = p.baseUrl;
  const apis = [...new Set(models.map((m) => m.api))];
  if (apis.length > 0) entry.apis = apis;
  entry.keyEnv = findEnvKeys(p.id, everything) ?? [];
  if (p.headers && Object.keys(p.headers).length > 0) entry.headers = p.headers;
  entry.models = models;
  providers.push(entry);
}

// One provider, and one model, per line: small diffs when the catalog changes.
const lines = [];
lines.push("{");
lines.push(`"source": ${JSON.stringify(`@earendil-works/pi-ai ${version}`)},`);
lines.push(`"generatedAt": ${JSON.stringify(manifest.generatedAt)},`);
lines.push(`"defaultModels": ${JSON.stringify(Object.entries(defaultModelPerProvider))},`);
lines.push(`"providers": [`);
providers.forEach((p, i) => {
  const { models, ...head } = p;
  const headText = JSON.stringify(head);
  lines.push(`${headText.slice(0, -1)}, "models": [`);
  models.forEach((m, j) => lines.push(JSON.stringify(m) + (j + 1 < models.length ? "," : "")));
  lines.push(`]}${i + 1 < providers.length ? "," : ""}`);
});
lines.push("]");
lines.push("}");
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, lines.join("\n") + "\n");
const count = providers.reduce((n, p) => n + p.models.length, 0);
console.log(`${path.relative(process.cwd(), out)}: ${providers.length} providers, ${count} chat models (pi-ai ${version})`);

// The table of providers in docs/providers.md.
const docs = path.join(here, "..", "docs", "providers.md");
const begin = "<!-- catalog:begin (written by scripts/refresh-catalog.mjs) -->";
const end = "<!-- catalog:end -->";
const text = fs.readFileSync(docs, "utf8");
const at = text.indexOf(begin);
const stop = text.indexOf(end);
if (at >= 0 && stop > at) {
  const code = (xs) => xs.map((x) => `\`${x}\``).join(", ");
  const rows = providers.map((p) => {
    const keys = p.id === "amazon-bedrock" ? "AWS credentials (see below)" : code(p.keyEnv) || "login only";
    const extra = p.id === "google-vertex" ? ", or ADC (see below)" : "";
    return `| \`${p.id}\` | ${p.name} | ${code(p.apis ?? []) || "–"} | ${keys}${extra} | ${p.models.length} |`;
  });
  const table = [
    `${providers.length} providers, ${count} chat models, from ${"`"}@earendil-works/pi-ai ${version}${"`"}.`,
    "",
    "| id | name | API | key variables | models |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
  fs.writeFileSync(docs, `${text.slice(0, at + begin.length)}\n${table}\n${text.slice(stop)}`);
  console.log(`${path.relative(process.cwd(), docs)}: table of providers rewritten`);
}
