// node:fs/promises: the promise forms of node:fs.
import fs from "node:fs";
const p = fs.promises;
export const {
  readFile, writeFile, appendFile, stat, lstat, readdir, mkdir, rm, rmdir, unlink, rename, copyFile, cp, symlink,
  link, realpath, readlink, chmod, truncate, access, mkdtemp,
} = p;
export const constants = fs.constants;
export default p;
