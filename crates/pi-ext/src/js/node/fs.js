// node:fs over the host's synchronous file operations: the sync calls, their
// callback forms and fs.promises (which run the same operation and settle
// on the next microtask), constants, Stats and Dirent.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-fs";
const node = globalThis.__pi_node;
const { Buffer, nodeError, argError, toLatin1, EventEmitter } = node.lib;

function toPath(p, name = "path") {
  if (typeof p === "string") return p;
  if (p && typeof p.href === "string" && p.protocol === "file:") return decodeURIComponent(p.pathname);
  if (p instanceof Uint8Array) return Buffer.from(p).toString();
  throw argError(name, "of type string or an instance of Buffer or URL", p);
}
function hostFs(op, args) {
  return JSON.parse(node.fs(op, JSON.stringify(args)));
}
function optionsOf(options) {
  return typeof options === "string" ? { encoding: options } : options || {};
}
function bytesOf(data, encoding) {
  if (typeof data === "string") {
    if (!encoding || encoding === "utf8" || encoding === "utf-8") return { text: data, binary: false };
    return { text: toLatin1(Buffer.from(data, encoding)), binary: true };
  }
  if (ArrayBuffer.isView(data)) return { text: toLatin1(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)), binary: true };
  throw argError("data", "of type string or an instance of Buffer, TypedArray, or DataView", data);
}

class Stats {
  constructor(raw) {
    Object.assign(this, raw);
    for (const k of ["isFile", "isDirectory", "isSymbolicLink"]) delete this[k];
    Object.defineProperty(this, "_kind", { value: raw, enumerable: false });
    this.atime = new Date(raw.atimeMs);
    this.mtime = new Date(raw.mtimeMs);
    this.ctime = new Date(raw.ctimeMs);
    this.birthtime = new Date(raw.birthtimeMs);
  }
  isFile() {
    return this._kind.isFile;
  }
  isDirectory() {
    return this._kind.isDirectory;
  }
  isSymbolicLink() {
    return this._kind.isSymbolicLink;
  }
  isFIFO() {
    return false;
  }
  isSocket() {
    return false;
  }
  isBlockDevice() {
    return false;
  }
  isCharacterDevice() {
    return false;
  }
}
class Dirent {
  constructor(name, kind, parentPath) {
    this.name = name;
    this.parentPath = parentPath;
    this.path = parentPath;
    Object.defineProperty(this, "_kind", { value: kind, enumerable: false });
  }
  isFile() {
    return this._kind === "file";
  }
  isDirectory() {
    return this._kind === "dir";
  }
  isSymbolicLink() {
    return this._kind === "symlink";
  }
  isFIFO() {
    return false;
  }
  isSocket() {
    return false;
  }
  isBlockDevice() {
    return false;
  }
  isCharacterDevice() {
    return false;
  }
}

export const constants = {
  F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1,
  O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_EXCL: 128, O_TRUNC: 512, O_APPEND: 1024,
  S_IFMT: 61440, S_IFREG: 32768, S_IFDIR: 16384, S_IFLNK: 40960,
  COPYFILE_EXCL: 1,
};
export const F_OK = 0, R_OK = 4, W_OK = 2, X_OK = 1;

