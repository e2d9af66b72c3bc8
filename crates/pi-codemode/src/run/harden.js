// The first code of a script's runtime: it freezes the realm before the
// runtime code (prelude.js) and the script run. Evaluated as is, with its
// texts (crate::text) filled in.
(function (texts) {
	"use strict";
	const fill = (template, values) => {
		let out = template;
		for (const key of Object.keys(values)) out = out.split("{" + key + "}").join(String(values[key]));
		return out;
	};

	// Scripts have no threads; the reference's engine has no Atomics either.
	Reflect.deleteProperty(globalThis, "Atomics");

	// Every object reachable from the global object and the intrinsics only
	// instances reach is frozen. A frozen data property on a prototype cannot
	// be shadowed by assignment on an instance ("the override mistake"), which
	// would break `this.name = "MyError"` in an Error subclass, so the commonly
	// overridden ones become accessors whose setter defines an own property on
	// the receiver instead.
	(function freezeRealm() {
		const shadowable = new Set(["constructor", "name", "message", "toString", "toLocaleString", "valueOf", "toJSON"]);
		const reached = new Set([globalThis]);
		const todo = [];
		const reach = (v) => {
			const isObject = (typeof v === "object" && v !== null) || typeof v === "function";
			if (isObject && !reached.has(v)) {
				reached.add(v);
				todo.push(v);
			}
		};
		const makeShadowable = (owner, key, value, enumerable) => {
			// Accessors of an object literal have no prototype object of their own.
			const pair = Object.getOwnPropertyDescriptor(
				{
					get slot() {
						return value;
					},
					set slot(replacement) {
						if (this === owner) {
							throw new TypeError(fill(texts.readOnly, { key: String(key) }));
						}
						const receiver = (typeof this === "object" && this !== null) || typeof this === "function";
						if (!receiver) return;
						Object.defineProperty(this, key, { value: replacement, writable: true, enumerable: true, configurable: true });
					},
				},
				"slot",
			);
			Object.defineProperty(owner, key, { get: pair.get, set: pair.set, enumerable, configurable: false });
			reach(pair.get);
			reach(pair.set);
		};
		for (const key of Reflect.ownKeys(globalThis)) {
			const d = Object.getOwnPropertyDescriptor(globalThis, key);
			reach(d.value);
			reach(d.get);
			reach(d.set);
			if ("value" in d && d.configurable) Object.defineProperty(globalThis, key, { writable: false, configurable: false });
		}
		const hidden = [
			() => Object.getPrototypeOf(function* () {}),
			() => Object.getPrototypeOf(async function () {}),
			() => Object.getPrototypeOf(async function* () {}),
			() => Object.getPrototypeOf(Int8Array),
			() => Object.getPrototypeOf([][Symbol.iterator]()),
			() => Object.getPrototypeOf(new Map()[Symbol.iterator]()),
			() => Object.getPrototypeOf(new Set()[Symbol.iterator]()),
			() => Object.getPrototypeOf(""[Symbol.iterator]()),
			() => Object.getPrototypeOf(/x/[Symbol.matchAll]("")),
			() => Object.getPrototypeOf([].values().map((x) => x)),
			() => Object.getPrototypeOf(Iterator.from({ next() {} })),
		];
		for (const find of hidden) {
			try {
				reach(find());
			} catch {
				// An intrinsic this engine does not have.
			}
		}
		while (todo.length > 0) {
			const object = todo.pop();
			reach(Object.getPrototypeOf(object));
			const descriptors = Object.getOwnPropertyDescriptors(object);
			for (const key of Reflect.ownKeys(descriptors)) {
				const d = descriptors[key];
				if (!("value" in d)) {
					reach(d.get);
					reach(d.set);
					continue;
				}
				reach(d.value);
				if (d.writable && d.configurable && (object === Object.prototype || shadowable.has(key))) {
					makeShadowable(object, key, d.value, d.enumerable);
				}
			}
			Object.freeze(object);
		}
	})();
})(__TEXTS__);
