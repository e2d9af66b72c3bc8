// Drive a `pi --mode rpc` with the reference's own RpcClient (the class
// @earendil-works/pi-coding-agent exports) through every command an
// integrator uses, and print one JSON document: for each step, whether it
// succeeded, the SHAPE of what came back (keys and value types; ids, times
// and paths never appear) and a few values that must match, plus the events
// the step saw (their order and shapes).
//
// Environment:
//   RPC_CLIENT_JS  the package's dist/modes/rpc/rpc-client.js
//   RPC_CLI_PATH   the cliPath the client runs with `node` (the reference's
//                  cli.js, or spawn-pi.mjs, which runs PI_BIN)
//   RPC_CWD        the working folder
//   RPC_SCRATCH    a folder for the export
// HOME and TMPDIR come from the caller. The model is mock/mock-1 (models.json
// in HOME; mock-2 beside it) answering: a `read` call, "done", a stalled
// stream, summaries; settings keep 1 token on compaction, so `compact` works.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const { RpcClient } = await import(pathToFileURL(process.env.RPC_CLIENT_JS).href);
const WAIT_MS = 20000;

/** The shape of a JSON value: objects keep their keys (sorted), arrays the distinct shapes of their items. */
function shape(v) {
  if (v === null) return "null";
  if (v === undefined) return "undefined";
  if (Array.isArray(v)) {
    const seen = new Map();
    for (const x of v) {
      const s = shape(x);
      seen.set(JSON.stringify(s), s);
    }
    return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, s]) => s);
  }
  if (typeof v === "object") {
    const out = {};
    for (const k of Object.keys(v).sort()) out[k] = shape(v[k]);
    return out;
  }
  return typeof v;
}

/** An event's name: its type, and the kind of streaming update it carries. */
function eventKey(e) {
  const sub = e.assistantMessageEvent?.type;
  return sub ? `${e.type}:${sub}` : e.type;
}

const client = new RpcClient({
  cliPath: process.env.RPC_CLI_PATH,
  cwd: process.env.RPC_CWD,
  model: "mock/mock-1",
  args: ["--offline"],
});

// Every raw response, so void methods (set_*) show their success too.
let responses = [];
const send = client.send.bind(client);
client.send = async (command) => {
  const r = await send(command);
  responses.push(r);
  return r;
};

let events = [];
client.onEvent((e) => events.push(e));

