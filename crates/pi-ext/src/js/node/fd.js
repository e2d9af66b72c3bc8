// File descriptors for node:fs (`openSync`, `readSync`, `writeSync`,
// `closeSync`, `fstatSync`, …, their callback forms and `fs.promises.open`)
// over the path-based host calls: a descriptor names an open path and a
// position; each read or write reaches the file at once (no buffering), so
// what another descriptor or process wrote is seen.
import { readFileSync, writeFileSync, statSync, truncateSync, existsSync } from "node:fs";
const { Buffer, nodeError, argError } = globalThis.__pi_node.lib;

/** The first descriptor handed out (0–2 are the standard streams). */
const FIRST_FD = 20;
const table = new Map();
let next = FIRST_FD;

function entry(fd, syscall) {
  const e = table.get(fd);
  if (!e) throw nodeError({ message: `EBADF: bad file descriptor, ${syscall}`, errno: -9, code: "EBADF", syscall });
  return e;
}

function flagsOf(flags) {
  if (flags === undefined || flags === null) return "r";
  if (typeof flags === "number") return (flags & 3) === 0 ? "r" : flags & 1024 ? "a" : "w";
  return String(flags);
}

export function openSync(path, flags, _mode) {
  const f = flagsOf(flags);
  const p = typeof path === "string" ? path : String(path);
  const exists = existsSync(p);
  if (f.includes("x") && exists) {
    throw nodeError({ message: `EEXIST: file already exists, open '${p}'`, errno: -17, code: "EEXIST", syscall: "open", path: p });
  }
  if (f.startsWith("r")) statSync(p); // ENOENT as Node says it
  else if (f.startsWith("w")) writeFileSync(p, "");
  else if (!exists) writeFileSync(p, "");
  const fd = next++;
  table.set(fd, { path: p, flags: f, pos: f.startsWith("a") ? statSync(p).size : 0 });
  return fd;
}

export function closeSync(fd) {
  entry(fd, "close");
  table.delete(fd);
}

export function fstatSync(fd) {
  return statSync(entry(fd, "fstat").path);
}

export function ftruncateSync(fd, len = 0) {
  truncateSync(entry(fd, "ftruncate").path, len);
}

export function fsyncSync(fd) {
  entry(fd, "fsync");
}
export const fdatasyncSync = fsyncSync;

export function readSync(fd, buffer, offsetOrOptions, length, position) {
  const e = entry(fd, "read");
  if (!ArrayBuffer.isView(buffer)) throw argError("buffer", "an instance of Buffer, TypedArray, or DataView", buffer);
  let offset = offsetOrOptions;
  if (offsetOrOptions && typeof offsetOrOptions === "object") ({ offset, length, position } = offsetOrOptions);
  offset = offset ?? 0;
  length = length ?? buffer.byteLength - offset;
  const bytes = readFileSync(e.path);
  const from = typeof position === "number" && position >= 0 ? position : e.pos;
  const chunk = bytes.subarray(from, from + length);
  new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength).set(chunk, offset);
  if (!(typeof position === "number" && position >= 0)) e.pos += chunk.length;
  return chunk.length;
}

export function writeSync(fd, data, offsetOrPosition, lengthOrEncoding, position) {
  const e = entry(fd, "write");
  let bytes;
  let at;
  if (typeof data === "string") {
    bytes = Buffer.from(data, typeof lengthOrEncoding === "string" ? lengthOrEncoding : "utf8");
    at = offsetOrPosition;
  } else if (ArrayBuffer.isView(data)) {
    const all = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const offset = offsetOrPosition ?? 0;
    bytes = all.subarray(offset, offset + (lengthOrEncoding ?? all.length - offset));
    at = position;
  } else {
    throw argError("buffer", "of type string or an instance of Buffer, TypedArray, or DataView", data);
  }
  const current = readFileSync(e.path);
  const from = e.flags.startsWith("a") ? current.length : typeof at === "number" && at >= 0 ? at : e.pos;
  const size = Math.max(current.length, from + bytes.length);
  const out = Buffer.alloc(size);
  out.set(current, 0);
  out.set(bytes, from);
  writeFileSync(e.path, out);
  if (!(typeof at === "number" && at >= 0) || e.flags.startsWith("a")) e.pos = from + bytes.length;
  return bytes.length;
}

/** `fs.promises.open`'s handle. */
class FileHandle {
  constructor(fd) {
    this.fd = fd;
  }
  async read(buffer, offset, length, position) {
    const target = buffer ?? Buffer.alloc(16384);
    const bytesRead = readSync(this.fd, target, offset, length, position);
    return { bytesRead, buffer: target };
  }
  async write(data, ...rest) {
    return { bytesWritten: writeSync(this.fd, data, ...rest), buffer: data };
  }
  async readFile(options) {
    return readFileSync(table.get(this.fd)?.path ?? "", options);
  }
  async writeFile(data, options) {
    writeFileSync(entry(this.fd, "write").path, data, options);
  }
  async stat() {
    return fstatSync(this.fd);
  }
  async truncate(len) {
    ftruncateSync(this.fd, len);
  }
  async sync() {}
  async close() {
    if (table.has(this.fd)) closeSync(this.fd);
  }
}

export async function openHandle(path, flags, mode) {
  return new FileHandle(openSync(path, flags, mode));
}
