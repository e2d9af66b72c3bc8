// `@earendil-works/pi-tui` for extensions: pi's own implementation of the
// package's component contract (a component renders lines for a width and
// may handle key input), its width helpers and its key parser.

export const CURSOR_MARKER = "\x1b_pi:c\x07";
export const FAKE_CURSOR_START = "\x1b_pi:fc\x07";
export const FAKE_CURSOR_END = "\x1b_pi:/fc\x07";
export function renderFakeCursor(text) {
  return `${FAKE_CURSOR_START}${text}${FAKE_CURSOR_END}`;
}

// ---------------------------------------------------------------- width
const ANSI = /\x1b\[[0-9;?<>=!]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b_[^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
export function stripTerminalSequences(s) {
  return String(s).replace(ANSI, "");
}
function isWide(cp) {
  return (
    (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0x303e) || (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x1f680 && cp <= 0x1f6ff) || (cp >= 0x2600 && cp <= 0x26ff && cp !== 0x2610) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}
function isZeroWidth(cp) {
  return (
    (cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || cp === 0xfe0f || cp === 0xfe0e ||
    (cp >= 0x1ab0 && cp <= 0x1aff) || (cp >= 0x20d0 && cp <= 0x20ff) || cp === 0x200d || cp < 0x20 || cp === 0x7f
  );
}
function charWidth(ch) {
  const cp = ch.codePointAt(0);
  if (ch === "\t") return 3;
  if (isZeroWidth(cp)) return 0;
  return isWide(cp) ? 2 : 1;
}
export function visibleWidth(str) {
  let w = 0;
  for (const ch of stripTerminalSequences(str)) w += charWidth(ch);
  return w;
}

// Tokens of a line: escape sequences (zero width) and characters.
function tokens(line) {
  const out = [];
  const s = String(line);
  let last = 0;
  ANSI.lastIndex = 0;
  for (let m = ANSI.exec(s); m; m = ANSI.exec(s)) {
    for (const ch of s.slice(last, m.index)) out.push({ text: ch, width: charWidth(ch) });
    out.push({ text: m[0], width: 0, escape: true });
    last = m.index + m[0].length;
  }
  for (const ch of s.slice(last)) out.push({ text: ch, width: charWidth(ch) });
  return out;
}

export function truncateToWidth(text, maxWidth, ellipsis = "...", pad = false) {
  const s = String(text);
  const max = Math.max(0, Math.floor(maxWidth));
  const w = visibleWidth(s);
  if (w <= max) return pad ? s + " ".repeat(max - w) : s;
  const ew = visibleWidth(ellipsis);
  const room = Math.max(0, max - ew);
  let out = "";
  let used = 0;
  let styled = false;
  for (const t of tokens(s)) {
    if (t.escape) {
      out += t.text;
      styled = true;
      continue;
    }
    if (used + t.width > room) break;
    out += t.text;
    used += t.width;
  }
  void styled;
  const tail = ew <= max ? ellipsis : "";
  // Styles are reset after the cut text and after the ellipsis, as pi-tui does.
  const result = `${out}\x1b[0m${tail}${tail ? "\x1b[0m" : ""}`;
  const rw = used + (tail ? ew : 0);
  return pad && rw < max ? result + " ".repeat(max - rw) : result;
}

export function sliceByColumn(line, startCol, length, strict = false) {
  let col = 0;
  let out = "";
  const end = startCol + length;
  for (const t of tokens(line)) {
    if (t.escape) {
      out += t.text;
      continue;
    }
    if (col >= startCol && col + t.width <= end) out += t.text;
    else if (!strict && col >= startCol && col < end) out += t.text;
    col += t.width;
  }
  return out;
}

export function wrapTextWithAnsi(text, width) {
  const w = Math.max(1, Math.floor(width));
  const out = [];
  for (const para of String(text).split("\n")) {
    if (visibleWidth(para) <= w) {
      out.push(para);
      continue;
    }
    let line = "";
    let lw = 0;
    for (const word of para.split(/(\s+)/)) {
      const ww = visibleWidth(word);
      if (lw + ww <= w) {
        line += word;
        lw += ww;
        continue;
      }
      if (line.trim() !== "") out.push(line.replace(/\s+$/, ""));
      line = "";
      lw = 0;
      if (/^\s+$/.test(word)) continue;
      let rest = word;
      while (visibleWidth(rest) > w) {
        const head = sliceByColumn(rest, 0, w, true);
        out.push(head);
        rest = rest.slice(head.length);
      }
      line = rest;
      lw = visibleWidth(rest);
    }
    out.push(line);
  }
  return out;
}

export function applyBackgroundToLine(line, width, bgFn) {
  const w = visibleWidth(line);
  return bgFn(w < width ? line + " ".repeat(width - w) : line);
}

// ---------------------------------------------------------------- fuzzy
export function fuzzyMatch(query, text) {
  const q = String(query).toLowerCase();
  const t = String(text).toLowerCase();
  if (q === "") return { matches: true, score: 0 };
  let ti = 0;
  let score = 0;
  let last = -1;
  for (const c of q) {
    const i = t.indexOf(c, ti);
    if (i < 0) return { matches: false, score: 0 };
    score += i === last + 1 ? 2 : 1;
    if (i === 0 || /[\s\-_/.]/.test(t[i - 1])) score += 3;
    last = i;
    ti = i + 1;
  }
  if (t.includes(q)) score += 10;
  return { matches: true, score: score - t.length * 0.01 };
}
export function fuzzyFilter(items, query, getText) {
  const words = String(query).trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return items.slice();
  const scored = [];
  for (const item of items) {
    const text = getText(item);
    let total = 0;
    let ok = true;
    for (const w of words) {
      const m = fuzzyMatch(w, text);
      if (!m.matches) {
        ok = false;
        break;
      }
      total += m.score;
    }
    if (ok) scored.push({ item, total });
  }
  scored.sort((a, b) => b.total - a.total);
  return scored.map((s) => s.item);
}

// ---------------------------------------------------------------- keys
const NAMED = [
  "escape", "enter", "tab", "space", "backspace", "delete", "insert", "clear", "home", "end", "pageUp", "pageDown",
  "up", "down", "left", "right", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12",
];
const SYMBOLS = {
  backtick: "`", hyphen: "-", equals: "=", leftbracket: "[", rightbracket: "]", backslash: "\\", semicolon: ";",
  quote: "'", comma: ",", period: ".", slash: "/", exclamation: "!", at: "@", hash: "#", dollar: "$", percent: "%",
  caret: "^", ampersand: "&", asterisk: "*", leftparen: "(", rightparen: ")", underscore: "_", plus: "+", pipe: "|",
  tilde: "~", leftbrace: "{", rightbrace: "}", colon: ":", lessthan: "<", greaterthan: ">", question: "?",
};
export const Key = { esc: "esc", return: "return", ...SYMBOLS };
for (const n of NAMED) Key[n] = n;
const MODS = ["ctrl", "shift", "alt", "super"];
const combos = [[], ...MODS.map((m) => [m])];
for (const [name, mods] of [
  ["ctrl", ["ctrl"]], ["shift", ["shift"]], ["alt", ["alt"]], ["super", ["super"]], ["ctrlShift", ["ctrl", "shift"]],
  ["shiftCtrl", ["shift", "ctrl"]], ["ctrlAlt", ["ctrl", "alt"]], ["altCtrl", ["alt", "ctrl"]], ["shiftAlt", ["shift", "alt"]],
  ["altShift", ["alt", "shift"]], ["ctrlSuper", ["ctrl", "super"]], ["superCtrl", ["super", "ctrl"]],
  ["shiftSuper", ["shift", "super"]], ["superShift", ["super", "shift"]], ["altSuper", ["alt", "super"]],
  ["superAlt", ["super", "alt"]], ["ctrlShiftAlt", ["ctrl", "shift", "alt"]], ["ctrlShiftSuper", ["ctrl", "shift", "super"]],
]) {
  Key[name] = (k) => `${mods.join("+")}+${k}`;
}
void combos;

const LEGACY = {
  "\r": "enter", "\n": "enter", "\t": "tab", "\x1b": "escape", "\x7f": "backspace", "\b": "ctrl+backspace", " ": "space",
  "\x1b[A": "up", "\x1b[B": "down", "\x1b[C": "right", "\x1b[D": "left", "\x1bOA": "up", "\x1bOB": "down",
  "\x1bOC": "right", "\x1bOD": "left", "\x1b[H": "home", "\x1b[F": "end", "\x1bOH": "home", "\x1bOF": "end",
  "\x1b[1~": "home", "\x1b[4~": "end", "\x1b[7~": "home", "\x1b[8~": "end", "\x1b[2~": "insert", "\x1b[3~": "delete",
  "\x1b[5~": "pageUp", "\x1b[6~": "pageDown", "\x1b[Z": "shift+tab", "\x1bOP": "f1", "\x1bOQ": "f2", "\x1bOR": "f3",
  "\x1bOS": "f4", "\x1b[15~": "f5", "\x1b[17~": "f6", "\x1b[18~": "f7", "\x1b[19~": "f8", "\x1b[20~": "f9",
  "\x1b[21~": "f10", "\x1b[23~": "f11", "\x1b[24~": "f12", "\x1b\r": "alt+enter", "\x1b\x7f": "alt+backspace",
  "\x00": "ctrl+space",
};
const CSI_FINAL = { A: "up", B: "down", C: "right", D: "left", H: "home", F: "end", P: "f1", Q: "f2", R: "f3", S: "f4" };
const CSI_TILDE = { 2: "insert", 3: "delete", 5: "pageUp", 6: "pageDown", 1: "home", 4: "end", 7: "home", 8: "end", 15: "f5", 17: "f6", 18: "f7", 19: "f8", 20: "f9", 21: "f10", 23: "f11", 24: "f12" };
const KITTY_CODES = { 13: "enter", 9: "tab", 27: "escape", 127: "backspace", 32: "space", 57399: "0" };
function withMods(base, modParam) {
  const m = Math.max(0, (Number(modParam) || 1) - 1);
  const mods = [];
  if (m & 4) mods.push("ctrl");
  if (m & 1) mods.push("shift");
  if (m & 2) mods.push("alt");
  if (m & 8) mods.push("super");
  return mods.length ? `${mods.join("+")}+${base}` : base;
}
function symbolName(ch) {
  for (const [k, v] of Object.entries(SYMBOLS)) if (v === ch) return k;
  return undefined;
}
export function parseKey(data) {
  const s = String(data);
  if (LEGACY[s] !== undefined) return LEGACY[s];
  let m = /^\x1b\[(\d+)(?::\d+)*(?:;(\d+)(?::(\d+))?)?(?:;[\d:]*)?u$/.exec(s);
  if (m) {
    const code = Number(m[1]);
    const base = KITTY_CODES[code] || String.fromCodePoint(code).toLowerCase();
    return withMods(base, m[2]);
  }
  m = /^\x1b\[1;(\d+)(?::\d+)?([A-DHFPQRS])$/.exec(s);
  if (m) return withMods(CSI_FINAL[m[2]], m[1]);
  m = /^\x1b\[(\d+)(?:;(\d+)(?::\d+)?)?~$/.exec(s);
  if (m && CSI_TILDE[m[1]]) return withMods(CSI_TILDE[m[1]], m[2]);
  if (s.length === 1) {
    const c = s.charCodeAt(0);
    if (c >= 1 && c <= 26) return `ctrl+${String.fromCharCode(c + 96)}`;
    if (c === 28) return "ctrl+\\";
    if (c === 29) return "ctrl+]";
    if (c === 31) return "ctrl+-";
    return s;
  }
  if (s.length === 2 && s[0] === "\x1b") {
    const inner = parseKey(s[1]);
    return inner ? `alt+${inner}` : undefined;
  }
  return undefined;
}
function normalize(id) {
  const parts = String(id).toLowerCase().split("+");
  let base = parts.pop();
  if (base === "" && parts.length && parts[parts.length - 1] === "") {
    parts.pop();
    base = "+";
  }
  if (base === "esc") base = "escape";
  if (base === "return") base = "enter";
  if (base === "pageup") base = "pageUp";
  if (base === "pagedown") base = "pageDown";
  if (SYMBOLS[base] !== undefined) base = SYMBOLS[base];
  const mods = MODS.filter((m) => parts.includes(m));
  return [...mods, base].join("+");
}
export function matchesKey(data, keyId) {
  const parsed = parseKey(data);
  if (parsed === undefined) return false;
  if (normalize(parsed) === normalize(keyId)) return true;
  // A shifted letter also arrives as the capital letter.
  const sym = symbolName(String(data));
  return sym !== undefined && normalize(keyId) === normalize(sym);
}
export function isKeyRelease(data) {
  return /^\x1b\[[\d:;]*:3[u~A-Z]$/.test(String(data)) && /;\d+:3/.test(String(data));
}
export function isKeyRepeat(data) {
  return /;\d+:2[u~A-Z]$/.test(String(data));
}
export function decodePrintableKey(data) {
  const s = String(data);
  if (s.length >= 1 && !s.startsWith("\x1b") && [...s].length === 1 && s.charCodeAt(0) >= 32) return s;
  const m = /^\x1b\[(\d+)(?:;(\d+))?u$/.exec(s);
  if (m && (!m[2] || m[2] === "1" || m[2] === "2") && Number(m[1]) >= 32 && !KITTY_CODES[m[1]]) return String.fromCodePoint(Number(m[1]));
  return undefined;
}
export const decodeKittyPrintable = decodePrintableKey;
let kitty = false;
export function setKittyProtocolActive(active) {
  kitty = !!active;
}
export function isKittyProtocolActive() {
  return kitty;
}

// ---------------------------------------------------------------- components
const padLine = (line, width) => {
  const w = visibleWidth(line);
  return w < width ? line + " ".repeat(width - w) : truncateToWidth(line, width, "");
};

export class Text {
  constructor(text = "", paddingX = 1, paddingY = 1, customBgFn) {
    this.text = String(text);
    this.paddingX = paddingX;
    this.paddingY = paddingY;
    this.customBgFn = customBgFn;
    this.cache = undefined;
  }
  setText(text) {
    this.text = String(text);
    this.cache = undefined;
  }
  setCustomBgFn(fn) {
    this.customBgFn = fn;
    this.cache = undefined;
  }
  setPaddingX(n) {
    this.paddingX = n;
    this.cache = undefined;
  }
  invalidate() {
    this.cache = undefined;
  }
  render(width) {
    if (this.cache && this.cache.width === width && this.cache.text === this.text) return this.cache.lines;
    const lines = [];
    if (this.text.trim() !== "") {
      const inner = Math.max(1, width - this.paddingX * 2);
      const pad = " ".repeat(this.paddingX);
      const body = wrapTextWithAnsi(this.text.replace(/\t/g, "   "), inner).map((l) => padLine(pad + l, width));
      const blank = " ".repeat(Math.max(0, width));
      for (let i = 0; i < this.paddingY; i++) lines.push(blank);
      lines.push(...body);
      for (let i = 0; i < this.paddingY; i++) lines.push(blank);
    }
    const out = this.customBgFn ? lines.map((l) => applyBackgroundToLine(l, width, this.customBgFn)) : lines;
    this.cache = { width, text: this.text, lines: out };
    return out;
  }
}

export class TruncatedText {
  constructor(text = "", paddingX = 0, paddingY = 0) {
    this.text = String(text);
    this.paddingX = paddingX;
    this.paddingY = paddingY;
  }
  setText(text) {
    this.text = String(text);
  }
  invalidate() {}
  render(width) {
    const pad = " ".repeat(this.paddingX);
    const line = pad + truncateToWidth(this.text.split("\n")[0], Math.max(0, width - this.paddingX * 2)) + pad;
    const blank = Array(this.paddingY).fill("");
    return [...blank, line, ...blank];
  }
}

export class Spacer {
  constructor(lines = 1) {
    this.lines = lines;
  }
  setLines(n) {
    this.lines = n;
  }
  invalidate() {}
  render(_width) {
    return Array(Math.max(0, this.lines)).fill("");
  }
}

export class Container {
  constructor() {
    this.children = [];
  }
  addChild(c) {
    this.children.push(c);
  }
  removeChild(c) {
    const i = this.children.indexOf(c);
    if (i >= 0) this.children.splice(i, 1);
  }
  clear() {
    this.children = [];
  }
  invalidate() {
    for (const c of this.children) if (c && typeof c.invalidate === "function") c.invalidate();
  }
  render(width) {
    const out = [];
    for (const c of this.children) out.push(...c.render(width));
    return out;
  }
}
export class VStack extends Container {}

export class Box extends Container {
  constructor(paddingX = 1, paddingY = 1, bgFn) {
    super();
    this.paddingX = paddingX;
    this.paddingY = paddingY;
    this.bgFn = bgFn;
  }
  setBgFn(fn) {
    this.bgFn = fn;
  }
  setPaddingX(n) {
    this.paddingX = n;
  }
  render(width) {
    const inner = Math.max(1, width - this.paddingX * 2);
    const pad = " ".repeat(this.paddingX);
    const body = super.render(inner).map((l) => pad + l);
    const blank = Array(this.paddingY).fill("");
    const lines = [...blank, ...body, ...blank];
    return lines.map((l) => (this.bgFn ? applyBackgroundToLine(l, width, this.bgFn) : padLine(l, width)));
  }
}

export class Markdown {
  constructor(text = "", paddingX = 1, paddingY = 1, theme, defaultTextStyle) {
    this.text = String(text);
    this.paddingX = paddingX;
    this.paddingY = paddingY;
    this.theme = theme;
    this.defaultTextStyle = defaultTextStyle;
  }
  setText(text) {
    this.text = String(text);
  }
  invalidate() {}
  render(width) {
    const th = this.theme || {};
    const style = (name, s) => (typeof th[name] === "function" ? th[name](s) : s);
    const plain = this.text
      .split("\n")
      .map((l) => {
        const h = /^(#{1,6})\s+(.*)$/.exec(l);
        if (h) return style("heading", h[2]);
        if (/^\s*[-*]\s+/.test(l)) return l.replace(/^(\s*)[-*]\s+/, "$1• ");
        return l.replace(/\*\*(.+?)\*\*/g, (_m, t) => style("bold", t)).replace(/`([^`]+)`/g, (_m, t) => style("code", t));
      })
      .join("\n");
    return new Text(plain, this.paddingX, this.paddingY).render(width);
  }
}

export class Loader {
  constructor(_tui, spinnerColorFn, messageColorFn, message = "Loading...") {
    this.spinner = spinnerColorFn || ((s) => s);
    this.colour = messageColorFn || ((s) => s);
    this.message = message;
    this.frame = 0;
  }
  setMessage(m) {
    this.message = m;
  }
  start() {}
  stop() {}
  invalidate() {}
  render(width) {
    const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
    return ["", truncateToWidth(`${this.spinner(frames[this.frame++ % frames.length])} ${this.colour(this.message)}`, width)];
  }
}
export class CancellableLoader extends Loader {
  constructor(...args) {
    super(...args);
    this.controller = new AbortController();
    this.onAbort = undefined;
  }
  get signal() {
    return this.controller.signal;
  }
  get aborted() {
    return this.controller.signal.aborted;
  }
  handleInput(data) {
    if (matchesKey(data, "escape")) {
      this.controller.abort();
      if (this.onAbort) this.onAbort();
    }
  }
  dispose() {}
}

// A one-line text field: printable keys insert, backspace/delete/left/right/home/end edit,
// enter submits, escape cancels.
export class Input {
  constructor(options = {}) {
    this.value = "";
    this.cursor = 0;
    this.focused = false;
    this.prompt = options.prompt === undefined ? "> " : options.prompt;
    this.placeholder = options.placeholder;
    this.placeholderStyle = options.placeholderStyle;
    this.onSubmit = undefined;
    this.onEscape = undefined;
  }
  getValue() {
    return this.value;
  }
  setValue(v) {
    this.value = String(v);
    this.cursor = [...this.value].length;
  }
  handleInput(data) {
    const chars = [...this.value];
    if (matchesKey(data, "enter")) return this.onSubmit && this.onSubmit(this.value);
    if (matchesKey(data, "escape")) return this.onEscape && this.onEscape();
    if (matchesKey(data, "backspace")) {
      if (this.cursor > 0) {
        chars.splice(this.cursor - 1, 1);
        this.cursor -= 1;
      }
    } else if (matchesKey(data, "delete")) chars.splice(this.cursor, 1);
    else if (matchesKey(data, "left")) this.cursor = Math.max(0, this.cursor - 1);
    else if (matchesKey(data, "right")) this.cursor = Math.min(chars.length, this.cursor + 1);
    else if (matchesKey(data, "home") || matchesKey(data, "ctrl+a")) this.cursor = 0;
    else if (matchesKey(data, "end") || matchesKey(data, "ctrl+e")) this.cursor = chars.length;
    else if (matchesKey(data, "ctrl+u")) {
      chars.splice(0, this.cursor);
      this.cursor = 0;
    } else {
      const text = decodePrintableKey(data) || (!String(data).startsWith("\x1b") && !/[\x00-\x1f\x7f]/.test(data) ? String(data) : undefined);
      if (text === undefined) return;
      const add = [...text];
      chars.splice(this.cursor, 0, ...add);
      this.cursor += add.length;
    }
    this.value = chars.join("");
  }
  invalidate() {}
  render(width) {
    const chars = [...this.value];
    if (chars.length === 0 && this.placeholder && !this.focused) {
      const p = this.placeholderStyle ? this.placeholderStyle(this.placeholder) : this.placeholder;
      return [truncateToWidth(this.prompt + p, width)];
    }
    const before = chars.slice(0, this.cursor).join("");
    const at = chars[this.cursor] || " ";
    const after = chars.slice(this.cursor + 1).join("");
    const cursor = this.focused ? CURSOR_MARKER + renderFakeCursor(at) : at;
    return [truncateToWidth(this.prompt + before + cursor + after, width, "")];
  }
}

// A multi-line editor: enter submits (shift+enter or alt+enter adds a line), the arrows move,
// backspace joins lines.
export class Editor {
  constructor(tui, theme, options = {}) {
    this.tui = tui;
    this.theme = theme || {};
    this.options = options;
    this.lines = [""];
    this.row = 0;
    this.col = 0;
    this.focused = false;
    this.disableSubmit = false;
    this.onSubmit = undefined;
    this.onChange = undefined;
    this.borderColor = (s) => s;
  }
  getText() {
    return this.lines.join("\n");
  }
  getExpandedText() {
    return this.getText();
  }
  getLines() {
    return this.lines.slice();
  }
  getCursor() {
    return { line: this.row, col: this.col };
  }
  setText(text) {
    this.lines = String(text).split("\n");
    this.row = this.lines.length - 1;
    this.col = [...this.lines[this.row]].length;
    if (this.onChange) this.onChange(this.getText());
  }
  insertTextAtCursor(text) {
    for (const ch of String(text)) {
      if (ch === "\n") this.newline();
      else this.insert(ch);
    }
  }
  addToHistory() {}
  setAutocompleteProvider() {}
  setPaddingX() {}
  invalidate() {}
  insert(ch) {
    const chars = [...this.lines[this.row]];
    chars.splice(this.col, 0, ch);
    this.lines[this.row] = chars.join("");
    this.col += 1;
  }
  newline() {
    const chars = [...this.lines[this.row]];
    this.lines.splice(this.row + 1, 0, chars.slice(this.col).join(""));
    this.lines[this.row] = chars.slice(0, this.col).join("");
    this.row += 1;
    this.col = 0;
  }
  handleInput(data) {
    const len = (r) => [...this.lines[r]].length;
    if (matchesKey(data, "shift+enter") || matchesKey(data, "alt+enter")) this.newline();
    else if (matchesKey(data, "enter")) {
      if (this.disableSubmit) return;
      const text = this.getText();
      if (this.onSubmit) this.onSubmit(text);
      return;
    } else if (matchesKey(data, "backspace")) {
      if (this.col > 0) {
        const chars = [...this.lines[this.row]];
        chars.splice(this.col - 1, 1);
        this.lines[this.row] = chars.join("");
        this.col -= 1;
      } else if (this.row > 0) {
        this.col = len(this.row - 1);
        this.lines[this.row - 1] += this.lines[this.row];
        this.lines.splice(this.row, 1);
        this.row -= 1;
      }
    } else if (matchesKey(data, "left")) {
      if (this.col > 0) this.col -= 1;
      else if (this.row > 0) {
        this.row -= 1;
        this.col = len(this.row);
      }
    } else if (matchesKey(data, "right")) {
      if (this.col < len(this.row)) this.col += 1;
      else if (this.row < this.lines.length - 1) {
        this.row += 1;
        this.col = 0;
      }
    } else if (matchesKey(data, "up")) {
      if (this.row > 0) {
        this.row -= 1;
        this.col = Math.min(this.col, len(this.row));
      }
    } else if (matchesKey(data, "down")) {
      if (this.row < this.lines.length - 1) {
        this.row += 1;
        this.col = Math.min(this.col, len(this.row));
      }
    } else if (matchesKey(data, "home") || matchesKey(data, "ctrl+a")) this.col = 0;
    else if (matchesKey(data, "end") || matchesKey(data, "ctrl+e")) this.col = len(this.row);
    else {
      const s = String(data);
      const text = decodePrintableKey(s) || (!s.startsWith("\x1b") && !/[\x00-\x08\x0b-\x1f\x7f]/.test(s) ? s : undefined);
      if (text === undefined) return;
      this.insertTextAtCursor(text);
    }
    if (this.onChange) this.onChange(this.getText());
  }
  render(width) {
    const border = (s) => (typeof this.borderColor === "function" ? this.borderColor(s) : s);
    const rule = border("─".repeat(Math.max(0, width)));
    const body = this.lines.map((line, r) => {
      if (r !== this.row || !this.focused) return truncateToWidth(line, width, "");
      const chars = [...line];
      const at = chars[this.col] || " ";
      return truncateToWidth(chars.slice(0, this.col).join("") + CURSOR_MARKER + renderFakeCursor(at) + chars.slice(this.col + 1).join(""), width, "");
    });
    return [rule, ...body, rule];
  }
}

// A selection list: up/down (wrapping) move, enter selects, escape cancels; setFilter narrows it.
export class SelectList {
  constructor(items, maxVisible = 10, theme = {}, layout = {}) {
    this.items = items || [];
    this.filtered = this.items.slice();
    this.maxVisible = maxVisible;
    this.theme = theme;
    this.layout = layout;
    this.selected = 0;
    this.onSelect = undefined;
    this.onCancel = undefined;
    this.onSelectionChange = undefined;
  }
  setFilter(filter) {
    this.filtered = fuzzyFilter(this.items, filter, (i) => `${i.label || i.value}`);
    this.selected = 0;
  }
  setSelectedIndex(i) {
    this.selected = Math.max(0, Math.min(i, this.filtered.length - 1));
  }
  getSelectedItem() {
    return this.filtered[this.selected] || null;
  }
  invalidate() {}
  handleInput(data) {
    const n = this.filtered.length;
    if (matchesKey(data, "up") && n) this.selected = (this.selected - 1 + n) % n;
    else if (matchesKey(data, "down") && n) this.selected = (this.selected + 1) % n;
    else if (matchesKey(data, "enter")) {
      const item = this.getSelectedItem();
      if (item && this.onSelect) this.onSelect(item);
      return;
    } else if (matchesKey(data, "escape")) {
      if (this.onCancel) this.onCancel();
      return;
    } else return;
    if (this.onSelectionChange && this.getSelectedItem()) this.onSelectionChange(this.getSelectedItem());
  }
  render(width) {
    const th = this.theme || {};
    const f = (name, s) => (typeof th[name] === "function" ? th[name](s) : s);
    if (this.filtered.length === 0) return [truncateToWidth(f("noMatch", "  No matching items"), width)];
    const start = Math.max(0, Math.min(this.selected - Math.floor(this.maxVisible / 2), this.filtered.length - this.maxVisible));
    const visible = this.filtered.slice(start, start + this.maxVisible);
    const lines = visible.map((item, k) => {
      const sel = start + k === this.selected;
      const label = item.label || item.value;
      const desc = item.description ? `  ${f("description", item.description)}` : "";
      const text = sel ? f("selectedPrefix", "→ ") + f("selectedText", label) : `  ${label}`;
      return truncateToWidth(text + desc, width);
    });
    if (this.filtered.length > this.maxVisible) lines.push(truncateToWidth(f("scrollInfo", `  (${this.selected + 1}/${this.filtered.length})`), width));
    return lines;
  }
}

// A settings list: up/down move, enter or space cycles the value, escape cancels.
export class SettingsList {
  constructor(items, maxVisible, theme, onChange, onCancel, options = {}) {
    this.items = items || [];
    this.maxVisible = maxVisible || 10;
    this.theme = theme || {};
    this.onChange = onChange;
    this.onCancel = onCancel;
    this.options = options;
    this.selected = 0;
  }
  updateValue(id, value) {
    const item = this.items.find((i) => i.id === id);
    if (item) item.currentValue = value;
  }
  selectItem(id) {
    const i = this.items.findIndex((x) => x.id === id);
    if (i >= 0) this.selected = i;
  }
  invalidate() {}
  handleInput(data) {
    const n = this.items.length;
    if (matchesKey(data, "up") && n) this.selected = (this.selected - 1 + n) % n;
    else if (matchesKey(data, "down") && n) this.selected = (this.selected + 1) % n;
    else if (matchesKey(data, "escape")) this.onCancel && this.onCancel();
    else if (matchesKey(data, "enter") || matchesKey(data, "space")) {
      const item = this.items[this.selected];
      if (!item || !Array.isArray(item.values) || item.values.length === 0) return;
      const next = item.values[(item.values.indexOf(item.currentValue) + 1) % item.values.length];
      item.currentValue = next;
      if (this.onChange) this.onChange(item.id, next);
    }
  }
  render(width) {
    const th = this.theme;
    const f = (name, s, sel) => (typeof th[name] === "function" ? th[name](s, sel) : s);
    const start = Math.max(0, Math.min(this.selected - Math.floor(this.maxVisible / 2), this.items.length - this.maxVisible));
    return this.items.slice(start, start + this.maxVisible).map((item, k) => {
      const sel = start + k === this.selected;
      const cursor = sel ? (typeof th.cursor === "string" ? th.cursor : "→ ") : "  ";
      return truncateToWidth(`${cursor}${f("label", item.label, sel)}  ${f("value", String(item.currentValue), sel)}`, width);
    });
  }
}

export function isFocusable(c) {
  return !!c && "focused" in c;
}

export default {};

// The rest of what the reference exports here: stand-ins (js/surface/tui.js).
export * from "pi:surface/tui";
