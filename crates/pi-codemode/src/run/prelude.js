// The script environment of codemode, evaluated before the script in a fresh
// QuickJS context. It evaluates to a factory taking the host functions and
// the JSON the host prepared:
//
//   (host, toolsJson, globalsJson, storeJson) => { settle, run, stalled }
//
// host.call(id, name, hasArgs, argsJson) and host.global(id, name, hasArgs,
// argsJson) start a tool call or a global's call; host.output(kind, data,
// mimeType) adds an output item ("text", "console", "image");
// host.done(ok, hasPayload, payload, writesJson) ends the script (payload:
// the returned value's JSON, or the error's JSON). Absent strings are "".
// The host answers calls with settle(id, ok, payload, propertiesJson).
//
// The host functions stay in this closure: the script only sees what is
// installed on the global object below. harden.js has frozen the built-ins
// before this runs, so a script cannot change what this code relies on (a
// patched JSON.stringify or prototype toJSON would otherwise corrupt its
// reports).
(function (host, toolsJson, globalsJson, storeJson) {
	"use strict";

	// The texts (crate::text), and `fill` for their `{placeholders}`.
	const texts = __TEXTS__;
	const fill = (template, values) => {
		let out = template;
		for (const key of Object.keys(values)) out = out.split("{" + key + "}").join(String(values[key]));
		return out;
	};

	// ---- What this code relies on -------------------------------------------
	const stringify = JSON.stringify;
	const parse = JSON.parse;
	const then = Promise.prototype.then;
	const BaseError = Error;
	const BadType = TypeError;
	const BadRange = RangeError;
	const wellFormed = String.prototype.toWellFormed;
	const PRELUDE_FILE = texts.runtimeFile;
	const STORE_VALUE_LIMIT = __STORE_VALUE_LIMIT__;
	const STORE_TOTAL_LIMIT = __STORE_TOTAL_LIMIT__;
	const OUTPUT_CHARS_LIMIT = __OUTPUT_CHARS_LIMIT__;
	const OUTPUT_ITEMS_LIMIT = __OUTPUT_ITEMS_LIMIT__;

	// Lone surrogates cannot cross to the host; they become U+FFFD.
	const clean = (s) => (typeof wellFormed === "function" ? wellFormed.call(s) : s);
	const waiting = new Map();
	let lastId = 0;
	let ended = false;
	// exit() throws this to unwind the script once success is reported.
	const EXIT_SIGNAL = Object.freeze({});

	function finish(ok, payload, writes) {
		if (ended) return;
		ended = true;
		host.done(ok, payload !== undefined, payload === undefined ? "" : clean(payload), writes === undefined ? "" : writes);
	}

	const toJson = (value) => (value === undefined ? undefined : stringify(value));

	// "Name: message" then the stack's frames (QuickJS lists frames only),
	// without this file's frames.
	function errorText(error) {
		const head = error.message ? error.name + ": " + error.message : String(error.name);
		const lines = [head];
		if (typeof error.stack === "string") {
			for (const line of error.stack.split("\n")) {
				if (line.trim() !== "" && !line.includes(PRELUDE_FILE)) lines.push(line);
			}
		}
		return lines.join("\n");
	}

	// A console argument: strings as they are, errors with their stack, numbers
	// with String (JSON has no NaN), anything else as JSON when it can be.
	function show(value) {
		if (typeof value === "string") return value;
		if (value instanceof BaseError) return errorText(value);
		if (typeof value === "number") return String(value);
		try {
			const json = stringify(value);
			return json === undefined ? String(value) : json;
		} catch {
			return String(value);
		}
	}

	// What the host is told of a failure; the name and message a script set
	// may be anything, so they are coerced.
	function errorJson(error) {
		try {
			if (error instanceof BaseError) {
				return stringify({ name: String(error.name), message: String(error.message), stack: errorText(error) });
			}
			return stringify({ message: String(show(error)) });
		} catch {
			return stringify({ message: texts.undescribable });
		}
	}

	function callerOf(send, name, spread) {
		return (...args) =>
			new Promise((resolve, reject) => {
				let json;
				try {
					json = toJson(spread ? args : args[0]);
				} catch (error) {
					reject(error);
					return;
				}
				lastId += 1;
				const id = lastId;
				waiting.set(id, { resolve, reject });
				send(id, name, json !== undefined, json === undefined ? "" : clean(json));
			});
	}

	// ---- tools and ALL_TOOLS --------------------------------------------------
	const tools = Object.create(null);
	const listing = [];
	for (const entry of parse(toolsJson)) {
		const call = callerOf(host.call, entry.name, false);
		// When two names map to one identifier the first tool keeps it.
		if (!(entry.jsName in tools)) {
			tools[entry.jsName] = call;
			listing.push(Object.freeze({ name: entry.jsName, description: entry.description }));
		}
		if (!(entry.name in tools)) tools[entry.name] = call;
	}
	Object.freeze(tools);
	Object.freeze(listing);

	// Reading a member that does not exist fails at once, naming close matches.
	const squash = (name) => name.toLowerCase().replace(/[^a-z0-9]/g, "");
	function strict(target, label, names, hint) {
		return new Proxy(target, {
			get(object, property, receiver) {
				const passes =
					typeof property !== "string" ||
					property in object ||
					property in Object.prototype ||
					property === "then" ||
					property === "toJSON";
				if (passes) return Reflect.get(object, property, receiver);
				const wanted = squash(property);
				const same = names.filter((n) => squash(n) === wanted);
				const near =
					same.length > 0
						? same
						: names.filter((n) => wanted && (squash(n).includes(wanted) || wanted.includes(squash(n))));
				let message = fill(texts.missingMember, { label, property });
				if (near.length > 0) {
					const list = near.slice(0, texts.closeMatches).map((n) => label + "." + n).join(", ");
					message += fill(texts.didYouMean, { list });
				} else if (names.length <= texts.listAllUpTo) {
					message += fill(texts.available, { list: names.join(", ") });
				}
				if (hint) message += " " + hint;
				message += fill(texts.checkMember, { label, property });
				throw new BadType(message);
			},
		});
	}
	const toolsView = strict(
		tools,
		"tools",
		listing.map((t) => t.name),
		texts.toolsHint,
	);

	// ---- Host globals (searchTools, models.*) -------------------------------
	const groups = new Map();
	for (const entry of parse(globalsJson)) {
		const call = callerOf(host.global, entry.name, entry.spread);
		const dot = entry.name.indexOf(".");
		if (dot === -1) {
			Object.defineProperty(globalThis, entry.name, { value: call, enumerable: true });
			continue;
		}
		const group = entry.name.slice(0, dot);
		if (!groups.has(group)) groups.set(group, Object.create(null));
		groups.get(group)[entry.name.slice(dot + 1)] = call;
	}
	for (const [group, members] of groups) {
		Object.freeze(members);
		Object.defineProperty(globalThis, group, { value: strict(members, group, Object.keys(members)), enumerable: true });
	}

	// ---- store() and load() -------------------------------------------------
	// Values are kept as JSON text; sizes count key and JSON characters.
	const saved = new Map(Object.entries(parse(storeJson)));
	const written = new Map();
	let savedChars = 0;
	for (const [key, json] of saved) savedChars += key.length + json.length;

	function requireKey(fn, key) {
		if (typeof key !== "string") throw new TypeError(fill(texts.keyNotString, { fn }));
	}

	function store(key, value) {
		requireKey("store", key);
		const before = saved.has(key) ? key.length + saved.get(key).length : 0;
		if (value === undefined) {
			saved.delete(key);
			savedChars -= before;
			written.set(key, undefined);
			return;
		}
		const key_ = stringify(key);
		let json;
		try {
			json = stringify(value);
		} catch (error) {
			throw new TypeError(fill(texts.notSerializableBecause, { key: key_, error: show(error) }));
		}
		if (json === undefined) throw new TypeError(fill(texts.notSerializable, { key: key_ }));
		if (json.length > STORE_VALUE_LIMIT) {
			throw new RangeError(fill(texts.storeValueTooLarge, { key: key_, chars: json.length, limit: STORE_VALUE_LIMIT }));
		}
		const after = savedChars - before + key.length + json.length;
		if (after > STORE_TOTAL_LIMIT) {
			throw new RangeError(fill(texts.storeFull, { limit: STORE_TOTAL_LIMIT }));
		}
		saved.set(key, json);
		savedChars = after;
		written.set(key, json);
	}

	function load(key) {
		requireKey("load", key);
		const json = saved.get(key);
		return json === undefined ? undefined : parse(json);
	}

	const writesJson = () => {
		const list = [];
		for (const [key, json] of written) list.push(json === undefined ? [key] : [key, clean(json)]);
		return stringify(list);
	};

	// ---- Output -------------------------------------------------------------
	let outChars = 0;
	let outItems = 0;

	// Past a limit the script fails; catching the error does not bring the
	// output back, the failure is already reported.
	function emit(kind, data, mimeType) {
		if (ended) return;
		outChars += data.length;
		outItems += 1;
		if (outChars > OUTPUT_CHARS_LIMIT || outItems > OUTPUT_ITEMS_LIMIT) {
			const error = new BadRange(texts.outputLimit);
			finish(false, errorJson(error));
			throw error;
		}
		host.output(kind, clean(data), mimeType === undefined ? "" : mimeType);
	}

	function asText(value) {
		const primitive = value === undefined || value === null || (typeof value !== "object" && typeof value !== "function");
		if (primitive) return String(value);
		const json = stringify(value);
		return json === undefined ? String(value) : json;
	}

	function text(value) {
		let rendered;
		try {
			rendered = asText(value);
		} catch (error) {
			throw new BadType(error instanceof BaseError ? error.message : String(error));
		}
		emit("text", rendered);
	}

	function imageSource(value) {
		if (typeof value === "string") return value;
		if (typeof value !== "object" || value === null || Array.isArray(value)) throw new BadType(texts.imageExpects);
		if (value.image_url !== undefined) {
			if (typeof value.image_url !== "string") throw new BadType(texts.imageExpects);
			return value.image_url;
		}
		if (typeof value.type !== "string") throw new BadType(texts.imageExpects);
		if (value.type !== "image") throw new BadType(fill(texts.imageNotBlock, { type: value.type }));
		if (typeof value.data !== "string" || value.data === "") throw new BadType(texts.imageNoData);
		if (value.data.toLowerCase().startsWith("data:")) return value.data;
		return "data:;base64," + value.data;
	}

	// The leading bytes (base64) of the formats providers accept inline.
	const formats = [
		["image/png", /^iVBORw0KGg/],
		["image/jpeg", /^[/]9j[/](?!9)/],
		["image/gif", /^R0lGOD[dl]h/],
		["image/webp", /^UklG.{8}RUJQ/],
	];

	function image(value) {
		const url = imageSource(value);
		if (url === "") throw new BadType(texts.imageExpects);
		const colon = url.indexOf(":");
		const scheme = colon === -1 ? "" : url.slice(0, colon).toLowerCase();
		if (scheme === "http" || scheme === "https") throw new BadType(texts.imageRemote);
		const comma = url.indexOf(",");
		const params = comma === -1 ? [] : url.slice(colon + 1, comma).split(";");
		const base64 = params.slice(1).some((p) => p.toLowerCase() === "base64");
		if (scheme !== "data" || comma === -1 || !base64) throw new BadType(texts.imageInvalid);
		const data = url.slice(comma + 1).replace(/\s+/g, "");
		if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) throw new BadType(texts.imageBadBase64);
		const head = data.slice(0, 16);
		const format = formats.find(([, sign]) => sign.test(head));
		if (!format) throw new BadType(texts.imageUnknownFormat);
		emit("image", data, format[0]);
	}

	function exit() {
		let writes;
		try {
			writes = writesJson();
		} catch (error) {
			finish(false, errorJson(error));
			throw EXIT_SIGNAL;
		}
		finish(true, undefined, writes);
		throw EXIT_SIGNAL;
	}

	const console = {};
	for (const level of ["log", "info", "warn", "error", "debug"]) {
		console[level] = (...args) => emit("console", args.map(show).join(" "));
	}
	Object.freeze(console);

	const install = (name, value) => Object.defineProperty(globalThis, name, { value, enumerable: true });
	install("store", store);
	install("load", load);
	install("tools", toolsView);
	install("ALL_TOOLS", listing);
	install("console", console);
	install("text", text);
	install("image", image);
	install("exit", exit);

	return {
		settle(id, ok, payload, propertiesJson) {
			const call = waiting.get(id);
			if (!call) return;
			waiting.delete(id);
			if (!ok) {
				const error = new BaseError(payload);
				if (propertiesJson !== undefined) {
					const extra = parse(propertiesJson);
					for (const key of Object.keys(extra)) {
						if (key === "name" || key === "message" || key === "stack") continue;
						Object.defineProperty(error, key, { value: extra[key], writable: true, enumerable: true, configurable: true });
					}
				}
				call.reject(error);
				return;
			}
			let value;
			try {
				value = payload === undefined ? undefined : parse(payload);
			} catch (error) {
				call.reject(error);
				return;
			}
			call.resolve(value);
		},
		run(script) {
			let running;
			try {
				running = script(toolsView, console);
			} catch (error) {
				finish(false, errorJson(error));
				return;
			}
			then.call(
				running,
				(value) => {
					let json;
					try {
						json = toJson(value);
					} catch (error) {
						finish(false, errorJson(error));
						return;
					}
					finish(true, json, writesJson());
				},
				(error) => finish(false, errorJson(error)),
			);
		},
		// Nothing can resume a script that waits while no call is pending: the
		// sandbox has no timers or I/O.
		stalled() {
			if (ended || waiting.size > 0) return false;
			finish(false, stringify({ name: "Error", message: texts.stalled }));
			return true;
		},
	};
})