/** Resolve with the first event (seen already in this step or later) that matches, or reject after WAIT_MS. */
function waitFor(pred, what) {
  return new Promise((resolve, reject) => {
    const found = events.find(pred);
    if (found) return resolve(found);
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no ${what} within ${WAIT_MS} ms`));
    }, WAIT_MS);
    const off = client.onEvent((e) => {
      if (pred(e)) {
        clearTimeout(timer);
        off();
        resolve(e);
      }
    });
  });
}
const settled = () => waitFor((e) => e.type === "agent_settled", "agent_settled");

const steps = [];
/** Run one step: `fn` returns the values to record. */
async function step(name, fn) {
  responses = [];
  events = [];
  const rec = { step: name };
  try {
    const values = await fn();
    if (values !== undefined) rec.values = values;
  } catch (e) {
    rec.thrown = String(e?.message ?? e).split("\n")[0].replace(/Stderr:.*/, "").trim();
  }
  rec.responses = responses.map((r) => {
    const o = { command: r.command, success: r.success };
    if (r.success) o.data = shape(r.data);
    else o.error = r.error;
    return o;
  });
  const order = [];
  const shapes = {};
  for (const e of events) {
    const k = eventKey(e);
    if (order[order.length - 1] !== k) order.push(k);
    // A streaming update's `usage` is the partial message's, as far as the
    // provider has read it when the event is printed (the final usage chunk
    // may or may not be in yet, on either side): only its presence counts.
    const s = shape(e.type === "message_update" && e.usage ? { ...e, usage: "present" } : e);
    const list = (shapes[k] ??= []);
    if (!list.some((x) => JSON.stringify(x) === JSON.stringify(s))) list.push(s);
  }
  rec.events = order;
  rec.eventShapes = shapes;
  steps.push(rec);
  return rec;
}

const pick = (o, keys) => Object.fromEntries(keys.map((k) => [k, o?.[k]]));
const STATE_KEYS = ["thinkingLevel", "isStreaming", "isCompacting", "steeringMode", "followUpMode", "sessionName",
  "autoCompactionEnabled", "messageCount", "pendingMessageCount"];

let firstSession;
try {
  await client.start();

  await step("prompt with a tool call", async () => {
    const done = settled();
    const disposition = await client.prompt("Read hello.txt");
    await done;
    return { disposition };
  });
  await step("get_state", async () => {
    const s = await client.getState();
    firstSession = s.sessionFile;
    return pick(s, STATE_KEYS);
  });
  await step("get_messages", async () => {
    const m = await client.getMessages();
    return { roles: m.map((x) => x.role) };
  });
  await step("get_last_assistant_text", async () => ({ text: await client.getLastAssistantText() }));
  await step("get_available_models", async () => ({ ids: (await client.getAvailableModels()).map((m) => m.id) }));
  await step("set_model", async () => ({ id: (await client.setModel("mock", "mock-1")).id }));
  await step("get_available_thinking_levels", async () => ({ levels: await client.getAvailableThinkingLevels() }));
  await step("set_thinking_level", async () => {
    await client.setThinkingLevel("high");
    return { thinkingLevel: (await client.getState()).thinkingLevel };
  });
  await step("cycle_thinking_level", async () => ({ result: await client.cycleThinkingLevel() }));
  await step("cycle_model", async () => {
    const r = await client.cycleModel();
    return { model: r?.model?.id ?? null, thinkingLevel: r?.thinkingLevel ?? null, isScoped: r?.isScoped ?? null };
  });
  await step("set_steering_mode", async () => {
    await client.setSteeringMode("all");
    return { steeringMode: (await client.getState()).steeringMode };
  });
  await step("set_follow_up_mode", async () => {
    await client.setFollowUpMode("all");
    return { followUpMode: (await client.getState()).followUpMode };
  });
  await step("set_auto_compaction", async () => {
    await client.setAutoCompaction(false);
    const off = (await client.getState()).autoCompactionEnabled;
    await client.setAutoCompaction(true);
    return { off, on: (await client.getState()).autoCompactionEnabled };
  });
  await step("set_auto_retry", async () => {
    await client.setAutoRetry(false);
    await client.setAutoRetry(true);
  });
  await step("abort_retry", async () => {
    await client.abortRetry();
  });
  await step("set_session_name", async () => {
    await client.setSessionName("rpc client run");
    return { sessionName: (await client.getState()).sessionName };
  });
  await step("bash with abort_bash", async () => {
    let finished = false;
    const running = client.bash("echo started; sleep 20; echo late").finally(() => {
      finished = true;
    });
    await waitFor((e) => e.type === "bash_execution_update", "bash_execution_update");
    const state = await client.getState();
    const answeredWhileRunning = !finished;
    await client.abortBash();
    const result = await running;
    return {
      answeredWhileRunning,
      isStreaming: state.isStreaming,
      cancelled: result.cancelled,
      exitCode: result.exitCode ?? null,
      output: result.output,
    };
  });
  await step("steer and follow_up while streaming", async () => {
    const disposition = await client.prompt("Wait for me");
    await waitFor((e) => e.assistantMessageEvent?.type === "text_delta", "a text_delta");
    const steer = await client.steer("steer this");
    const followUp = await client.followUp("then this");
    await waitFor((e) => e.type === "queue_update" && e.followUp?.length === 1, "queue_update");
    const state = await client.getState();
    const cleared = await client.clearQueue();
    return { disposition, steer, followUp, isStreaming: state.isStreaming, pending: state.pendingMessageCount, cleared };
  });
  await step("abort", async () => {
    const done = settled();
    await client.abort();
    await done;
    const m = await client.getMessages();
    const last = m[m.length - 1];
    return { lastRole: last?.role, stopReason: last?.stopReason, isStreaming: (await client.getState()).isStreaming };
  });
  await step("compact", async () => {
    const r = await client.compact();
    const s = await client.getState();
    return { summarised: typeof r?.summary === "string", messageCount: s.messageCount };
  });
  await step("get_commands", async () => ({ names: (await client.getCommands()).map((c) => c.name) }));
  let forkable;
  await step("get_fork_messages", async () => {
    const m = await client.getForkMessages();
    forkable = m[0]?.entryId;
    return { texts: m.map((x) => x.text) };
  });
  await step("get_entries", async () => {
    const all = await client.getEntries();
    const since = await client.getEntries(all.entries[0]?.id);
    return { types: all.entries.map((e) => e.type), sinceCount: since.entries.length };
  });
  await step("get_tree", async () => ({ roots: (await client.getTree()).tree.length }));
  await step("get_session_stats", async () => {
    const s = await client.getSessionStats();
    return { userMessages: s.userMessages, toolCalls: s.toolCalls, sameFile: s.sessionFile === firstSession };
  });
  await step("export_html", async () => {
    const out = join(process.env.RPC_SCRATCH, "session.html");
    const r = await client.exportHtml(out);
    return { atRequestedPath: r.path === out };
  });
  await step("clone", async () => {
    const r = await client.clone();
    return { ...r, messageCount: (await client.getState()).messageCount };
  });
  await step("fork", async () => {
    const r = await client.fork(forkable);
    const s = await client.getState();
    return { ...r, newFile: s.sessionFile !== firstSession, messageCount: s.messageCount };
  });
  await step("switch_session", async () => {
    const r = await client.switchSession(firstSession);
    const s = await client.getState();
    return { ...r, back: s.sessionFile === firstSession, sessionName: s.sessionName };
  });
  await step("new_session", async () => {
    const r = await client.newSession();
    const s = await client.getState();
    return { ...r, messageCount: s.messageCount, newFile: s.sessionFile !== firstSession };
  });
} catch (e) {
  steps.push({ step: "start", thrown: String(e?.message ?? e) });
} finally {
  await client.stop();
}
process.stdout.write(`${JSON.stringify({ steps }, null, 1)}\n`);
