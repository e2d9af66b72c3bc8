//! The Node.js built-ins and package surfaces extensions import, exercised
//! from JavaScript through a probe extension's `js` tool (the tool call goes
//! through pi-agent's dispatcher like any other).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};

use pi_agent::{BuiltinTool, CallRequest, Caller, Dispatcher, RawArgs, Registry};
use pi_ext::{ExtensionHost, HostOptions};
use pi_tools::{Content, ToolContext};
use serde_json::{Value, json};

struct Probe {
    dir: tempfile::TempDir,
    d: Dispatcher,
    _loaded: pi_ext::LoadedExtensions,
}

async fn probe() -> Probe {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/node-probe.ts");
    let opts = HostOptions { cwd: dir.path().to_path_buf(), ..Default::default() };
    let loaded = ExtensionHost::load(&[fixture], opts).await.unwrap_or_else(|e| panic!("{e}"));
    let mut reg = Registry::new();
    for t in BuiltinTool::all() {
        reg.register(t);
    }
    for t in &loaded.tools {
        reg.register(t.clone());
    }
    reg.reset_active(&["read".to_string(), "bash".to_string(), "js".to_string()]);
    let mut d = Dispatcher::new(reg);
    d.interceptors = loaded.interceptors.clone();
    Probe { dir, d, _loaded: loaded }
}

