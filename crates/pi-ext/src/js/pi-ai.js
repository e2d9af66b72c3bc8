// The value exports of `@earendil-works/pi-ai` (and `@mariozechner/pi-ai`) extensions use.
import { Type } from "typebox";

export function StringEnum(values, options) {
  const schema = { type: "string", enum: values };
  if (options && options.description) schema.description = options.description;
  if (options && options.default) schema.default = options.default;
  return schema;
}

// A time-ordered UUID (version 7), from the host.
export function uuidv7() {
  return globalThis.__pi_node.uuidv7();
}

// The cost of a usage for a model's per-million prices (as the reference's calculateCost).
export function calculateCost(model, usage) {
  const c = (model && model.cost) || {};
  const per = (n, price) => ((Number(n) || 0) * (Number(price) || 0)) / 1e6;
  const cost = {
    input: per(usage.input, c.input),
    output: per(usage.output, c.output),
    cacheRead: per(usage.cacheRead, c.cacheRead),
    cacheWrite: per(usage.cacheWrite, c.cacheWrite),
  };
  cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
  if (usage && typeof usage === "object") usage.cost = cost;
  return cost;
}

// System messages merged into one, as the reference sends them to providers that take one.
export function collapseSystemMessages(messages) {
  const system = [];
  const rest = [];
  for (const m of messages || []) (m && m.role === "system" ? system : rest).push(m);
  if (system.length <= 1) return (messages || []).slice();
  const text = system.map((m) => (typeof m.content === "string" ? m.content : (m.content || []).map((b) => b.text || "").join(""))).join("\n\n");
  return [{ role: "system", content: text }, ...rest];
}
export function getCurrentSystemPrompt(context) {
  return context && typeof context.systemPrompt === "string" ? context.systemPrompt : "";
}
export function getCurrentTools(context) {
  return (context && context.tools) || [];
}

// An async-iterable stream of assistant message events with `push`, `end` and `result()`.
export class AssistantMessageEventStream {
  constructor() {
    this.queue = [];
    this.waiting = [];
    this.done = false;
    this.final = new Promise((resolve) => (this.resolveFinal = resolve));
  }
  push(event) {
    if (this.done) return;
    if (event && (event.type === "done" || event.type === "error")) {
      this.done = true;
      this.resolveFinal(event.type === "done" ? event.message : event.error);
    }
    const w = this.waiting.shift();
    if (w) w({ value: event, done: false });
    else this.queue.push(event);
    if (this.done) for (const x of this.waiting.splice(0)) x({ value: undefined, done: true });
  }
  end(result) {
    this.done = true;
    if (result !== undefined) this.resolveFinal(result);
    for (const x of this.waiting.splice(0)) x({ value: undefined, done: true });
  }
  result() {
    return this.final;
  }
  [Symbol.asyncIterator]() {
    return {
      next: () => {
        if (this.queue.length) return Promise.resolve({ value: this.queue.shift(), done: false });
        if (this.done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((r) => this.waiting.push(r));
      },
    };
  }
}
export function createAssistantMessageEventStream() {
  return new AssistantMessageEventStream();
}

// Partial JSON of streamed tool-call arguments, parsed as far as it goes.
export class ToolCallArgumentsStream {
  constructor() {
    this.text = "";
  }
  push(delta) {
    this.text += String(delta);
    return this.parse();
  }
  parse() {
    try {
      return JSON.parse(this.text);
    } catch {
      return {};
    }
  }
}

export { Type };

// The provider-registration surface, as `…/compat` has it.
export {
  registerApiProvider, getApiProvider, streamSimple, anthropicMessagesApi, openAIResponsesApi, openAICompletionsApi,
} from "pi:ai-compat";

// The rest of what the reference exports here: stand-ins (js/surface/ai.js).
export * from "pi:surface/ai";
