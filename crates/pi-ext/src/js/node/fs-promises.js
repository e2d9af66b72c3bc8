// node:fs/promises: the promise forms of node:fs.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-fs-promises";
import fs from "node:fs";
const p = fs.promises;
export const {
  readFile, writeFile, appendFile, stat, lstat, readdir, mkdir, rm, rmdir, unlink, rename, copyFile, cp, symlink,
  link, realpath, readlink, chmod, truncate, access, mkdtemp, open,
} = p;
export const constants = fs.constants;
export default filled(p, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-fs-promises.js).
export * from "pi:surface/node-fs-promises";
