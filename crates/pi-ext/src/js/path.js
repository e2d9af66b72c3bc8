// `node:path` (POSIX) for extensions: pure string functions, no file system access.
const realm = globalThis.__pi_realm;

function normalizeParts(parts, absolute) {
  const out = [];
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
      continue;
    }
    out.push(part);
  }
  return out;
}

export const sep = "/";
export const delimiter = ":";

export function isAbsolute(p) {
  return String(p).startsWith("/");
}

export function normalize(p) {
  p = String(p);
  if (p === "") return ".";
  const absolute = p.startsWith("/");
  const trailing = p.endsWith("/");
  let out = normalizeParts(p.split("/"), absolute).join("/");
  if (out === "" && !absolute) out = ".";
  if (out !== "" && trailing) out += "/";
  return (absolute ? "/" : "") + out;
}

export function join(...parts) {
  const kept = parts.map(String).filter((p) => p !== "");
  if (kept.length === 0) return ".";
  return normalize(kept.join("/"));
}

export function resolve(...parts) {
  let resolved = "";
  for (let i = parts.length - 1; i >= 0 && !resolved.startsWith("/"); i--) {
    const p = String(parts[i]);
    if (p === "") continue;
    resolved = resolved === "" ? p : `${p}/${resolved}`;
  }
  if (!resolved.startsWith("/")) resolved = `${realm.cwd}/${resolved}`;
  const out = "/" + normalizeParts(resolved.split("/"), true).join("/");
  return out;
}

export function dirname(p) {
  p = String(p);
  if (p === "") return ".";
  const absolute = p.startsWith("/");
  let end = p.length;
  while (end > 1 && p[end - 1] === "/") end--;
  const i = p.lastIndexOf("/", end - 1);
  if (i < 0) return ".";
  if (i === 0) return absolute ? "/" : ".";
  let d = p.slice(0, i);
  while (d.length > 1 && d.endsWith("/")) d = d.slice(0, -1);
  return d;
}

export function basename(p, ext) {
  p = String(p);
  let end = p.length;
  while (end > 1 && p[end - 1] === "/") end--;
  let base = p.slice(p.lastIndexOf("/", end - 1) + 1, end);
  if (ext !== undefined && base.endsWith(ext) && base !== ext) base = base.slice(0, base.length - ext.length);
  return base;
}

export function extname(p) {
  const base = basename(p);
  const i = base.lastIndexOf(".");
  if (i <= 0) return "";
  return base.slice(i);
}

export function relative(from, to) {
  const a = resolve(from).split("/").filter(Boolean);
  const b = resolve(to).split("/").filter(Boolean);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => ".."), ...b.slice(i)].join("/");
}

export function parse(p) {
  p = String(p);
  const root = p.startsWith("/") ? "/" : "";
  const base = basename(p);
  const ext = extname(p);
  let dir = dirname(p);
  if (dir === "." && !p.includes("/")) dir = "";
  return { root, dir, base, ext, name: ext ? base.slice(0, base.length - ext.length) : base };
}

export function format(obj) {
  const dir = obj.dir || obj.root || "";
  const base = obj.base || `${obj.name || ""}${obj.ext || ""}`;
  if (!dir) return base;
  return dir === obj.root ? `${dir}${base}` : `${dir}/${base}`;
}

export function toNamespacedPath(p) {
  return p;
}

const path = { sep, delimiter, isAbsolute, normalize, join, resolve, dirname, basename, extname, relative, parse, format, toNamespacedPath };
path.posix = path;
// `path.win32`: Windows' separators, the POSIX functions (pi runs on POSIX
// systems; code that only names it, or reads `sep`, works).
export const win32 = { ...path, sep: "\\", delimiter: ";" };
win32.win32 = win32;
win32.posix = path;
path.win32 = win32;
export const posix = path;
export default path;
