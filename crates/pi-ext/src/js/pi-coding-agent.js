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
// The calling extension's glue (the extension whose code is running).
const internal = () => globalThis.__pi_internal;
const realm = globalThis.__pi_realm;

export function formatSize(bytes) {
  return internal().sync("formatSize", bytes);
}
export function truncateHead(content, options) {
  return internal().sync("truncate", { mode: "head", content: String(content), maxLines: options && options.maxLines, maxBytes: options && options.maxBytes });
}
export function truncateTail(content, options) {
  return internal().sync("truncate", { mode: "tail", content: String(content), maxLines: options && options.maxLines, maxBytes: options && options.maxBytes });
}
export function truncateLine(line, maxChars) {
  return internal().sync("truncateLine", { line: String(line), maxChars });
}

// ---------------------------------------------------------------- more of the package's values
import { Editor, Container, Text, Loader, truncateToWidth, matchesKey, visibleWidth } from "pi:tui";

export const VERSION = realm.version;

export function getAgentDir() {
  const env = globalThis.process.env;
  if (env.PI_CODING_AGENT_DIR) return env.PI_CODING_AGENT_DIR.replace(/^~(?=$|\/)/, env.HOME || "");
  return `${env.HOME || ""}/${CONFIG_DIR_NAME}/agent`;
}

// `---` YAML front matter (flat `key: value` lines, quoted or not) and the body after it.
export function parseFrontmatter(content) {
  const text = String(content).replace(/^\uFEFF/, "");
  const m = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text);
  if (!m) return { frontmatter: {}, body: text };
  const frontmatter = {};
  for (const line of m[1].split(/\r?\n/)) {
    const kv = /^([A-Za-z0-9_-]+)\s*:\s*(.*)$/.exec(line);
    if (!kv) continue;
    let v = kv[2].trim();
    if (/^".*"$|^'.*'$/.test(v)) v = v.slice(1, -1);
    else if (v === "true" || v === "false") v = v === "true";
    else if (v !== "" && !Number.isNaN(Number(v))) v = Number(v);
    frontmatter[kv[1]] = v;
  }
  return { frontmatter, body: text.slice(m[0].length) };
}

const LLM_ROLES = new Set(["user", "assistant", "toolResult"]);
// The messages a model sees: custom and bash-execution messages become user messages.
export function convertToLlm(messages) {
  const out = [];
  for (const m of messages || []) {
    if (!m || typeof m !== "object") continue;
    if (LLM_ROLES.has(m.role)) out.push(m);
    else if (m.role === "custom" && m.content !== undefined) {
      const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
      out.push({ role: "user", content, timestamp: m.timestamp });
    } else if (m.role === "bashExecution" && !m.excludeFromContext) {
      const text = `Ran \`${m.command}\`\n\`\`\`\n${m.output || "(no output)"}\n\`\`\``;
      out.push({ role: "user", content: [{ type: "text", text }], timestamp: m.timestamp });
    }
  }
  return out;
}

function blockText(content) {
  if (typeof content === "string") return content;
  return (content || [])
    .map((b) => (b.type === "text" ? b.text : b.type === "thinking" ? `[Thinking]: ${b.thinking}` : b.type === "toolCall" ? `[Tool call]: ${b.name}(${JSON.stringify(b.arguments)})` : b.type === "image" ? "[image]" : ""))
    .filter(Boolean)
    .join("\n");
}
// A conversation as plain text, one `[Role]: text` block per message.
export function serializeConversation(messages) {
  const names = { user: "User", assistant: "Assistant", toolResult: "Tool result" };
  return (messages || [])
    .filter((m) => m && names[m.role])
    .map((m) => `[${names[m.role]}]: ${blockText(m.content)}`)
    .join("\n\n");
}

export function formatReadLineRange(offset, limit) {
  if (offset === undefined && limit === undefined) return "";
  const start = offset || 1;
  return limit === undefined ? `:${start}` : `:${start}-${start + limit - 1}`;
}