impl Probe {
    fn path(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    /// Run `code` (an async function body) and give its JSON value.
    async fn js(&self, code: &str) -> Value {
        let req =
            CallRequest { id: "c".into(), name: "js".into(), args: RawArgs::Json(json!({"code": code})), parent: None };
        let done = self.d.call(req, Caller::Model, &ToolContext::new(self.dir.path())).await;
        let text = match done.result.content.first() {
            Some(Content::Text { text }) => text.clone(),
            other => panic!("no text: {other:?}"),
        };
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"))
    }
}

#[tokio::test]
async fn fs_sync_callback_and_promise_forms() {
    let p = probe().await;
    let d = p.path().to_string_lossy().into_owned();
    let v = p
        .js(&format!(
            r#"const d = {d:?};
            fs.writeFileSync(d + "/a.txt", "héllo");
            fs.appendFileSync(d + "/a.txt", B.from([0x21]));
            fs.mkdirSync(d + "/x/y", {{ recursive: true }});
            const cb = await new Promise((res) => fs.readFile(d + "/a.txt", "utf8", (e, t) => res([e, t])));
            await fsp.writeFile(d + "/x/b.json", JSON.stringify({{ n: 1 }}));
            const entries = fs.readdirSync(d, {{ withFileTypes: true }}).map((e) => [e.name, e.isDirectory()]).sort();
            return {{
              text: fs.readFileSync(d + "/a.txt", "utf8"),
              bytes: Array.from(fs.readFileSync(d + "/a.txt")).length,
              isBuffer: B.isBuffer(fs.readFileSync(d + "/a.txt")),
              cb: [cb[0], cb[1]],
              json: JSON.parse(await fsp.readFile(d + "/x/b.json", "utf8")),
              exists: [fs.existsSync(d + "/a.txt"), fs.existsSync(d + "/nope")],
              stat: [fs.statSync(d + "/a.txt").size, fs.statSync(d + "/x").isDirectory()],
              entries,
              tmp: (await fsp.mkdtemp(d + "/t-")).startsWith(d + "/t-"),
            }};"#
        ))
        .await;
    assert_eq!(v["text"], "héllo!");
    assert_eq!(v["bytes"], 7);
    assert_eq!(v["isBuffer"], true);
    assert_eq!(v["cb"], json!([null, "héllo!"]));
    assert_eq!(v["json"], json!({"n": 1}));
    assert_eq!(v["exists"], json!([true, false]));
    assert_eq!(v["stat"], json!([7, true]));
    assert_eq!(v["entries"], json!([["a.txt", false], ["x", true]]));
    assert_eq!(v["tmp"], true);
}

#[tokio::test]
async fn fs_failures_have_nodes_error_shape() {
    let p = probe().await;
    let d = p.path().to_string_lossy().into_owned();
    let v = p.js(&format!("return fs.readFileSync({:?} + '/missing.txt', 'utf8');", d)).await;
    assert_eq!(
        v["thrown"],
        json!({"name": "Error", "code": "ENOENT", "errno": -2, "syscall": "open", "path": format!("{d}/missing.txt"),
            "message": format!("ENOENT: no such file or directory, open '{d}/missing.txt'")})
    );
    let v = p.js(&format!("await fsp.readFile({:?}); return 1;", d)).await;
    assert_eq!(v["thrown"]["code"], "EISDIR");
    let v = p.js("return await new Promise((res) => fs.stat('/no/such', (e) => res(e.code)));").await;
    assert_eq!(v, "ENOENT");
    let v = p.js("fs.readFileSync(42); return 1;").await;
    assert_eq!(v["thrown"]["code"], "ERR_INVALID_ARG_TYPE");
    let v = p.js(&format!("fs.mkdirSync({d:?}); return 1;")).await;
    assert_eq!(v["thrown"]["code"], "EEXIST");
}

#[tokio::test]
async fn fs_watch_reports_changes_and_a_missing_path_as_node_does() {
    let p = probe().await;
    let d = p.path().to_string_lossy().into_owned();
    let v = p.js(&format!("fs.watch({d:?} + '/missing.txt', () => {{}}); return 1;")).await;
    assert_eq!(
        v["thrown"],
        json!({"name": "Error", "code": "ENOENT", "errno": -2, "syscall": "watch", "path": format!("{d}/missing.txt"),
            "message": format!("ENOENT: no such file or directory, watch '{d}/missing.txt'")})
    );
    let v = p
        .js(&format!(
            r#"const f = {d:?} + "/watched.txt";
            fs.writeFileSync(f, "a");
            const seen = await new Promise((res) => {{
              const w = fs.watch(f, (kind, name) => {{ w.close(); res([kind, name]); }});
              setTimeout(() => fs.writeFileSync(f, "changed"), 50);
            }});
            return seen;"#
        ))
        .await;
    assert_eq!(v, json!(["change", "watched.txt"]));
}

#[tokio::test]
async fn child_processes_sync_and_async() {
    let p = probe().await;
    let v = p
        .js(
            r#"const s = cp.spawnSync("sh", ["-c", "cat; echo e >&2; exit 2"], { input: "in", encoding: "utf8" });
            const ex = cp.execSync("echo hi").toString();
            let failed; try { cp.execSync("exit 3", { stdio: "pipe" }); } catch (e) { failed = [e.status, e.message]; }
            const pexec = await util.promisify(cp.exec)("printf out; printf err >&2");
            const spawned = await new Promise((res) => {
              const c = cp.spawn("sh", ["-c", "read x; echo got $x; exit 5"]);
              let out = "";
              c.stdout.on("data", (d) => (out += d));
              c.on("close", (code, signal) => res({ out, code, signal, pid: typeof c.pid }));
              c.stdin.write("abc\n");
              c.stdin.end();
            });
            const missing = await new Promise((res) => cp.spawn("no-such-program-pi").on("error", (e) => res([e.code, e.message])));
            const killed = await new Promise((res) => {
              const c = cp.spawn("sleep", ["30"]);
              c.on("exit", (code, signal) => res([code, signal]));
              c.kill();
            });
            const execErr = await new Promise((res) => cp.exec("exit 7", (e, so, se) => res([e.code, so])));
            return { s: [s.status, s.stdout, s.stderr], ex, failed, pexec, spawned, missing, killed, execErr };"#,
        )
        .await;
    assert_eq!(v["s"], json!([2, "in", "e\n"]));
    assert_eq!(v["ex"], "hi\n");
    assert_eq!(v["failed"], json!([3, "Command failed: exit 3"]));
    assert_eq!(v["pexec"], json!({"stdout": "out", "stderr": "err"}));
    assert_eq!(v["spawned"], json!({"out": "got abc\n", "code": 5, "signal": null, "pid": "number"}));
    assert_eq!(v["missing"], json!(["ENOENT", "spawn no-such-program-pi ENOENT"]));
    assert_eq!(v["killed"], json!([null, "SIGTERM"]));
    assert_eq!(v["execErr"], json!([7, ""]));
}

#[tokio::test]
async fn os_crypto_buffer_events_util_url_process() {
    let p = probe().await;
    let v = p
        .js(r#"const e = new EventEmitter(); const got = [];
            e.on("x", (a) => got.push(a)); e.once("x", (a) => got.push("once:" + a)); e.emit("x", 1); e.emit("x", 2);
            let unhandled; try { e.emit("error", new Error("boom")); } catch (err) { unhandled = err.message; }
            let badHash; try { crypto.createHash("nope"); } catch (err) { badHash = err.message; }
            return {
              platform: os.platform(), home: os.homedir() === process.env.HOME, eol: os.EOL,
              sha: crypto.createHash("sha256").update("abc").digest("hex"),
              md5: crypto.createHash("md5").update(B.from("")).digest("base64"),
              uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID()),
              v7: /^[0-9a-f]{8}-[0-9a-f]{4}-7/.test(uuidv7()),
              rnd: crypto.randomBytes(8).length,
              b64: B.from("héllo").toString("base64"), hex: B.from("ff00", "hex").toString("hex"),
              back: B.from("aMOpbGxv", "base64").toString(), len: B.byteLength("héllo"),
              concat: B.concat([B.from("a"), B.from("b")]).toString(),
              got, unhandled, badHash,
              fmt: util.format("%s=%d %j", "a", 3, { b: 1 }), insp: util.inspect({ a: [1, "x"] }),
              file: url.fileURLToPath("file:///tmp/a%20b.txt"), href: url.pathToFileURL("/tmp/a b").href,
              u: new URL("https://x.org:8080/p/q?a=1#h").searchParams.get("a"),
              cwd: process.cwd(), argv: Array.isArray(process.argv), plat: process.platform,
              waited: await timersp.setTimeout(1, "w"),
            };"#)
        .await;
    assert_eq!(v["platform"], "linux");
    assert_eq!(v["home"], true);
    assert_eq!(v["sha"], "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_eq!(v["md5"], "1B2M2Y8AsgTpgAmY7PhCfg==");
    assert_eq!((v["uuid"].clone(), v["v7"].clone(), v["rnd"].clone()), (json!(true), json!(true), json!(8)));
    assert_eq!((v["b64"].clone(), v["hex"].clone()), (json!("aMOpbGxv"), json!("ff00")));
    assert_eq!((v["back"].clone(), v["len"].clone(), v["concat"].clone()), (json!("héllo"), json!(6), json!("ab")));
    assert_eq!(v["got"], json!([1, "once:1", 2]));
    assert_eq!(v["unhandled"], "boom");
    assert_eq!(v["badHash"], "Digest method not supported");
    assert_eq!(v["fmt"], r#"a=3 {"b":1}"#);
    assert_eq!(v["insp"], "{ a: [ 1, 'x' ] }");
    assert_eq!(v["file"], "/tmp/a b.txt");
    assert_eq!(v["href"], "file:///tmp/a%20b");
    assert_eq!(v["u"], "1");
    assert_eq!(v["cwd"], json!(p.path().to_string_lossy()));
    assert_eq!((v["argv"].clone(), v["plat"].clone(), v["waited"].clone()), (json!(true), json!("linux"), json!("w")));
}

#[tokio::test]
async fn tui_components_render_at_a_width_and_take_keys() {
    let p = probe().await;
    let v = p
        .js(
            r#"const { Text, Box, Container, Spacer, SelectList, Input, Editor, matchesKey, parseKey, isKeyRelease,
                     truncateToWidth, visibleWidth, fuzzyFilter, wrapTextWithAnsi, CURSOR_MARKER, Key } = tui;
            const box = new Box(1, 0); box.addChild(new Text("hello world wide", 0, 0));
            const c = new Container(); c.addChild(new Spacer(1)); c.addChild(box);
            const list = new SelectList([{ value: "a", label: "alpha" }, { value: "b", label: "beta" }], 5, {});
            let chosen; list.onSelect = (i) => (chosen = i.value);
            list.handleInput("\x1b[B"); list.handleInput("\r");
            const input = new Input(); let submitted; input.onSubmit = (v) => (submitted = v);
            for (const k of ["h", "i", "\x7f", "o", "\r"]) input.handleInput(k);
            const ed = new Editor(undefined, {}); ed.focused = true;
            for (const k of ["a", "\x1b[13;2u", "b"]) ed.handleInput(k);
            return {
              lines: c.render(10),
              widths: c.render(10).map(visibleWidth),
              chosen, submitted, editor: ed.getText(), cursor: ed.render(8).some((l) => l.includes(CURSOR_MARKER)),
              keys: [matchesKey("\x03", "ctrl+c"), matchesKey("\x1b[A", Key.up), matchesKey("\x1b[1;5A", Key.ctrl("up")),
                     matchesKey("\x1b", "esc"), matchesKey("a", "b"), parseKey("\x1b[Z"), parseKey("\x1bx"), parseKey("A")],
              release: [isKeyRelease("\x1b[97;1:3u"), isKeyRelease("a")],
              trunc: [truncateToWidth("abcdef", 4), truncateToWidth("ab", 4, "...", true), truncateToWidth("日本語", 4, "")],
              wide: visibleWidth("\x1b[31m日本\x1b[0m"),
              fuzzy: fuzzyFilter(["apple", "banana", "grape"], "ap", (s) => s),
              wrap: wrapTextWithAnsi("one two three", 7),
            };"#,
        )
        .await;
    assert_eq!(v["lines"], json!(["", " hello    ", " world    ", " wide     "]));
    assert_eq!(v["widths"], json!([0, 10, 10, 10]));
    assert_eq!((v["chosen"].clone(), v["submitted"].clone()), (json!("b"), json!("ho")));
    assert_eq!((v["editor"].clone(), v["cursor"].clone()), (json!("a\nb"), json!(true)));
    assert_eq!(v["keys"], json!([true, true, true, true, false, "shift+tab", "alt+x", "A"]));
    assert_eq!(v["release"], json!([true, false]));
    // As pi-tui: styles reset after the cut text and after the ellipsis.
    assert_eq!(v["trunc"], json!(["a\u{1b}[0m...\u{1b}[0m", "ab  ", "日本\u{1b}[0m"]));
    assert_eq!(v["wide"], 4);
    assert_eq!(v["fuzzy"], json!(["apple", "grape"]));
    assert_eq!(v["wrap"], json!(["one two", "three"]));
}

#[tokio::test]
async fn coding_agent_exports_run_pis_own_tools() {
    let p = probe().await;
    std::fs::write(p.path().join("f.txt"), "one\ntwo\n").unwrap();
    let v = p
        .js(
            r#"const bash = agent.createBashTool(process.cwd(), { spawnHook: (s) => ({ ...s, command: "echo hooked; " + s.command }) });
            const r = await bash.execute("id", { command: "cat f.txt" });
            let failed; try { await agent.createBashTool(process.cwd()).execute("id", { command: "exit 3" }); } catch (e) { failed = e.message; }
            const def = agent.createReadToolDefinition(process.cwd());
            const read = await def.execute("id", { path: "f.txt" });
            const fm = agent.parseFrontmatter("---\nname: x\nn: 2\n---\nbody");
            return { name: bash.name, params: Object.keys(bash.parameters.properties), out: r.content[0].text, failed,
                     read: read.content[0].text, snippet: typeof def.promptSnippet, fm, version: typeof agent.VERSION,
                     dir: agent.getAgentDir().endsWith("/.pi/agent") || !!process.env.PI_CODING_AGENT_DIR };"#,
        )
        .await;
    assert_eq!(v["name"], "bash");
    assert_eq!(v["params"], json!(["command", "timeout"]));
    assert_eq!(v["out"], "hooked\none\ntwo\n");
    assert_eq!(v["failed"], "(no output)\n\nCommand exited with code 3");
    assert_eq!(v["read"], "one\ntwo\n");
    assert_eq!(v["snippet"], "string");
    assert_eq!(v["fm"], json!({"frontmatter": {"name": "x", "n": 2}, "body": "body"}));
    assert_eq!((v["version"].clone(), v["dir"].clone()), (json!("string"), json!(true)));
}

#[tokio::test]
async fn every_name_the_reference_exports_is_importable_and_stand_ins_name_themselves() {
    let p = probe().await;
    let v = p
        .js(r#"
            const ca = await import("@earendil-works/pi-coding-agent");
            const ai = await import("@earendil-works/pi-ai");
            const tb = await import("typebox");
            const value = await import("typebox/value");
            const core = await import("@earendil-works/pi-agent-core");
            const models = await import("@earendil-works/pi-ai/models");
            let called; try { ca.runRpcMode() } catch (e) { called = e.message }
            let built; try { new ca.RpcClient() } catch (e) { built = e.message }
            // A package may subclass one at load time.
            class Mine extends ca.ToolExecutionComponent {}
            return {
                counts: [Object.keys(ca).length, Object.keys(ai).length, Object.keys(tb).length, Object.keys(value).length],
                version: ca.CURRENT_SESSION_VERSION, env: ai.ANTHROPIC_API_KEY_ENV,
                own: typeof ca.defineTool, type: typeof tb.Type.Object,
                called, built, mine: typeof Mine, core: typeof core.Agent, models: typeof models.calculateCost,
            };
        "#)
        .await;
    // As many names as the reference's packages export to extensions (pi 1.6.0).
    let counts: Vec<u64> = v["counts"].as_array().unwrap().iter().map(|n| n.as_u64().unwrap()).collect();
    assert!(counts[0] >= 157 && counts[1] >= 148 && counts[2] >= 287 && counts[3] >= 35, "{v}");
    assert_eq!((v["version"].as_u64(), v["env"].as_str()), (Some(3), Some("ANTHROPIC_API_KEY")));
    assert_eq!((v["own"].as_str(), v["type"].as_str()), (Some("function"), Some("function")), "pi's own win");
    let stand_in = "from \"@earendil-works/pi-coding-agent\" is not available in pi's extension engine";
    assert_eq!(
        v["called"].as_str().unwrap(),
        format!("runRpcMode {stand_in} (see docs/extensions.md, \"Differences\")")
    );
    assert!(v["built"].as_str().unwrap().starts_with(&format!("RpcClient {stand_in}")), "{v}");
    assert_eq!(
        (v["mine"].as_str(), v["core"].as_str(), v["models"].as_str()),
        (Some("function"), Some("function"), Some("function"))
    );
}

#[tokio::test]
async fn fs_descriptors_read_write_and_fail_as_node() {
    let p = probe().await;
    let d = p.path().to_string_lossy().into_owned();
    let v = p
        .js(&format!(
            r#"
            const f = "{d}/fd.txt";
            const w = fs.openSync(f, "w");
            const n = fs.writeSync(w, "hello world");
            fs.writeSync(w, "W", 6);
            fs.closeSync(w);
            const r = fs.openSync(f, "r");
            const buf = B.alloc(5);
            const first = fs.readSync(r, buf, 0, 5, null);
            const a = buf.toString();
            fs.readSync(r, buf, 0, 5, null);
            const b = buf.toString();
            const size = fs.fstatSync(r).size;
            fs.closeSync(r);
            const app = fs.openSync(f, "a");
            fs.writeSync(app, "!");
            fs.closeSync(app);
            let badf, missing, exists;
            try {{ fs.readSync(r, buf) }} catch (e) {{ badf = e.code }}
            try {{ fs.openSync("{d}/none", "r") }} catch (e) {{ missing = e.code }}
            try {{ fs.openSync(f, "wx") }} catch (e) {{ exists = e.code }}
            const h = await fsp.open(f, "r");
            const {{ bytesRead }} = await h.read(B.alloc(3), 0, 3, 0);
            await h.close();
            return {{ n, first, a, b, size, text: fs.readFileSync(f, "utf8"), badf, missing, exists, bytesRead }};
        "#
        ))
        .await;
    assert_eq!(
        v,
        json!({"n": 11, "first": 5, "a": "hello", "b": " Worl", "size": 11, "text": "hello World!",
            "badf": "EBADF", "missing": "ENOENT", "exists": "EEXIST", "bytesRead": 3})
    );
}

#[tokio::test]
async fn async_local_storage_holds_its_store_through_the_call() {
    let p = probe().await;
    let v = p
        .js(r#"
            const { AsyncLocalStorage } = await import("node:async_hooks");
            const als = new AsyncLocalStorage();
            const inner = () => als.getStore();
            const seen = als.run({ id: 7 }, () => inner());
            const nested = als.run(1, () => [als.getStore(), als.run(2, () => als.getStore()), als.getStore()]);
            return { seen, nested, after: als.getStore() ?? null };
        "#)
        .await;
    assert_eq!(v, json!({"seen": {"id": 7}, "nested": [1, 2, 1], "after": null}));
}

#[tokio::test]
async fn ui_methods_without_a_terminal_answer_as_the_references_rpc_mode() {
    let p = probe().await;
    let v = p
        .js(r#"
            const off = ctx.ui.onTerminalInput(() => ({ consume: true }));
            return {
                off: typeof off, offResult: off() ?? null, editor: ctx.ui.getEditorComponent() ?? null,
                expanded: ctx.ui.getToolsExpanded(), set: ctx.ui.setToolsExpanded(true) ?? null,
            };
        "#)
        .await;
    assert_eq!(v, json!({"off": "function", "offResult": null, "editor": null, "expanded": false, "set": null}));
}

#[tokio::test]
async fn intl_web_classes_and_typebox_values_for_packages_that_load_them() {
    let p = probe().await;
    let v = p
        .js(r#"
            const seg = new Intl.Segmenter("en", { granularity: "grapheme" });
            const graphemes = [...seg.segment("e\u0301a👍🏽🇫🇷👨‍👩‍👧")].map((s) => s.segment);
            const words = [...new Intl.Segmenter("en", { granularity: "word" }).segment("Hi, you!")].filter((s) => s.isWordLike).map((s) => s.segment);
            const number = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 }).format(1234567.891);
            const collator = ["b10", "b9", "a"].sort(new Intl.Collator(undefined, { numeric: true }).compare);
            const tz = typeof Intl.DateTimeFormat().resolvedOptions().timeZone;
            const target = new EventTarget();
            let heard = 0;
            target.addEventListener("x", () => heard++, { once: true });
            target.dispatchEvent(new Event("x"));
            target.dispatchEvent(new Event("x"));
            const res = new Response(JSON.stringify({ a: 1 }), { headers: { "Content-Type": "application/json" } });
            const body = await res.json();
            const h = res.headers.get("content-type");
            const blob = await new Blob(["ab", new Uint8Array([99])]).text();
            class Extended extends ReadableStream {}
            const chunks = [];
            for await (const c of new Extended({ start(c) { c.enqueue(1); c.enqueue(2); c.close(); } })) chunks.push(c);
            let fetched; try { await fetch("http://127.0.0.1:9/") } catch (e) { fetched = e.message }
            const { Value } = await import("typebox/value");
            const { Compile } = await import("typebox/compile");
            const { Type } = await import("typebox");
            const schema = Type.Object({ n: Type.Number(), s: Type.Optional(Type.String({ default: "d" })) });
            const errors = Value.Errors(schema, { n: "x" }).map((e) => [e.path, e.message]);
            const parsed = Value.Parse(schema, { n: "2", extra: true });
            const checks = [Value.Check(schema, { n: 1 }), Compile(schema).Check({}), Compile(schema).Check({ n: 3 })];
            const util = await import("node:util");
            const debug = util.debuglog("pitest");
            const path = await import("node:path");
            const { StringEnum } = await import("@earendil-works/pi-ai/compat");
            return { graphemes, words, number, collator, tz, heard, body, h, blob, chunks, fetched: fetched.startsWith("fetch is not available"),
                     errors, parsed, checks, debug: [typeof debug, debug.enabled, debug("x") ?? null], win32: path.win32.sep,
                     stringEnum: StringEnum(["a", "b"]).enum };
        "#)
        .await;
    assert_eq!(v["graphemes"], json!(["e\u{301}", "a", "👍🏽", "🇫🇷", "👨‍👩‍👧"]), "{v}");
    assert_eq!(v["words"], json!(["Hi", "you"]));
    assert_eq!((v["number"].as_str(), v["tz"].as_str()), (Some("1,234,567.9"), Some("string")));
    assert_eq!(v["collator"], json!(["a", "b9", "b10"]));
    assert_eq!(
        (v["heard"].as_u64(), &v["body"], v["h"].as_str()),
        (Some(1), &json!({"a": 1}), Some("application/json"))
    );
    assert_eq!((v["blob"].as_str(), &v["chunks"], v["fetched"].as_bool()), (Some("abc"), &json!([1, 2]), Some(true)));
    assert_eq!(v["errors"], json!([["/n", "expected number, got string"]]));
    assert_eq!(v["parsed"], json!({"n": 2, "extra": true, "s": "d"}));
    assert_eq!(v["checks"], json!([true, false, true]));
    assert_eq!(v["debug"], json!(["function", false, null]));
    assert_eq!((v["win32"].as_str(), &v["stringEnum"]), (Some("\\"), &json!(["a", "b"])));
}