export function existsSync(p) {
  try {
    return hostFs("exists", { path: toPath(p) });
  } catch {
    return false;
  }
}
export function readFileSync(p, options) {
  const { encoding, flag } = optionsOf(options);
  void flag;
  const path = toPath(p);
  if (encoding === "utf8" || encoding === "utf-8") return node.readFile(path, true);
  const bytes = Buffer.from(node.readFile(path, false));
  return encoding ? bytes.toString(encoding) : bytes;
}
export function writeFileSync(p, data, options) {
  const o = optionsOf(options);
  const { text, binary } = bytesOf(data, o.encoding);
  node.writeFile(toPath(p), text, binary, o.flag || "w", o.mode === undefined ? -1 : o.mode);
}
export function appendFileSync(p, data, options) {
  const o = optionsOf(options);
  writeFileSync(p, data, { ...o, flag: o.flag || "a" });
}
export function statSync(p, options) {
  try {
    return new Stats(hostFs("stat", { path: toPath(p) }));
  } catch (e) {
    if (options && options.throwIfNoEntry === false && e.code === "ENOENT") return undefined;
    throw e;
  }
}
export function lstatSync(p, options) {
  try {
    return new Stats(hostFs("lstat", { path: toPath(p) }));
  } catch (e) {
    if (options && options.throwIfNoEntry === false && e.code === "ENOENT") return undefined;
    throw e;
  }
}
export function readdirSync(p, options) {
  const o = optionsOf(options);
  const path = toPath(p);
  if (o.recursive) {
    const out = [];
    const walk = (dir, rel) => {
      for (const e of hostFs("readdir", { path: dir })) {
        const name = rel ? `${rel}/${e.name}` : e.name;
        out.push(o.withFileTypes ? new Dirent(e.name, e.kind, dir) : name);
        if (e.kind === "dir") walk(`${dir}/${e.name}`, name);
      }
    };
    walk(path, "");
    return out;
  }
  const entries = hostFs("readdir", { path });
  return o.withFileTypes ? entries.map((e) => new Dirent(e.name, e.kind, path)) : entries.map((e) => e.name);
}
export function mkdirSync(p, options) {
  const o = typeof options === "number" ? { mode: options } : options || {};
  const r = hostFs("mkdir", { path: toPath(p), recursive: !!o.recursive, mode: o.mode });
  return r === null ? undefined : r;
}
export function rmSync(p, options) {
  const o = options || {};
  hostFs("rm", { path: toPath(p), recursive: !!o.recursive, force: !!o.force });
}
export function rmdirSync(p, options) {
  hostFs("rmdir", { path: toPath(p), recursive: !!(options && options.recursive) });
}
export function unlinkSync(p) {
  hostFs("unlink", { path: toPath(p) });
}
export function renameSync(a, b) {
  hostFs("rename", { path: toPath(a), dest: toPath(b, "newPath") });
}
export function copyFileSync(a, b) {
  hostFs("copyFile", { path: toPath(a), dest: toPath(b, "dest") });
}
export function cpSync(a, b, options) {
  const from = toPath(a);
  const to = toPath(b, "dest");
  if (statSync(from).isDirectory()) {
    if (!(options && options.recursive)) throw nodeError({ message: `Recursive option is required to copy a directory: ${from}`, code: "ERR_FS_EISDIR" });
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from)) cpSync(`${from}/${name}`, `${to}/${name}`, options);
  } else copyFileSync(from, to);
}
export function symlinkSync(target, p) {
  hostFs("symlink", { path: toPath(target, "target"), dest: toPath(p) });
}
export function linkSync(a, b) {
  hostFs("link", { path: toPath(a), dest: toPath(b, "newPath") });
}
export function realpathSync(p) {
  return hostFs("realpath", { path: toPath(p) });
}
realpathSync.native = realpathSync;
export function readlinkSync(p) {
  return hostFs("readlink", { path: toPath(p) });
}
export function chmodSync(p, mode) {
  hostFs("chmod", { path: toPath(p), mode: typeof mode === "string" ? parseInt(mode, 8) : mode });
}
export function truncateSync(p, len) {
  hostFs("truncate", { path: toPath(p), len: len || 0 });
}
export function accessSync(p, mode) {
  hostFs("access", { path: toPath(p), mode: mode || 0 });
}
export function mkdtempSync(prefix) {
  return hostFs("mkdtemp", { path: toPath(prefix, "prefix") });
}
// A watcher that polls the path (twice a second) and reports a change of
// its size or modification time as a `change` event; a missing path throws
// Node's ENOENT, as Node's watcher does.
export function watch(p, options, listener) {
  const path = toPath(p, "filename");
  if (typeof options === "function") listener = options;
  let last;
  try {
    const st = hostFs("stat", { path });
    last = `${st.size}:${st.mtimeMs}`;
  } catch (e) {
    if (e && e.code === "ENOENT") {
      throw nodeError({ message: `ENOENT: no such file or directory, watch '${path}'`, errno: -2, code: "ENOENT", syscall: "watch", path, filename: path });
    }
    throw e;
  }
  const w = new EventEmitter();
  if (typeof listener === "function") w.on("change", listener);
  const name = path.split("/").pop();
  const timer = setInterval(() => {
    let now;
    try {
      const st = hostFs("stat", { path });
      now = `${st.size}:${st.mtimeMs}`;
    } catch {
      now = "gone";
    }
    if (now !== last) {
      last = now;
      w.emit("change", now === "gone" ? "rename" : "change", name);
    }
  }, 500);
  w.close = () => {
    clearInterval(timer);
    w.emit("close");
  };
  w.ref = () => w;
  w.unref = () => w;
  return w;
}
export function watchFile() {}
export function unwatchFile() {}

// A read stream that delivers the whole file as one chunk (after a microtask).
export function createReadStream(p, options) {
  const o = optionsOf(options);
  const s = new EventEmitter();
  s.path = toPath(p);
  s.destroyed = false;
  s.close = s.destroy = () => {
    s.destroyed = true;
    return s;
  };
  s.setEncoding = (enc) => {
    o.encoding = enc;
    return s;
  };
  s.pipe = (dest) => {
    s.on("data", (c) => dest.write(c));
    s.on("end", () => typeof dest.end === "function" && dest.end());
    return dest;
  };
  s[Symbol.asyncIterator] = async function* () {
    yield readFileSync(s.path, o.encoding);
  };
  setTimeout(() => {
    if (s.destroyed) return;
    let data;
    try {
      data = readFileSync(s.path, o.encoding);
    } catch (e) {
      s.emit("error", e);
      return;
    }
    s.emit("open");
    if (data.length > 0) s.emit("data", data);
    s.emit("end");
    s.emit("close");
  }, 0);
  return s;
}
export function createWriteStream(p, options) {
  const o = optionsOf(options);
  const path = toPath(p);
  writeFileSync(path, "", { flag: o.flags === "a" ? "a" : "w" });
  const s = new EventEmitter();
  s.path = path;
  s.write = (chunk, enc, cb) => {
    appendFileSync(path, chunk, typeof enc === "string" ? enc : undefined);
    const done = typeof enc === "function" ? enc : cb;
    if (done) queueMicrotask(done);
    return true;
  };
  s.end = (chunk, cb) => {
    if (chunk !== undefined && typeof chunk !== "function") s.write(chunk);
    queueMicrotask(() => {
      s.emit("finish");
      s.emit("close");
      const done = typeof chunk === "function" ? chunk : cb;
      if (done) done();
    });
    return s;
  };
  s.close = s.end;
  return s;
}

