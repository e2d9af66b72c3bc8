// node:child_process over the host: spawn (events from the engine's loop),
// exec/execFile on top of it, and the sync forms over spawnSync.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-child_process";
const node = globalThis.__pi_node;
const { Buffer, EventEmitter, nodeError, argError, toLatin1, children } = node.lib;

function shellOf(command, options) {
  const shell = options && typeof options.shell === "string" ? options.shell : "/bin/sh";
  return { file: shell, args: ["-c", command] };
}
function envOf(options) {
  const env = (options && options.env) || process.env;
  const out = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = String(v);
  return out;
}
function stdioOf(options) {
  const s = options && options.stdio;
  if (typeof s === "string") return [s, s, s];
  if (Array.isArray(s)) return [0, 1, 2].map((i) => (typeof s[i] === "string" ? s[i] : "pipe"));
  return ["pipe", "pipe", "pipe"];
}
function specOf(file, args, options) {
  const o = options || {};
  let f = String(file);
  let a = (args || []).map(String);
  if (o.shell) {
    const sh = shellOf([f, ...a].join(" "), o);
    f = sh.file;
    a = sh.args;
  }
  return {
    file: f, args: a, cwd: o.cwd === undefined ? process.cwd() : String(o.cwd), env: envOf(o),
    timeout: o.timeout, killSignal: typeof o.killSignal === "string" ? o.killSignal : undefined,
    maxBuffer: o.maxBuffer, stdio: stdioOf(o),
  };
}
function normArgs(args, options) {
  if (Array.isArray(args)) return [args, options];
  return [[], args];
}
function decodeOut(s, encoding) {
  const b = Buffer.from(s, "latin1");
  return encoding && encoding !== "buffer" ? b.toString(encoding) : b;
}

class Readable extends EventEmitter {
  constructor() {
    super();
    this.encoding = null;
    this.readable = true;
  }
  setEncoding(e) {
    this.encoding = e;
    return this;
  }
  _push(bytes) {
    const b = Buffer.from(bytes, "latin1");
    this.emit("data", this.encoding ? b.toString(this.encoding) : b);
  }
  pipe(dest) {
    this.on("data", (c) => dest.write(c));
    return dest;
  }
  resume() {
    return this;
  }
  pause() {
    return this;
  }
  destroy() {
    return this;
  }
}

class ChildProcess extends EventEmitter {
  constructor(spec) {
    super();
    this.spawnfile = spec.file;
    this.spawnargs = [spec.file, ...spec.args];
    this.exitCode = null;
    this.signalCode = null;
    this.killed = false;
    this.stdout = spec.stdio[1] === "pipe" ? new Readable() : null;
    this.stderr = spec.stdio[2] === "pipe" ? new Readable() : null;
    const self = this;
    this.stdin =
      spec.stdio[0] === "pipe"
        ? Object.assign(new EventEmitter(), {
            writable: true,
            write(chunk, enc, cb) {
              const bytes = typeof chunk === "string" ? toLatin1(Buffer.from(chunk, typeof enc === "string" ? enc : "utf8")) : toLatin1(chunk);
              const ok = self._id !== undefined && node.childWrite(self._id, bytes);
              const done = typeof enc === "function" ? enc : cb;
              if (done) queueMicrotask(() => done(ok ? null : new Error("write EPIPE")));
              return ok;
            },
            end(chunk) {
              if (chunk !== undefined && typeof chunk !== "function") this.write(chunk);
              if (self._id !== undefined) node.childEnd(self._id);
              return this;
            },
            destroy() {
              return this.end();
            },
          })
        : null;
    this.stdio = [this.stdin, this.stdout, this.stderr];
    const r = JSON.parse(node.spawn(JSON.stringify(spec)));
    if (r.error) {
      const e = nodeError(r.error);
      e.spawnargs = spec.args;
      this.pid = undefined;
      queueMicrotask(() => {
        this.emit("error", e);
        this.emit("close", -2, null);
      });
      return;
    }
    this._id = r.id;
    this.pid = r.pid;
    let open = 2;
    let exit = null;
    const maybeClose = () => {
      if (open !== 0 || !exit) return;
      children.delete(r.id);
      this.emit("close", exit.code, exit.signal);
    };
    children.set(r.id, (kind, payload) => {
      if (kind === "stdout" && this.stdout) this.stdout._push(payload);
      else if (kind === "stderr" && this.stderr) this.stderr._push(payload);
      else if (kind === "end-stdout" || kind === "end-stderr") {
        const s = kind === "end-stdout" ? this.stdout : this.stderr;
        if (s) {
          s.emit("end");
          s.emit("close");
        }
        open -= 1;
        maybeClose();
      } else if (kind === "exit") {
        exit = JSON.parse(payload);
        this.exitCode = exit.code;
        this.signalCode = exit.signal;
        this.emit("exit", exit.code, exit.signal);
        maybeClose();
      }
    });
  }
  kill(signal) {
    if (this._id === undefined || this.exitCode !== null || this.signalCode !== null) return false;
    const ok = node.childKill(this._id, signal === undefined ? "SIGTERM" : String(signal));
    if (ok) this.killed = true;
    return ok;
  }
  ref() {
    return this;
  }
  unref() {
    return this;
  }
}

