// The session as an extension sees and changes it: ctx.sessionManager,
// ctx.modelRegistry, ctx.model, the pi methods that change the session
// (appendEntry, sendMessage, sendUserMessage, setLabel, session names,
// getCommands) and what a command handler's ctx adds (ExtensionCommandContext).
// Evaluated before the glue, which calls the returned function with its parts.
(function () {
  "use strict";
  return function sessionParts(parts) {
    const { sync, op, safeString, config } = parts;

    // A session call: the host answers {value} (absent: undefined) or {error} (thrown).
    function call(kind, payload) {
      const r = sync("session", Object.assign({ kind }, payload || {}));
      if (r && r.error !== undefined) throw new Error(r.error);
      return r ? r.value : undefined;
    }
    const text = (v) => (v === undefined || v === null ? undefined : safeString(v));

    const reads = {
      getEntries: () => call("getEntries") || [],
      getBranch: (fromId) => call("getBranch", { id: text(fromId) }) || [],
      getTree: () => {
        // The host sends the tree as JSON text (it may be as deep as the session is long).
        const t = call("getTree");
        return typeof t === "string" ? JSON.parse(t) : t || [];
      },
      getLeafId: () => {
        const id = call("getLeafId");
        return id === undefined ? null : id;
      },
      getLeafEntry: () => {
        const id = call("getLeafId");
        return id ? call("getEntry", { id }) : undefined;
      },
      getEntry: (id) => call("getEntry", { id: safeString(id) }),
      getLabel: (id) => call("getLabel", { id: safeString(id) }),
      getHeader: () => {
        const h = call("getHeader");
        return h === undefined ? null : h;
      },
      getSessionName: () => call("getSessionName"),
      getSessionFile: () => call("getSessionFile"),
      getSessionId: () => call("getSessionId") || "",
      getSessionDir: () => call("getSessionDir") || "",
      getCwd: () => config.cwd,
      // The active branch's entries (pi applies compaction when it builds the
      // model's context; these are the branch as recorded).
      buildContextEntries: () => call("getBranch", {}) || [],
      buildSessionContext: () => {
        const branch = call("getBranch", {}) || [];
        const messages = branch.filter((e) => e.type === "message").map((e) => e.message);
        return { messages, thinkingLevel: call("thinkingLevel") || "off", model: call("model") || null };
      },
    };
    const sessionManager = Object.freeze(Object.assign({}, reads));
    // What a new session's `setup` may change.
    const writableSessionManager = Object.freeze(
      Object.assign({}, reads, {
        appendMessage: (message) => call("appendMessage", { message }),
        appendCustomEntry: (customType, data) => call("appendEntry", { customType: safeString(customType), data }),
      }),
    );

    // A model call made from a handler's call (callId): the final assistant message.
    function complete(callId, model, context, options) {
      const o = options && typeof options === "object" ? options : {};
      const opts = {
        maxTokens: typeof o.maxTokens === "number" ? o.maxTokens : undefined,
        reasoning: typeof o.reasoning === "string" ? o.reasoning : typeof o.reasoningEffort === "string" ? o.reasoningEffort : undefined,
        sessionId: typeof o.sessionId === "string" ? o.sessionId : undefined,
        headers: o.headers && typeof o.headers === "object" ? o.headers : undefined,
      };
      return op(callId, "command", { method: "complete", model, context: context || {}, options: opts });
    }
    // `streamSimple`: the same request as a stream of its final events.
    function streamSimple(callId, model, context, options) {
      const result = complete(callId, model, context, options);
      const stream = {
        result: () => result,
        async *[Symbol.asyncIterator]() {
          const message = await result;
          yield { type: "start", partial: message };
          if (message.stopReason === "error" || message.stopReason === "aborted") yield { type: "error", reason: message.stopReason, error: message };
          else yield { type: "done", reason: message.stopReason, message };
        },
      };
      return stream;
    }
    const registryBase = {
      getAll: () => call("getAll") || [],
      getAvailable: () => call("getAvailable") || [],
      find: (provider, id) => call("find", { provider: safeString(provider), id: safeString(id) }),
      hasConfiguredAuth: (model) =>
        !!model && (call("getAvailable") || []).some((m) => m.provider === model.provider && m.id === model.id),
      getApiKey: () => Promise.resolve(undefined),
      getApiKeyForProvider: () => Promise.resolve(undefined),
      findOfType: () => undefined,
      getModelsOfType: () => [],
      getAvailableOfType: () => [],
    };
    // The registry of a ctx: its model calls belong to the ctx's call.
    const registryFor = (callId) =>
      Object.freeze(
        Object.assign({}, registryBase, {
          complete: (model, context, options) => complete(callId, model, context, options),
          streamSimple: (model, context, options) => streamSimple(callId, model, context, options),
        }),
      );

    // ctx.compact: asks for a compaction; its callbacks hear the next one's
    // outcome (session_compact) through the glue's `onCompacted`.
    function compact(options) {
      const o = options && typeof options === "object" ? options : {};
      const instructions = typeof o.customInstructions === "string" ? o.customInstructions : undefined;
      if (typeof o.onComplete === "function" || typeof o.onError === "function") parts.onCompacted(o);
      call("compact", { customInstructions: instructions });
    }

    // The pi methods that change the session.
    const pi = {
      appendEntry(customType, data) {
        call("appendEntry", { customType: safeString(customType), data });
      },
      sendMessage(message, options) {
        call("sendMessage", { message, options: options || {} });
      },
      sendUserMessage(content, options) {
        call("sendUserMessage", { content, options: options || {}, rejects: false });
      },
      setLabel(entryId, label) {
        call("setLabel", { id: safeString(entryId), label: text(label) });
      },
      setSessionName(name) {
        call("setSessionName", { name: safeString(name) });
      },
      getSessionName: () => call("getSessionName"),
      getThinkingLevel: () => call("thinkingLevel") || "off",
      setThinkingLevel(level) {
        call("setThinkingLevel", { level: safeString(level) });
      },
      setModel(model) {
        if (!model || typeof model !== "object") return Promise.resolve(false);
        return Promise.resolve(call("setModel", { provider: safeString(model.provider), id: safeString(model.id) }) === true);
      },
      getCommands: () => call("getCommands") || [],
    };

    // The members of every ctx that read the session live.
    function decorate(ctx, callId) {
      Object.defineProperty(ctx, "model", { get: () => call("model"), enumerable: true, configurable: true });
      Object.defineProperty(ctx, "thinkingLevel", {
        get: () => call("thinkingLevel") || "off",
        enumerable: true,
        configurable: true,
      });
      ctx.sessionManager = sessionManager;
      ctx.modelRegistry = registryFor(callId);
      Object.defineProperty(ctx, "scopedModels", {
        get: () => (call("scopedModels") || []).map((s) => ({ model: s.model, thinkingLevel: s.thinkingLevel === null ? undefined : s.thinkingLevel })),
        enumerable: true,
        configurable: true,
      });
      ctx.hasPendingMessages = () => call("hasPendingMessages") === true;
      ctx.isIdle = () => call("isIdle") === true;
      ctx.getContextUsage = () => call("getContextUsage");
      ctx.getSystemPrompt = () => call("getSystemPrompt") || "";
      ctx.compact = (options) => compact(options);
      ctx.abort = () => {
        call("abort");
      };
      ctx.shutdown = () => {
        call("shutdown");
      };
      return ctx;
    }

    // What a command handler's ctx adds: session control (ExtensionCommandContext).
    function commandContext(callId, baseCtx) {
      const run = (method, payload) => op(callId, "command", Object.assign({ method }, payload || {}));
      const fresh = () => {
        const ctx = commandContext(callId, baseCtx);
        ctx.sendMessage = (message, options) => Promise.resolve(pi.sendMessage(message, options));
        // Awaited here: a refusal rejects the promise (pi.sendUserMessage reports it instead).
        ctx.sendUserMessage = (content, options) =>
          new Promise((resolve) => resolve(call("sendUserMessage", { content, options: options || {}, rejects: true })));
        return ctx;
      };
      async function replaced(result, options) {
        const r = result && typeof result === "object" ? result : { cancelled: true };
        if (!r.cancelled && options && typeof options.withSession === "function") await options.withSession(fresh());
        return r;
      }
      const ctx = baseCtx();
      return Object.assign(ctx, {
        waitForIdle: () => run("waitForIdle").then(() => undefined),
        async newSession(options) {
          const o = options || {};
          const r = await run("newSession", { parentSession: typeof o.parentSession === "string" ? o.parentSession : undefined });
          if (r && !r.cancelled && typeof o.setup === "function") await o.setup(writableSessionManager);
          return replaced(r, o);
        },
        fork: (entryId, options) =>
          run("fork", { entryId: safeString(entryId), position: options && options.position }).then((r) => replaced(r, options)),
        switchSession: (sessionPath, options) =>
          run("switchSession", { sessionPath: safeString(sessionPath) }).then((r) => replaced(r, options)),
        navigateTree: (targetId, _options) => run("navigateTree", { targetId: safeString(targetId) }),
        reload: () => run("reload").then(() => undefined),
        getSystemPromptOptions: () => ({ cwd: config.cwd }),
      });
    }

    return { pi, decorate, commandContext };
  };
})();
