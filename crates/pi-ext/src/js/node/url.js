// node:url: fileURLToPath, pathToFileURL and the global URL.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-url";
function invalid(message, code) {
  const e = new TypeError(message);
  e.code = code;
  return e;
}
export const URL = globalThis.URL;
export const URLSearchParams = globalThis.URLSearchParams;
export function fileURLToPath(u) {
  const url = typeof u === "string" ? new URL(u) : u;
  if (!url || typeof url.href !== "string") throw invalid('The "path" argument must be of type string or an instance of URL', "ERR_INVALID_ARG_TYPE");
  if (url.protocol !== "file:") throw invalid("The URL must be of scheme file", "ERR_INVALID_URL_SCHEME");
  if (url.hostname !== "" && url.hostname !== "localhost") throw invalid('File URL host must be "localhost" or empty on linux', "ERR_INVALID_FILE_URL_HOST");
  if (/%2f/i.test(url.pathname)) throw invalid("File URL path must not include encoded / characters", "ERR_INVALID_FILE_URL_PATH");
  return decodeURIComponent(url.pathname);
}
export function pathToFileURL(p) {
  const abs = String(p).startsWith("/") ? String(p) : `${process.cwd()}/${p}`;
  return new URL(`file://${abs.split("/").map((s) => encodeURIComponent(s)).join("/")}`);
}
export function parse(s) {
  const u = new URL(s);
  return { protocol: u.protocol, host: u.host, hostname: u.hostname, port: u.port, pathname: u.pathname, search: u.search, hash: u.hash, href: u.href };
}
export function format(u) {
  return typeof u === "string" ? u : u.href;
}
export default filled({ URL, URLSearchParams, fileURLToPath, pathToFileURL, parse, format }, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-url.js).
export * from "pi:surface/node-url";