export function spawn(file, args, options) {
  const [a, o] = normArgs(args, options);
  if (typeof file !== "string") throw argError("file", "of type string", file);
  const child = new ChildProcess(specOf(file, a, o));
  if (o && o.signal) {
    const onAbort = () => {
      child.kill(o.killSignal || "SIGTERM");
    };
    if (o.signal.aborted) queueMicrotask(onAbort);
    else o.signal.addEventListener("abort", onAbort, { once: true });
  }
  if (o && typeof o.timeout === "number" && o.timeout > 0) {
    const t = setTimeout(() => child.kill(o.killSignal || "SIGTERM"), o.timeout);
    child.on("exit", () => clearTimeout(t));
  }
  return child;
}

export function execFile(file, args, options, callback) {
  let a = args;
  let o = options;
  let cb = callback;
  if (typeof a === "function") [a, o, cb] = [[], {}, a];
  else if (!Array.isArray(a)) [a, o, cb] = [[], a, o];
  if (typeof o === "function") [o, cb] = [{}, o];
  o = o || {};
  const child = spawn(file, a, { ...o, timeout: undefined });
  const out = [];
  const err = [];
  const encoding = o.encoding === undefined ? "utf8" : o.encoding;
  child.stdout && child.stdout.on("data", (d) => out.push(Buffer.from(d)));
  child.stderr && child.stderr.on("data", (d) => err.push(Buffer.from(d)));
  let timer;
  if (typeof o.timeout === "number" && o.timeout > 0) timer = setTimeout(() => child.kill(o.killSignal || "SIGTERM"), o.timeout);
  let spawnError = null;
  child.on("error", (e) => {
    spawnError = e;
  });
  const finish = (code, signal) => {
    if (timer) clearTimeout(timer);
    const stdout = encoding === "buffer" ? Buffer.concat(out) : Buffer.concat(out).toString(encoding);
    const stderr = encoding === "buffer" ? Buffer.concat(err) : Buffer.concat(err).toString(encoding);
    let error = spawnError;
    if (!error && (code !== 0 || signal)) {
      const cmd = [file, ...a].join(" ");
      error = new Error(`Command failed: ${o.__command || cmd}\n${typeof stderr === "string" ? stderr : ""}`);
      error.code = code;
      error.killed = child.killed;
      error.signal = signal;
      error.cmd = o.__command || cmd;
    }
    if (error) {
      error.stdout = stdout;
      error.stderr = stderr;
    }
    if (cb) cb(error, stdout, stderr);
  };
  child.on("close", finish);
  return child;
}

export function exec(command, options, callback) {
  let o = options;
  let cb = callback;
  if (typeof o === "function") [o, cb] = [{}, o];
  o = o || {};
  const sh = shellOf(String(command), o);
  return execFile(sh.file, sh.args, { ...o, shell: false, __command: String(command) }, cb);
}

export function spawnSync(file, args, options) {
  const [a, o] = normArgs(args, options);
  const spec = specOf(file, a, o);
  const input = o && o.input !== undefined ? toLatin1(typeof o.input === "string" ? Buffer.from(o.input) : o.input) : null;
  const r = JSON.parse(node.spawnSync(JSON.stringify(spec), input));
  const encoding = o && o.encoding && o.encoding !== "buffer" ? o.encoding : undefined;
  const stdout = decodeOut(r.stdout, encoding);
  const stderr = decodeOut(r.stderr, encoding);
  const out = { pid: r.pid || 0, output: [null, stdout, stderr], stdout, stderr, status: r.status, signal: r.signal };
  if (r.error) out.error = nodeError(r.error);
  return out;
}

function checkSync(r, command, options) {
  if (r.error) throw r.error;
  if (r.status !== 0 || r.signal) {
    const stderr = Buffer.isBuffer(r.stderr) ? r.stderr.toString() : r.stderr;
    const e = new Error(stderr ? `Command failed: ${command}\n${stderr}` : `Command failed: ${command}`);
    Object.assign(e, { status: r.status, signal: r.signal, output: r.output, pid: r.pid, stdout: r.stdout, stderr: r.stderr });
    throw e;
  }
  void options;
  return r.stdout;
}

export function execFileSync(file, args, options) {
  const [a, o] = normArgs(args, options);
  const r = spawnSync(file, a, o);
  return checkSync(r, [file, ...a].join(" "), o);
}

export function execSync(command, options) {
  const o = options || {};
  const sh = shellOf(String(command), o);
  const r = spawnSync(sh.file, sh.args, { ...o, shell: false });
  if (r.stderr && r.stderr.length && !(o.stdio && o.stdio !== "pipe")) {
    // Node writes a sync command's stderr to the parent's stderr unless piped elsewhere.
    globalThis.console.error(String(r.stderr).replace(/\n$/, ""));
  }
  return checkSync(r, String(command), o);
}

export function fork() {
  throw nodeError({ message: "child_process.fork() is not supported in pi's extension engine", code: "ERR_NOT_SUPPORTED" });
}

export { ChildProcess };
export default filled({ spawn, exec, execFile, spawnSync, execSync, execFileSync, fork, ChildProcess }, rest);

const custom = Symbol.for("nodejs.util.promisify.custom");
const settle = (run) => (...args) =>
  new Promise((resolve, reject) => {
    run(...args, (e, stdout, stderr) => (e ? reject(e) : resolve({ stdout, stderr })));
  });
exec[custom] = settle((cmd, o, cb) => exec(cmd, o || {}, cb));
execFile[custom] = settle((file, a, o, cb) => execFile(file, a || [], o || {}, cb));

// The rest of what Node exports here: stand-ins (js/surface/node-child_process.js).
export * from "pi:surface/node-child_process";