// ---------------------------------------------------------------- pi's built-in tools for extensions
function builtinSpec(name) {
  return internal().sync("builtinSpec", name);
}
// What a spawn hook changed in the environment it was given: variables set
// (new or changed values, as text) and removed (null).
function envChanges(given, returned) {
  const out = {};
  for (const [k, v] of Object.entries(returned)) {
    if (v === undefined || v === null) {
      if (k in given) out[k] = null;
    } else if (given[k] !== String(v)) out[k] = String(v);
  }
  for (const k of Object.keys(given)) if (!(k in returned)) out[k] = null;
  return out;
}
function agentTool(name, cwd, options) {
  const spec = builtinSpec(name);
  const hook = options && typeof options.spawnHook === "function" ? options.spawnHook : undefined;
  return {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    parameters: spec.parameters,
    async execute(_toolCallId, params, _signal, _onUpdate) {
      let args = params;
      let dir = cwd;
      let env;
      if (hook && name === "bash") {
        const given = { ...globalThis.process.env };
        const spawned = hook({ command: params.command, cwd: cwd || realm.cwd, env: { ...given } }) || {};
        args = { ...params, command: spawned.command === undefined ? params.command : spawned.command };
        if (spawned.cwd !== undefined) dir = spawned.cwd;
        if (spawned.env && typeof spawned.env === "object") env = envChanges(given, spawned.env);
      }
      const r = await internal().builtin(name, args, dir, env);
      return { content: r.content || [], details: r.details };
    },
  };
}
function toolDefinition(name, cwd, options) {
  const spec = builtinSpec(name);
  const tool = agentTool(name, cwd, options);
  return {
    ...tool,
    promptSnippet: spec.promptSnippet,
    promptGuidelines: spec.promptGuidelines,
    execute: (id, params, signal, onUpdate, _ctx) => tool.execute(id, params, signal, onUpdate),
  };
}
export const createBashTool = (cwd, o) => agentTool("bash", cwd, o);
export const createReadTool = (cwd, o) => agentTool("read", cwd, o);
export const createEditTool = (cwd, o) => agentTool("edit", cwd, o);
export const createWriteTool = (cwd, o) => agentTool("write", cwd, o);
export const createGrepTool = (cwd, o) => agentTool("grep", cwd, o);
export const createFindTool = (cwd, o) => agentTool("find", cwd, o);
export const createLsTool = (cwd, o) => agentTool("ls", cwd, o);
export const createBashToolDefinition = (cwd, o) => toolDefinition("bash", cwd, o);
export const createReadToolDefinition = (cwd, o) => toolDefinition("read", cwd, o);
export const createEditToolDefinition = (cwd, o) => toolDefinition("edit", cwd, o);
export const createWriteToolDefinition = (cwd, o) => toolDefinition("write", cwd, o);
export const createGrepToolDefinition = (cwd, o) => toolDefinition("grep", cwd, o);
export const createFindToolDefinition = (cwd, o) => toolDefinition("find", cwd, o);
export const createLsToolDefinition = (cwd, o) => toolDefinition("ls", cwd, o);

// ---------------------------------------------------------------- UI pieces
const plain = (s) => s;
export function getMarkdownTheme() {
  return { heading: plain, link: plain, linkUrl: plain, code: plain, codeBlock: plain, codeBlockBorder: plain, quote: plain, quoteBorder: plain, hr: plain, listBullet: plain, bold: plain, italic: plain, strikethrough: plain, underline: plain };
}
export function getSettingsListTheme() {
  return { label: (t, _selected) => t, value: (t, _selected) => t, description: plain, cursor: "→ ", hint: plain };
}
export function getSelectListTheme() {
  return { selectedPrefix: plain, selectedText: plain, description: plain, scrollInfo: plain, noMatch: plain };
}

// A horizontal rule across the width, coloured by `color`.
export class DynamicBorder {
  constructor(color = plain) {
    this.color = color;
  }
  invalidate() {}
  render(width) {
    return [this.color("─".repeat(Math.max(1, width)))];
  }
}

// A loader between two borders that escape cancels (`signal` aborts, `onAbort` is called).
export class BorderedLoader extends Container {
  constructor(tui, theme, message, options = {}) {
    super();
    const fg = theme && typeof theme.fg === "function" ? (c) => (s) => theme.fg(c, s) : () => plain;
    this.controller = new AbortController();
    this.cancellable = options.cancellable !== false;
    this.onAbort = undefined;
    this.addChild(new DynamicBorder(fg("border")));
    this.loader = new Loader(tui, fg("accent"), fg("muted"), message);
    this.addChild(this.loader);
    if (this.cancellable) this.addChild(new Text(fg("muted")("esc cancel"), 1, 0));
    this.addChild(new DynamicBorder(fg("border")));
  }
  get signal() {
    return this.controller.signal;
  }
  handleInput(data) {
    if (this.cancellable && matchesKey(data, "escape")) {
      this.controller.abort();
      if (this.onAbort) this.onAbort();
    }
  }
  dispose() {}
}

// The base for an extension's main editor: pi's application keys (escape, ctrl+d on an
// empty editor, registered actions) first, then the editor's own.
export class CustomEditor extends Editor {
  constructor(tui, theme, keybindings) {
    super(tui, theme);
    this.keybindings = keybindings;
    this.actionHandlers = new Map();
    this.onEscape = undefined;
    this.onCtrlD = undefined;
    this.onPasteImage = undefined;
    this.onExtensionShortcut = undefined;
  }
  onAction(action, handler) {
    this.actionHandlers.set(action, handler);
  }
  handleInput(data) {
    if (this.onExtensionShortcut && this.onExtensionShortcut(data)) return;
    if (matchesKey(data, "escape") && this.onEscape) return this.onEscape();
    if (matchesKey(data, "ctrl+d") && this.getText() === "" && this.onCtrlD) return this.onCtrlD();
    const kb = this.keybindings;
    if (kb && typeof kb.matches === "function") {
      for (const [action, handler] of this.actionHandlers) if (kb.matches(data, action)) return handler();
    }
    super.handleInput(data);
  }
}
void truncateToWidth;
void visibleWidth;

// The rest of what the reference exports here: stand-ins (js/surface/coding-agent.js).
export * from "pi:surface/coding-agent";