// ---------------------------------------------------------------- callback forms
function callbackForm(fn) {
  return (...args) => {
    const cb = args.pop();
    if (typeof cb !== "function") throw argError("cb", "of type function", cb);
    let value;
    try {
      value = fn(...args);
    } catch (e) {
      queueMicrotask(() => cb(e));
      return;
    }
    queueMicrotask(() => cb(null, value));
  };
}
function promiseForm(fn) {
  return (...args) =>
    new Promise((resolve, reject) => {
      try {
        resolve(fn(...args));
      } catch (e) {
        reject(e);
      }
    });
}
import { openSync, closeSync, readSync, writeSync, fstatSync, ftruncateSync, fsyncSync, fdatasyncSync, openHandle } from "pi:node-fd";
export { openSync, closeSync, readSync, writeSync, fstatSync, ftruncateSync, fsyncSync, fdatasyncSync };
export const open = callbackForm(openSync);
export const close = callbackForm(closeSync);
export const fstat = callbackForm(fstatSync);
export const ftruncate = callbackForm(ftruncateSync);
export const fsync = callbackForm(fsyncSync);
export function read(fd, buffer, ...rest) {
  const cb = rest.pop();
  callbackForm((...a) => readSync(...a))(fd, buffer, ...rest, (e, n) => cb(e, n, buffer));
}
export function write(fd, data, ...rest) {
  const cb = rest.pop();
  callbackForm((...a) => writeSync(...a))(fd, data, ...rest, (e, n) => cb(e, n, data));
}
const syncForms = {
  readFile: readFileSync, writeFile: writeFileSync, appendFile: appendFileSync, stat: statSync, lstat: lstatSync,
  readdir: readdirSync, mkdir: mkdirSync, rm: rmSync, rmdir: rmdirSync, unlink: unlinkSync, rename: renameSync,
  copyFile: copyFileSync, cp: cpSync, symlink: symlinkSync, link: linkSync, realpath: realpathSync,
  readlink: readlinkSync, chmod: chmodSync, truncate: truncateSync, access: accessSync, mkdtemp: mkdtempSync,
};
export const readFile = callbackForm(readFileSync);
export const writeFile = callbackForm(writeFileSync);
export const appendFile = callbackForm(appendFileSync);
export const stat = callbackForm(statSync);
export const lstat = callbackForm(lstatSync);
export const readdir = callbackForm(readdirSync);
export const mkdir = callbackForm(mkdirSync);
export const rm = callbackForm(rmSync);
export const rmdir = callbackForm(rmdirSync);
export const unlink = callbackForm(unlinkSync);
export const rename = callbackForm(renameSync);
export const copyFile = callbackForm(copyFileSync);
export const cp = callbackForm(cpSync);
export const symlink = callbackForm(symlinkSync);
export const link = callbackForm(linkSync);
export const realpath = callbackForm(realpathSync);
export const readlink = callbackForm(readlinkSync);
export const chmod = callbackForm(chmodSync);
export const truncate = callbackForm(truncateSync);
export const access = callbackForm(accessSync);
export const mkdtemp = callbackForm(mkdtempSync);
export function exists(p, cb) {
  const r = existsSync(p);
  queueMicrotask(() => cb(r));
}

export const promises = { constants };
for (const [name, fn] of Object.entries(syncForms)) promises[name] = promiseForm(fn);
promises.open = openHandle;

export { Stats, Dirent };
export default filled({
  constants, F_OK, R_OK, W_OK, X_OK, existsSync, readFileSync, writeFileSync, appendFileSync, statSync, lstatSync,
  readdirSync, mkdirSync, rmSync, rmdirSync, unlinkSync, renameSync, copyFileSync, cpSync, symlinkSync, linkSync,
  realpathSync, readlinkSync, chmodSync, truncateSync, accessSync, mkdtempSync, watch, watchFile, unwatchFile,
  createReadStream, createWriteStream, readFile, writeFile, appendFile, stat, lstat, readdir, mkdir, rm, rmdir,
  unlink, rename, copyFile, cp, symlink, link, realpath, readlink, chmod, truncate, access, mkdtemp, exists,
  promises, Stats, Dirent, openSync, closeSync, readSync, writeSync, fstatSync, ftruncateSync, fsyncSync,
  fdatasyncSync, open, close, read, write, fstat, ftruncate, fsync,
}, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-fs.js).
export * from "pi:surface/node-fs";
