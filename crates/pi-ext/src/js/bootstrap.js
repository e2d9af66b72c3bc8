// The glue between pi's extension engine (Rust) and one extension: the `pi` object
// (ExtensionAPI), the `ctx` objects handed to handlers and tools. Evaluated once
// per engine (the realm keeps it as `makeExtension`) and called for each
// extension before its module, with the extension's host functions (`host.done`,
// `host.op`, `host.emit`, `host.sync`) and its config. Rust calls the functions
// of the `internal` object it registers in the realm; they answer through the
// host functions. Values cross the boundary as JSON text.
(function (host, config) {
  "use strict";
  const realm = globalThis.__pi_realm;
  const { define, safeString, errorMessage, jsonParse, toJson } = realm;
  const consoleObject = realm.console;
  const AbortController = globalThis.AbortController;

  function sync(kind, payload) {
    return jsonParse(host.sync(kind, toJson(payload)));
  }

  // Tool infos from the host mark `reachesTools: true`; give them the function.
  // The tools of this engine's extensions are called here; others (another
  // engine's) go through the host.
  function withReaches(infos) {
    for (const info of infos) {
      if (info.reachesTools !== true) continue;
      const path = info.sourceInfo && info.sourceInfo.path;
      const owner = Object.values(realm.exts).find((e) => e.path === path);
      const own = owner && owner.tool(info.name);
      if (own && typeof own.reachesTools === "function") {
        info.reachesTools = (input) => own.reachesTools(input);
      } else {
        const name = info.name;
        info.reachesTools = (input) => sync("reachesTools", { name, input });
      }
    }
    return infos;
  }

  // ---------------------------------------------------------------- async host operations
  const pendingOps = new Map();
  let nextOp = 1;
  function op(callId, kind, payload, onUpdate) {
    const id = nextOp++;
    return new Promise((resolve, reject) => {
      pendingOps.set(id, { resolve, reject, onUpdate });
      host.op(callId, id, kind, toJson(payload));
    });
  }

  // ---------------------------------------------------------------- the pi object
  const handlers = new Map();
  const tools = new Map();

  function publishEvents() {
    const names = [];
    for (const [name, list] of handlers) if (list.length > 0) names.push(name);
    host.sync("events", toJson(names));
  }

  function unsupported(name) {
    return () => {
      throw new Error(`pi.${name}() is not supported by pi's extension engine`);
    };
  }
  const noop = () => undefined;

  // `pi.events`: one bus for the extensions of the realm, as the reference's
  // extensions share one.
  const eventBus = realm.eventBus;
  // What an earlier run of this extension subscribed (before a reload or a
  // session replacement) is not heard any more.
  for (const [name, list] of eventBus) eventBus.set(name, list.filter((l) => l.owner !== config.path));
  // Commands this extension registered (pi.registerCommand), by name.
  const commands = new Map();
  // MCP servers it registered (pi.registerMcpServer), by name.
  const mcpServers = new Map();
  // Keyboard shortcuts it registered (pi.registerShortcut), by key.
  const shortcuts = new Map();
  // Custom message renderers it registered (pi.registerMessageRenderer), by customType.
  const renderers = new Map();
  // Custom entry renderers it registered (pi.registerEntryRenderer), by customType.
  const entryRenderers = new Map();
  // Flags this extension registered, and their values (defaults first, then
  // what the command line gave, set by the host after loading).
  const flags = new Map();
  const flagValues = new Map();
  const pi = {
    on(event, handler) {
      if (typeof event !== "string") throw new TypeError("pi.on: event must be a string");
      if (typeof handler !== "function") throw new TypeError("pi.on: handler must be a function");
      if (!handlers.has(event)) handlers.set(event, []);
      const entry = { handler };
      handlers.get(event).push(entry);
      publishEvents();
      return () => {
        const list = handlers.get(event) || [];
        const i = list.indexOf(entry);
        if (i >= 0) {
          list.splice(i, 1);
          publishEvents();
        }
      };
    },
    registerTool(def) {
      if (!def || typeof def !== "object") throw new TypeError("pi.registerTool: expected a tool definition object");
      if (typeof def.name !== "string" || def.name === "") throw new TypeError("pi.registerTool: tool name must be a non-empty string");
      if (typeof def.execute !== "function") throw new TypeError(`pi.registerTool: tool "${def.name}" has no execute function`);
      tools.set(def.name, def);
      const drawn = [...tools.values()].filter((t) => typeof t.renderCall === "function" || typeof t.renderResult === "function");
      host.sync("toolRenderers", toJson(drawn.map((t) => t.name)));
      sync("registerTool", {
        name: def.name,
        label: def.label,
        description: typeof def.description === "string" ? def.description : "",
        parameters: def.parameters === undefined ? { type: "object", properties: {} } : def.parameters,
        outputSchema: def.outputSchema,
        promptSnippet: def.promptSnippet,
        promptGuidelines: Array.isArray(def.promptGuidelines) ? def.promptGuidelines.map(String) : [],
        exposure: def.exposure,
        defaultActive: def.defaultActive,
        annotations: def.annotations,
        executionMode: def.executionMode,
        namespace: def.namespace,
        constrainedSampling: def.constrainedSampling,
        hasPrepareArguments: typeof def.prepareArguments === "function",
        hasReachesTools: typeof def.reachesTools === "function",
        hasPrepareLoadout: typeof def.prepareLoadout === "function",
      });
    },
    getAllTools() {
      return withReaches(sync("getAllTools", null));
    },
    getActiveTools() {
      return sync("getActiveTools", null);
    },
    setActiveTools(names) {
      sync("setActiveTools", Array.isArray(names) ? names.map(String) : []);
    },
    registerCommand(name, options) {
      if (typeof name !== "string" || name === "") throw new TypeError("pi.registerCommand: command name must be a non-empty string");
      const opts = options && typeof options === "object" ? options : {};
      if (typeof opts.handler !== "function") throw new TypeError(`pi.registerCommand: command "${name}" has no handler function`);
      // Registered again by this extension: the later one replaces it, in its place.
      commands.set(name, opts);
      const list = [...commands].map(([n, o]) => ({
        name: n,
        description: typeof o.description === "string" ? o.description : undefined,
        completions: typeof o.getArgumentCompletions === "function" || undefined,
      }));
      host.sync("commands", toJson(list));
    },
    registerShortcut(shortcut, options) {
      const opts = options && typeof options === "object" ? options : {};
      if (typeof shortcut !== "string" || typeof opts.handler !== "function") return;
      shortcuts.set(shortcut, opts);
      const list = [...shortcuts].map(([key, o]) => ({ key, description: typeof o.description === "string" ? o.description : undefined }));
      host.sync("shortcuts", toJson(list));
    },
    registerFlag(name, options) {
      const opts = options && typeof options === "object" ? options : {};
      if (opts.default !== undefined && typeof opts.default !== opts.type) {
        throw new Error(`Invalid default for flag "${name}": expected ${opts.type}, got ${typeof opts.default}`);
      }
      flags.set(String(name), { ...opts, name: String(name) });
      if (opts.default !== undefined && !flagValues.has(String(name))) flagValues.set(String(name), opts.default);
    },
    getFlag(name) {
      if (!flags.has(name)) return undefined;
      return flagValues.get(name);
    },
    registerMessageRenderer(customType, renderer) {
      if (typeof customType !== "string" || typeof renderer !== "function") return;
      renderers.set(customType, renderer);
      host.sync("renderers", toJson([...renderers.keys()]));
    },
    registerEntryRenderer(customType, renderer) {
      if (typeof customType !== "string" || typeof renderer !== "function") return;
      entryRenderers.set(customType, renderer);
      host.sync("entryRenderers", toJson([...entryRenderers.keys()]));
    },
    registerToolRenderer: noop,
    registerMarkdownTransformer: noop,
    getSettings() {
      return {};
    },
    exec(command, args, options) {
      return globalThis.__pi_node.exec(command, args, options);
    },
    // Accepted and not used: pi's providers and models are its own (docs/extensions.md).
    registerProvider: noop,
    unregisterProvider: noop,
    registerVirtualModel: noop,
    unregisterVirtualModel: noop,
    // MCP servers for this session (checked as mcp.json entries; pi
    // connects them with the mcp.json servers when the session starts).
    registerMcpServer(name, serverConfig) {
      const problem = sync("registerMcpServer", { name: safeString(name), config: serverConfig === undefined ? null : serverConfig });
      if (typeof problem === "string") throw new Error(`Invalid MCP server registered by extension "${config.path}": ${problem}`);
      mcpServers.set(safeString(name), serverConfig);
      host.sync("mcpServers", toJson([...mcpServers].map(([n, c]) => ({ name: n, config: c }))));
    },
    unregisterMcpServer(name) {
      mcpServers.delete(safeString(name));
      host.sync("mcpServers", toJson([...mcpServers].map(([n, c]) => ({ name: n, config: c }))));
    },
    getMcpServers() {
      return [];
    },
    events: {
      on(name, fn) {
        if (!eventBus.has(name)) eventBus.set(name, []);
        const entry = { fn, owner: config.path };
        eventBus.get(name).push(entry);
        return () => {
          const list = eventBus.get(name) || [];
          const i = list.indexOf(entry);
          if (i >= 0) list.splice(i, 1);
        };
      },
      emit(name, data) {
        for (const { fn } of (eventBus.get(name) || []).slice()) fn(data);
      },
    },
  };

  // ctx.compact callbacks waiting for the next compaction's outcome.
  const compactWaiters = [];
  let compactListening = false;
  function onCompacted(options) {
    if (!compactListening) {
      compactListening = true;
      pi.on("session_compact", (event) => {
        const entry = (event && event.compactionEntry) || {};
        const result = { summary: entry.summary, firstKeptEntryId: entry.firstKeptEntryId, tokensBefore: entry.tokensBefore };
        for (const w of compactWaiters.splice(0)) if (typeof w.onComplete === "function") w.onComplete(result);
      });
      pi.on("session_compact_failed", (event) => {
        const error = new Error((event && event.errorMessage) || "Compaction failed");
        for (const w of compactWaiters.splice(0)) if (typeof w.onError === "function") w.onError(error);
      });
    }
    compactWaiters.push(options);
  }

  // The session's views and changes (session.js).
  const session = config.session({ sync, op, safeString, config, onCompacted });
  Object.assign(pi, session.pi);

  // ---------------------------------------------------------------- ctx
  const neverAborted = new AbortController().signal;

  function makeUi(callId, trust) {
    const hasUI = config.hasUI;
    const cancelled = (opts) => !!(opts && opts.signal && opts.signal.aborted);
    function dialog(kind, payload, opts, fallback) {
      if (!hasUI || cancelled(opts)) return Promise.resolve(fallback);
      const p = op(callId, kind, Object.assign(payload, { timeout: opts && opts.timeout }));
      if (!opts || !opts.signal) return p;
      return new Promise((resolve, reject) => {
        opts.signal.addEventListener("abort", () => resolve(fallback), { once: true });
        p.then(resolve, reject);
      });
    }
    const fire = (call) => {
      if (hasUI) host.sync("ui", toJson(call));
    };
    return {
      select(title, options, opts) {
        return dialog("select", { title: safeString(title), options: Array.isArray(options) ? options.map(String) : [] }, opts, undefined);
      },
      confirm(title, message, opts) {
        return dialog("confirm", { title: safeString(title), message: message === undefined ? "" : safeString(message) }, opts, false).then((v) => v === true);
      },
      input(title, placeholder, opts) {
        return dialog("input", { title: safeString(title), placeholder: placeholder === undefined ? null : safeString(placeholder) }, opts, undefined);
      },
      editor(title, prefill) {
        return dialog("editor", { title: safeString(title), prefill: prefill === undefined ? null : safeString(prefill) }, undefined, undefined);
      },
      notify(message, type) {
        const level = type === "warning" || type === "error" ? type : "info";
        if (hasUI) host.sync("notify", toJson({ message: safeString(message), type: level }));
        else if (trust) host.log("notify", safeString(message));
      },
      setStatus(key, text) {
        fire({ method: "setStatus", key: safeString(key), text: text === undefined || text === null ? undefined : safeString(text) });
      },
      setWidget(key, content, options) {
        // Lines only: a component factory is not drawn (as in the reference's RPC mode).
        if (content !== undefined && content !== null && !Array.isArray(content)) return;
        const placement = options && typeof options.placement === "string" ? options.placement : undefined;
        fire({ method: "setWidget", key: safeString(key), lines: content ? content.map((l) => safeString(l)) : undefined, placement });
      },
      setTitle(title) {
        fire({ method: "setTitle", title: safeString(title) });
      },
      setFooter(factory) {
        place("footer", factory);
      },
      setHeader(factory) {
        place("header", factory);
      },
      setEditorText(text) {
        fire({ method: "setEditorText", text: safeString(text) });
      },
      getEditorText() {
        return "";
      },
      setWorkingMessage(text) {
        fire({ method: "setWorkingMessage", text: text === undefined || text === null ? undefined : safeString(text) });
      },
      setWorkingIndicator: noop,
      setWorkingVisible: noop,
      setHiddenThinkingLabel: noop,
      theme: extTheme,
      getTheme: () => (config.mode === "tui" ? extTheme : undefined),
      getAllThemes: () => [],
      setTheme: () => ({ success: false, error: config.mode === "rpc" ? "Theme switching not supported in RPC mode" : hasUI ? "Theme switching is not available to extensions in pi" : "UI not available" }),
      setEditorComponent: noop,
      getEditorComponent: () => undefined,
      // Raw terminal input is not given to extensions: an unsubscribe that does nothing.
      onTerminalInput: () => noop,
      getToolsExpanded: () => false,
      setToolsExpanded: noop,
      addAutocompleteProvider: noop,
      pasteToEditor(text) {
        fire({ method: "setEditorText", text: safeString(text) });
      },
      // A component in the terminal UI until it calls done(result); what it
      // resolves. Elsewhere (RPC, print) undefined, as the reference.
      async custom(factory, _options) {
        if (!hasUI || config.mode !== "tui" || typeof factory !== "function") return undefined;
        const id = sync("newComponent", null);
        let finished = null;
        const done = (result) => {
          if (finished) return;
          finished = { result };
          components.delete(id);
          fire({ method: "componentDone", id, result: result === undefined ? null : result });
        };
        const component = await factory(tuiHandle, extTheme, keybindings, done);
        if (finished) return finished.result;
        components.set(id, component);
        const r = await op(callId, "custom", { id });
        components.delete(id);
        return finished ? finished.result : r;
      },
    };
  }

  // The UI's side of a component, as pi-tui's TUI offers it.
  const tuiHandle = {
    requestRender() {
      if (config.hasUI) host.sync("ui", toJson({ method: "render" }));
    },
    terminal: { columns: 80, rows: 24 },
  };
  // pi's key bindings are its own: an extension's component reads raw keys.
  const keybindings = { matches: () => false, getKeys: () => [] };
  // Components shown now, by id.
  const components = new Map();
  // Tool rows' shared renderer state (context.state), by call id.
  const rowStates = new Map();
  // Argument suggestions that came as promises, by command and prefix.
  const completionCache = new Map();

  function place(slot, factory) {
    if (!config.hasUI || config.mode !== "tui") return;
    if (typeof factory !== "function") {
      host.sync("place", toJson({ slot, id: null }));
      return;
    }
    const id = sync("newComponent", null);
    const component = factory(tuiHandle, extTheme, {});
    components.set(id, component);
    host.sync("place", toJson({ slot, id }));
  }

  // The theme extensions style text with: the roles' colours of the theme
  // pi chose (read once, when first used); bold, italic and the other
  // attributes only in the terminal UI (as the reference's, whose attribute
  // styling is off when its output is not a terminal).
  let themeData;
  const themeOf = () => (themeData === undefined ? (themeData = sync("theme", null) || null) : themeData);
  const role = (name) => {
    const t = themeOf();
    const r = t && t.roles && t.roles[name];
    return Array.isArray(r) ? r : null;
  };
  const paint = (name, text) => {
    const r = role(name);
    return r ? r[0] + safeString(text) + r[1] : safeString(text);
  };
  const attribute = (open, close) => (text) =>
    config.mode === "tui" ? `\x1b[${open}m${safeString(text)}\x1b[${close}m` : safeString(text);
  const extTheme = {
    fg: paint,
    bg: paint,
    bold: attribute(1, 22),
    italic: attribute(3, 23),
    underline: attribute(4, 24),
    strikethrough: attribute(9, 29),
    inverse: attribute(7, 27),
    dim: attribute(2, 22),
    getFgAnsi: (name) => (role(name) || [""])[0],
    getBgAnsi: (name) => (role(name) || [""])[0],
    getColorMode: () => (themeOf() && themeOf().mode) || "256color",
  };

  function makeCtx(callId, extra) {
    const ctx = {
      cwd: config.cwd,
      mode: config.mode,
      hasUI: config.hasUI,
      ui: makeUi(callId, extra && extra.trust),
      signal: (extra && extra.signal) || neverAborted,
      isProjectTrusted() {
        return config.projectTrusted;
      },

      compact: noop,
    };
    session.decorate(ctx, callId);
    if (extra && extra.tool) Object.assign(ctx, extra.tool);
    return ctx;
  }

  // ---------------------------------------------------------------- results
  function normalizeContent(content) {
    if (!Array.isArray(content)) return [];
    const out = [];
    for (const block of content) {
      if (!block || typeof block !== "object") continue;
      if (block.type === "text") out.push({ type: "text", text: safeString(block.text === undefined ? "" : block.text) });
      else if (block.type === "image") out.push({ type: "image", data: safeString(block.data), mimeType: safeString(block.mimeType) });
    }
    return out;
  }

  function normalizeResult(r) {
    const result = r && typeof r === "object" ? r : {};
    const out = { content: normalizeContent(result.content), isError: result.isError === true, terminate: result.terminate === true };
    if (result.details !== undefined) out.details = result.details;
    if (result.structuredContent !== undefined) out.structuredContent = result.structuredContent;
    if (result.usage && typeof result.usage === "object") out.usage = result.usage;
    return out;
  }

  // ---------------------------------------------------------------- running handlers
  function handlersOf(name) {
    return (handlers.get(name) || []).slice();
  }

  // Each handler's answer that is an object, in order; a handler that throws
  // is reported in `errors` and skipped.
  async function* answers(name, event, ctx, errors) {
    for (const { handler } of handlersOf(name)) {
      let r;
      try {
        r = await handler(event, ctx);
      } catch (e) {
        errors.push(errorMessage(e));
        continue;
      }
      if (r && typeof r === "object") yield r;
    }
  }

  async function runToolCall(callId, event) {
    const ctx = makeCtx(callId);
    for (const { handler } of handlersOf("tool_call")) {
      let r;
      try {
        r = await handler(event, ctx);
      } catch (e) {
        return { error: e instanceof Error ? errorMessage(e) : `Extension failed, blocking execution: ${safeString(e)}` };
      }
      if (r && typeof r === "object") {
        if (r.block) return { input: event.input, block: true, reason: r.reason === undefined ? null : safeString(r.reason), terminate: r.terminate === true };
      }
    }
    return { input: event.input, block: false };
  }

  async function runToolResult(callId, event) {
    const ctx = makeCtx(callId);
    const patch = {};
    const errors = [];
    for await (const r of answers("tool_result", event, ctx, errors)) {
      if (r.content !== undefined) {
        event.content = r.content;
        patch.content = normalizeContent(r.content);
      }
      if (r.details !== undefined) {
        event.details = r.details;
        patch.details = r.details;
        patch.hasDetails = true;
      }
      if (r.isError !== undefined) {
        event.isError = r.isError === true;
        patch.isError = event.isError;
      }
    }
    patch.errors = errors;
    return patch;
  }

  async function runProjectTrust(callId, event) {
    const ctx = makeCtx(callId, { trust: true });
    const errors = [];
    for (const { handler } of handlersOf("project_trust")) {
      try {
        const r = await handler(event, ctx);
        if (r && (r.trusted === "yes" || r.trusted === "no")) return { trusted: r.trusted, remember: r.remember === true, errors };
      } catch (e) {
        errors.push(errorMessage(e));
      }
    }
    return { trusted: null, remember: false, errors };
  }

  // context, message_end: each handler's answer replaces `event[key]` for the
  // next; a message_end replacement must keep the message's role.
  async function runChain(callId, name, event, key) {
    const ctx = makeCtx(callId);
    const errors = [];
    let changed = false;
    for await (const r of answers(name, event, ctx, errors)) {
      const v = r[key];
      if (v === undefined) continue;
      if (key === "message" && (!v || typeof v !== "object" || v.role !== event.message.role)) continue;
      if (name === "context" && !Array.isArray(v)) {
        // As the reference: what is not a list sends no messages.
        errors.push(`context handler returned messages that are not a list (${typeof v}); no messages are sent`);
        event[key] = [];
        changed = true;
        continue;
      }
      event[key] = v;
      changed = true;
    }
    return changed ? { errors, value: event[key] } : { errors };
  }

  // before_provider_request: a handler's answer (anything but undefined)
  // replaces the payload for the handlers after it and for the request.
  // before_provider_headers: handlers change event.headers in place.
  async function runProvider(callId, name, event) {
    const ctx = makeCtx(callId);
    const errors = [];
    const key = name === "before_provider_request" ? "payload" : "headers";
    for (const { handler } of handlersOf(name)) {
      try {
        const r = await handler(event, ctx);
        if (key === "payload" && r !== undefined) event.payload = r;
      } catch (e) {
        errors.push(errorMessage(e));
      }
    }
    const value = event[key];
    return value === undefined ? { errors, value: null } : { errors, value };
  }

  // turn_end, agent_before_settle: each handler sees the proposal so far
  // (event.entries, event.continue); an answer's `entries` or `continue`
  // replaces that part of it.
  async function runBoundary(callId, name, event) {
    const ctx = makeCtx(callId);
    const errors = [];
    let changed = false;
    for (const { handler } of handlersOf(name)) {
      try {
        const r = await handler(event, ctx);
        if (r && typeof r === "object") {
          if (r.entries !== undefined) {
            event.entries = r.entries;
            changed = true;
          }
          if (r.continue !== undefined) {
            event.continue = r.continue;
            changed = true;
          }
        }
      } catch (e) {
        errors.push(errorMessage(e));
      }
    }
    return changed ? { errors, value: { entries: event.entries, continue: event.continue === true } } : { errors };
  }

  // session_before_switch, session_before_fork: the first handler that
  // answers {cancel: true} cancels the replacement.
  async function runGate(callId, name, event) {
    const ctx = makeCtx(callId);
    const errors = [];
    for await (const r of answers(name, event, ctx, errors)) {
      if (r.cancel === true) return { errors, cancel: true };
    }
    return { errors, cancel: false };
  }

  // resources_discover: every handler's paths, in order.
  async function runDiscover(callId, event) {
    const ctx = makeCtx(callId);
    const errors = [];
    const found = { skillPaths: [], promptPaths: [], themePaths: [] };
    for await (const r of answers("resources_discover", event, ctx, errors)) {
      for (const key of Object.keys(found)) {
        if (Array.isArray(r[key])) found[key].push(...r[key].filter((p) => typeof p === "string"));
      }
    }
    return Object.assign({ errors }, found);
  }

  async function runNotification(callId, name, event) {
    const ctx = makeCtx(callId);
    const errors = [];
    for (const { handler } of handlersOf(name)) {
      try {
        await handler(event, ctx);
      } catch (e) {
        errors.push(errorMessage(e));
      }
    }
    return { errors };
  }

  const controllers = new Map();

  // user_bash: the first handler that answers with `result` (a completed
  // command) or `operations` (a backend whose exec runs it) wins.
  function userBashResult(x) {
    return {
      output: x.output === undefined || x.output === null ? "" : safeString(x.output),
      exitCode: typeof x.exitCode === "number" ? x.exitCode : null,
      cancelled: x.cancelled === true,
      truncated: x.truncated === true,
      fullOutputPath: typeof x.fullOutputPath === "string" ? x.fullOutputPath : null,
    };
  }

  // session_before_compact: the first handler that cancels or supplies a
  // compaction decides.
  async function runBeforeCompact(callId, event) {
    const ctx = makeCtx(callId);
    event.signal = ctx.signal;
    const errors = [];
    for await (const r of answers("session_before_compact", event, ctx, errors)) {
      if (r.cancel === true) return { errors, cancel: true };
      if (r.compaction && typeof r.compaction === "object") return { errors, compaction: r.compaction };
    }
    return { errors };
  }

  async function runUserBash(callId, event) {
    const ctx = makeCtx(callId);
    const errors = [];
    for await (const r of answers("user_bash", event, ctx, errors)) {
      if (r.result && typeof r.result === "object") return { errors, result: userBashResult(r.result) };
      if (r.operations && typeof r.operations.exec === "function") {
        const controller = new AbortController();
        controllers.set(callId, controller);
        let output = "";
        const onData = (data) => {
          const text = typeof data === "string" ? data : safeString(data);
          output += text;
          host.emit(callId, "update", toJson({ content: [{ type: "text", text }] }));
        };
        try {
          const res = await r.operations.exec(event.command, event.cwd, { onData, signal: controller.signal });
          const exitCode = res && typeof res.exitCode === "number" ? res.exitCode : null;
          return { errors, result: userBashResult({ output, exitCode, cancelled: controller.signal.aborted }) };
        } catch (e) {
          errors.push(errorMessage(e));
          return { errors, result: userBashResult({ output, cancelled: controller.signal.aborted }) };
        } finally {
          controllers.delete(callId);
        }
      }
    }
    return { errors, result: null };
  }

  // A registered command's handler, with the command context.
  async function runCommand(callId, p) {
    const def = commands.get(p.name);
    if (!def) throw new Error(`Command /${p.name} not found`);
    const ctx = session.commandContext(callId, () => makeCtx(callId));
    try {
      await def.handler(typeof p.args === "string" ? p.args : "", ctx);
      return { errors: [] };
    } catch (e) {
      return { errors: [errorMessage(e)] };
    }
  }

  // A keyboard shortcut pressed in the terminal UI: its handler gets the
  // context a command gets.
  async function runShortcut(callId, p) {
    const def = shortcuts.get(p.key);
    if (!def) throw new Error(`Shortcut ${p.key} not found`);
    const ctx = session.commandContext(callId, () => makeCtx(callId));
    try {
      await def.handler(ctx);
      return { errors: [] };
    } catch (e) {
      return { errors: [errorMessage(e)] };
    }
  }

  // input: transforms chain, the first `handled` wins; a failing handler is reported and skipped.
  async function runInput(callId, event) {
    const ctx = makeCtx(callId);
    const errors = [];
    for await (const r of answers("input", event, ctx, errors)) {
      if (r.action === "handled") return { action: "handled", errors };
      if (r.action === "transform") {
        if (typeof r.text === "string") event.text = r.text;
        if (Array.isArray(r.images)) event.images = r.images;
      }
    }
    return { action: "continue", text: event.text, images: event.images, errors };
  }

  // before_agent_start: the system prompt chains; returned messages are collected.
  async function runBeforeAgentStart(callId, event) {
    const ctx = makeCtx(callId);
    ctx.getSystemPrompt = () => event.systemPrompt;
    const errors = [];
    const messages = [];
    for await (const r of answers("before_agent_start", event, ctx, errors)) {
      if (typeof r.systemPrompt === "string") event.systemPrompt = r.systemPrompt;
      if (r.message && typeof r.message === "object") messages.push(r.message);
    }
    return { systemPrompt: event.systemPrompt, systemPromptOptions: event.systemPromptOptions, messages, errors };
  }

  // Tool calls running now, latest last: a built-in run from a tool's code
  // (createBashTool(...).execute) belongs to the latest.
  const activeExecutes = [];

  async function runExecute(callId, p) {
    const def = tools.get(p.name);
    if (!def) throw new Error(`Tool ${p.name} not found`);
    const controller = new AbortController();
    controllers.set(callId, controller);
    activeExecutes.push(callId);
    try {
      const onUpdate = (partial) => host.emit(callId, "update", toJson(normalizeResult(partial)));
      const toolCtx = {
        tools: p.tools,
        executeTool(name, args, options) {
          const onUpd = options && typeof options.onUpdate === "function" ? options.onUpdate : undefined;
          return op(callId, "executeTool", { name: safeString(name), args: args === undefined ? {} : args, updates: !!onUpd }, onUpd);
        },
      };
      const ctx = makeCtx(callId, { signal: controller.signal, tool: toolCtx });
      const r = await def.execute(p.toolCallId, p.params, controller.signal, onUpdate, ctx);
      return normalizeResult(r);
    } finally {
      controllers.delete(callId);
      activeExecutes.splice(activeExecutes.indexOf(callId), 1);
    }
  }

  // Every call ends with exactly one host.done, whatever the value (cycles, BigInt, throwing getters).
  function settle(callId, promise) {
    promise.then(
      (value) => {
        let text;
        try {
          text = toJson(value);
        } catch (e) {
          host.done(callId, false, errorMessage(e));
          return;
        }
        host.done(callId, true, text);
      },
      (error) => host.done(callId, false, errorMessage(error)),
    );
  }

  // The reference's events carry some fields even when they are undefined
  // (JSON cannot say so): their keys, in its order, as Object.keys lists them.
  const SHAPES = {
    input: ["type", "text", "images", "source", "streamingBehavior"],
    tool_result: ["type", "toolName", "toolCallId", "input", "content", "details", "structuredContent", "isError", "usage"],
    session_tree: ["type", "newLeafId", "oldLeafId", "summaryEntry", "fromExtension"],
  };
  function shaped(kind, event) {
    if (kind === "tool_execution_end" && event && event.result) {
      const r = event.result;
      event.result = { content: r.content, details: r.details, structuredContent: r.structuredContent };
      if (r.structuredContent === undefined && r.details !== undefined) delete event.result.structuredContent;
      return event;
    }
    const keys = SHAPES[kind];
    if (!keys || !event || typeof event !== "object") return event;
    const out = {};
    for (const k of keys) out[k] = event[k];
    for (const k of Object.keys(event)) if (!(k in out)) out[k] = event[k];
    return out;
  }

  const internal = {
    path: config.path,
    cwd: config.cwd,
    version: config.version,
    sync,
    // This extension's tool `name` (its definition).
    tool: (name) => tools.get(name),
    // Run pi's built-in tool `name` for the running tool call (see activeExecutes).
    builtin(name, args, cwd, env) {
      if (activeExecutes.length === 0) return Promise.reject(new Error(`The built-in ${name} tool runs only inside a tool call`));
      return op(activeExecutes[activeExecutes.length - 1], "builtin", { name: safeString(name), args: args === undefined ? {} : args, cwd, env });
    },
    load(callId, evaluated, namespace) {
      Promise.resolve(evaluated).then(
        () => {
          const factory = namespace.default;
          if (typeof factory !== "function") {
            host.done(callId, false, "\u0000not-a-factory");
            return;
          }
          settle(
            callId,
            Promise.resolve().then(() => factory(pi)),
          );
        },
        (error) => host.done(callId, false, errorMessage(error)),
      );
    },
    dispatch(callId, kind, json) {
      const p = shaped(kind, jsonParse(json));
      let run;
      if (kind === "tool_call") run = () => runToolCall(callId, p);
      else if (kind === "tool_result") run = () => runToolResult(callId, p);
      else if (kind === "project_trust") run = () => runProjectTrust(callId, p);
      else if (kind === "execute") run = () => runExecute(callId, p);
      else if (kind === "user_bash") run = () => runUserBash(callId, p);
      else if (kind === "session_before_compact") run = () => runBeforeCompact(callId, p);
      else if (kind === "command") run = () => runCommand(callId, p);
      else if (kind === "shortcut") run = () => runShortcut(callId, p);
      else if (kind === "input") run = () => runInput(callId, p);
      else if (kind === "before_agent_start") run = () => runBeforeAgentStart(callId, p);
      else if (kind === "context" || kind === "context_with_system") run = () => runChain(callId, kind, p, "messages");
      else if (kind === "resources_discover") run = () => runDiscover(callId, p);
      else if (kind === "session_before_switch" || kind === "session_before_fork" || kind === "session_before_restore") run = () => runGate(callId, kind, p);
      else if (kind === "session_before_tree") run = () => runGate(callId, kind, Object.assign(p, { signal: neverAborted }));
      else if (kind === "message_end") run = () => runChain(callId, kind, p, "message");
      else if (kind === "before_provider_request" || kind === "before_provider_headers") run = () => runProvider(callId, kind, p);
      else if (kind === "turn_end" || kind === "agent_before_settle") run = () => runBoundary(callId, kind, p);
      else run = () => runNotification(callId, kind, p);
      settle(callId, Promise.resolve().then(run));
    },
    reachesTools(name, json) {
      const def = tools.get(name);
      if (!def || typeof def.reachesTools !== "function") return "null";
      return toJson(def.reachesTools(jsonParse(json)));
    },
    prepareLoadout(name, json) {
      const def = tools.get(name);
      if (!def || typeof def.prepareLoadout !== "function") return "null";
      const view = jsonParse(json);
      const registered = withReaches(view.registered);
      const find = (n) => registered.find((t) => t.name === n);
      const loadout = {
        declared: withReaches(view.declared),
        callable: withReaches(view.callable),
        registered,
        getExposure: (n) => (find(n) ? find(n).exposure : "direct"),
        getNamespace: (n) => (find(n) ? find(n).namespace : undefined),
        getPromptGuidelines: (n) => (find(n) && Array.isArray(find(n).promptGuidelines) ? find(n).promptGuidelines : []),
      };
      try {
        return toJson(def.prepareLoadout(loadout));
      } catch (error) {
        // Reported with the message alone, as the reference reports hook errors.
        throw errorMessage(error);
      }
    },
    flags() {
      return JSON.stringify([...flags.values()].map((f) => ({ name: f.name, type: f.type })));
    },
    setTrust(_name, json) {
      config.projectTrusted = jsonParse(json) === true;
      return "null";
    },
    // A command's suggestions for its argument (pi-tui's AutocompleteItem
    // list, or null). A promise's answer is kept for the next time the
    // same prefix is asked (the UI asks again as the user types).
    completions(name, json) {
      const def = commands.get(name);
      const prefix = safeString((jsonParse(json) || {}).prefix || "");
      if (!def || typeof def.getArgumentCompletions !== "function") return "null";
      const key = `${name}\u0000${prefix}`;
      if (completionCache.has(key)) return toJson(completionCache.get(key));
      const r = def.getArgumentCompletions(prefix);
      if (r && typeof r.then === "function") {
        r.then(
          (items) => {
            completionCache.set(key, Array.isArray(items) ? items : null);
            if (completionCache.size > 100) completionCache.delete(completionCache.keys().next().value);
          },
          () => {},
        );
        return "null";
      }
      return toJson(Array.isArray(r) ? r : null);
    },
    // One slot of a tool row drawn by the tool's renderCall/renderResult
    // (null: pi draws that slot). `context.state` lives as long as the call's row.
    renderTool(name, json) {
      const def = tools.get(name);
      const p = jsonParse(json) || {};
      const fn = def && (p.slot === "call" ? def.renderCall : def.renderResult);
      if (typeof fn !== "function") return "null";
      let state = rowStates.get(p.toolCallId);
      if (!state) {
        state = {};
        rowStates.set(p.toolCallId, state);
        if (rowStates.size > 500) rowStates.delete(rowStates.keys().next().value);
      }
      const context = {
        args: p.args,
        state,
        lastComponent: undefined,
        invalidate: () => tuiHandle.requestRender(),
        toolCallId: p.toolCallId,
        cwd: config.cwd,
        executionStarted: p.executionStarted === true,
        argsComplete: true,
        isPartial: p.isPartial === true,
        expanded: p.expanded === true,
        showImages: false,
        isError: p.isError === true,
        durationMs: p.durationMs === null ? undefined : p.durationMs,
        outputPad: 1,
        keyText: () => "",
        keyHint: (_id, description) => safeString(description),
      };
      const component =
        p.slot === "call"
          ? fn(p.args, extTheme, context)
          : fn(p.result, { expanded: context.expanded, isPartial: context.isPartial, keyHint: context.keyHint, keyText: context.keyText }, extTheme, context);
      if (!component || typeof component.render !== "function") return "null";
      const lines = component.render(p.width);
      return Array.isArray(lines) ? toJson(lines.map((l) => safeString(l))) : "null";
    },
    // A custom message (or, with `entry`, a custom entry) drawn by the
    // extension's renderer at a width (null: the default drawing).
    renderMessage(customType, json) {
      const r = (jsonParse(json) || {}).entry ? entryRenderers.get(customType) : renderers.get(customType);
      const p = jsonParse(json) || {};
      if (!r) return "null";
      const component = r(p.message, { expanded: p.expanded === true }, extTheme);
      if (!component || typeof component.render !== "function") return "null";
      const lines = component.render(p.width);
      return Array.isArray(lines) ? toJson(lines.map((l) => safeString(l))) : "null";
    },
    // A shown component, driven by the UI: its lines at a width, a key
    // press, forgetting its cache, letting it go.
    component(_name, json) {
      const p = jsonParse(json) || {};
      const c = components.get(p.id);
      if (!c) return p.op === "render" ? "[]" : "null";
      if (p.op === "render") {
        const lines = typeof c.render === "function" ? c.render(p.width) : [];
        return toJson(Array.isArray(lines) ? lines.map((l) => safeString(l)) : []);
      }
      if (p.op === "input" && typeof c.handleInput === "function") c.handleInput(safeString(p.data));
      else if (p.op === "invalidate" && typeof c.invalidate === "function") c.invalidate();
      else if (p.op === "dispose") {
        components.delete(p.id);
        if (typeof c.dispose === "function") c.dispose();
      }
      return "null";
    },
    setFlags(_name, json) {
      for (const [name, value] of Object.entries(jsonParse(json) || {})) {
        if (flags.has(name)) flagValues.set(name, value);
      }
      return "null";
    },
    prepareArguments(name, json) {
      const def = tools.get(name);
      if (!def || typeof def.prepareArguments !== "function") return json;
      const out = def.prepareArguments(jsonParse(json));
      return toJson(out);
    },
    abort(callId) {
      const c = controllers.get(callId);
      if (c) c.abort();
    },
    complete(opId, ok, json) {
      const pending = pendingOps.get(opId);
      if (!pending) return;
      pendingOps.delete(opId);
      if (ok) pending.resolve(json === "" ? undefined : jsonParse(json));
      else pending.reject(new Error(json));
    },
    update(opId, json) {
      const pending = pendingOps.get(opId);
      if (pending && pending.onUpdate) pending.onUpdate(jsonParse(json));
    },
  };
  realm.exts[config.id] = Object.freeze(internal);
});
