// node:crypto: hashes (sha256, sha512, sha1, md5, …), random bytes and UUIDs over the host.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-crypto";
const node = globalThis.__pi_node;
const { Buffer, toLatin1, nodeError } = node.lib;

class Hash {
  constructor(algorithm) {
    if (!node.hashSupported(String(algorithm))) throw nodeError({ message: "Digest method not supported", code: "ERR_OSSL_EVP_UNSUPPORTED" });
    this.algorithm = String(algorithm);
    this.parts = [];
  }
  update(data, encoding) {
    this.parts.push(typeof data === "string" ? toLatin1(Buffer.from(data, encoding || "utf8")) : toLatin1(data));
    return this;
  }
  digest(encoding) {
    const bytes = Buffer.from(node.hash(this.algorithm, this.parts.join("")));
    return encoding && encoding !== "buffer" ? bytes.toString(encoding) : bytes;
  }
  copy() {
    const h = new Hash(this.algorithm);
    h.parts = this.parts.slice();
    return h;
  }
}
export function createHash(algorithm) {
  return new Hash(algorithm);
}
export function randomBytes(n, cb) {
  const b = Buffer.from(node.randomBytes(n));
  if (typeof cb === "function") {
    queueMicrotask(() => cb(null, b));
    return undefined;
  }
  return b;
}
export function randomUUID() {
  return node.randomUUID();
}
export function randomInt(min, max) {
  const [lo, hi] = max === undefined ? [0, min] : [min, max];
  const b = node.randomBytes(6);
  const n = b.reduce((acc, x) => acc * 256 + x, 0) / 2 ** 48;
  return lo + Math.floor(n * (hi - lo));
}
export function getRandomValues(array) {
  const b = node.randomBytes(array.byteLength);
  new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(b);
  return array;
}
export function getHashes() {
  return ["md5", "sha1", "sha224", "sha256", "sha384", "sha512"];
}
export function timingSafeEqual(a, b) {
  if (a.length !== b.length) throw nodeError({ message: "Input buffers must have the same byte length", code: "ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH" });
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}
export const webcrypto = { getRandomValues, randomUUID };
export default filled({ createHash, randomBytes, randomUUID, randomInt, getRandomValues, getHashes, timingSafeEqual, webcrypto }, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-crypto.js).
export * from "pi:surface/node-crypto";
