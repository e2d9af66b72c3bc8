// The value exports of `@earendil-works/pi-coding-agent` (and `@mariozechner/pi-coding-agent`)
// that extensions use; types are erased when TypeScript is stripped.

const toolIs = (name) => (event) => !!event && event.toolName === name;

export function isToolCallEventType(name, event) {
  return !!event && event.toolName === name;
}
export const isBashToolResult = toolIs("bash");
export const isReadToolResult = toolIs("read");
export const isEditToolResult = toolIs("edit");
export const isWriteToolResult = toolIs("write");
export const isGrepToolResult = toolIs("grep");
export const isFindToolResult = toolIs("find");
export const isLsToolResult = toolIs("ls");
export const isPowerShellToolResult = toolIs("powershell");

export function defineTool(tool) {
  return tool;
}

export const CONFIG_DIR_NAME = ".pi";
export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 50 * 1024;

// Runs `fn` at once: extension tools reach files only through ctx.executeTool, whose
// edit and write calls already take pi's per-file queue.
export async function withFileMutationQueue(_path, fn) {
  return await fn();
}

// Truncation helpers: pi's own implementation (the built-in tools' limits and notices).
const internal = globalThis.__pi_internal;

export function formatSize(bytes) {
  return internal.sync("formatSize", bytes);
}
export function truncateHead(content, options) {
  return internal.sync("truncate", { mode: "head", content: String(content), maxLines: options && options.maxLines, maxBytes: options && options.maxBytes });
}
export function truncateTail(content, options) {
  return internal.sync("truncate", { mode: "tail", content: String(content), maxLines: options && options.maxLines, maxBytes: options && options.maxBytes });
}
export function truncateLine(line, maxChars) {
  return internal.sync("truncateLine", { line: String(line), maxChars });
}
