// A small `Intl` for an engine without one: what packages reach for at load
// time and in formatting, in the `en-US` locale. `Segmenter` splits
// graphemes (a base with its marks, emoji ZWJ sequences, modifiers, flag
// pairs), words and sentences; `NumberFormat`, `DateTimeFormat`, `Collator`,
// `PluralRules`, `RelativeTimeFormat` and `ListFormat` give English results.
// Called on first use of `Intl` (js/lazy-globals.js).
(function () {
  "use strict";
  if (typeof globalThis.Intl === "object") return;
  const LOCALE = "en-US";
  const define = (obj, name, value) =>
    Object.defineProperty(obj, name, { value, enumerable: false, configurable: true, writable: true });
  const timeZone = () => {
    const tz = globalThis.process && globalThis.process.env && globalThis.process.env.TZ;
    return tz && !tz.startsWith(":") ? tz : "UTC";
  };

  // ------------------------------------------------------------ Segmenter
  const EXTEND = "[\\p{M}\\u200c\\ufe00-\\ufe0f\\u{1F3FB}-\\u{1F3FF}\\u{E0020}-\\u{E007F}]";
  const GRAPHEME = new RegExp(
    `\\r\\n|[\\u{1F1E6}-\\u{1F1FF}]{2}|[^\\p{M}]${EXTEND}*(?:\\u200d[^\\p{M}]${EXTEND}*)*|${EXTEND}+`,
    "gu",
  );
  const WORD = /[\p{L}\p{N}_'’]+|\s+|[^\p{L}\p{N}_\s]/gu;
  const SENTENCE = /[^.!?]*(?:[.!?]+\s*|$)/gu;
  class Segmenter {
    #granularity;
    constructor(_locales, options) {
      const g = (options && options.granularity) || "grapheme";
      if (!["grapheme", "word", "sentence"].includes(g)) throw new RangeError(`Value ${g} out of range for Intl.Segmenter options property granularity`);
      this.#granularity = g;
    }
    segment(input) {
      const text = String(input);
      const granularity = this.#granularity;
      const pattern = granularity === "word" ? WORD : granularity === "sentence" ? SENTENCE : GRAPHEME;
      const list = [];
      for (const m of text.matchAll(new RegExp(pattern.source, pattern.flags))) {
        if (m[0] === "") continue;
        const s = { segment: m[0], index: m.index, input: text };
        if (granularity === "word") s.isWordLike = /[\p{L}\p{N}]/u.test(m[0]);
        list.push(s);
      }
      const segments = {
        [Symbol.iterator]: () => list[Symbol.iterator](),
        containing(index = 0) {
          return list.find((s) => index >= s.index && index < s.index + s.segment.length);
        },
      };
      return segments;
    }
    resolvedOptions() {
      return { locale: LOCALE, granularity: this.#granularity };
    }
    static supportedLocalesOf() {
      return [LOCALE];
    }
  }

  // ------------------------------------------------------------ NumberFormat
  function group(intPart) {
    return intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }
  class NumberFormat {
    #o;
    constructor(_locales, options) {
      const o = { style: "decimal", useGrouping: true, ...(options || {}) };
      if (o.style === "percent") o.maximumFractionDigits ??= 0;
      if (o.style === "currency") {
        o.minimumFractionDigits ??= 2;
        o.maximumFractionDigits ??= 2;
      }
      o.minimumFractionDigits ??= 0;
      o.maximumFractionDigits ??= Math.max(o.minimumFractionDigits, 3);
      this.#o = o;
    }
    format(value) {
      const o = this.#o;
      let n = Number(value);
      if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "∞" : "-∞";
      if (o.style === "percent") n *= 100;
      let suffix = "";
      if (o.notation === "compact") {
        for (const [size, s] of [[1e12, "T"], [1e9, "B"], [1e6, "M"], [1e3, "K"]]) {
          if (Math.abs(n) >= size) {
            n /= size;
            suffix = s;
            break;
          }
        }
        if (options_unset(o)) n = Math.round(n * 10) / 10;
      }
      const fixed = Math.abs(n).toFixed(o.maximumFractionDigits);
      let [i, f = ""] = fixed.split(".");
      f = f.replace(/0+$/, "");
      while (f.length < o.minimumFractionDigits) f += "0";
      const body = (o.useGrouping === false ? i : group(i)) + (f ? `.${f}` : "");
      const sign = n < 0 && Number(fixed) !== 0 ? "-" : "";
      const currency = o.style === "currency" ? (o.currency === "USD" || !o.currency ? "$" : `${o.currency} `) : "";
      return `${sign}${currency}${body}${suffix}${o.style === "percent" ? "%" : ""}${o.style === "unit" && o.unit ? ` ${o.unit}` : ""}`;
    }
    formatToParts(value) {
      return [{ type: "literal", value: this.format(value) }];
    }
    resolvedOptions() {
      return { locale: LOCALE, numberingSystem: "latn", ...this.#o };
    }
    static supportedLocalesOf() {
      return [LOCALE];
    }
  }
  function options_unset(o) {
    return o.maximumFractionDigits === 3 && o.minimumFractionDigits === 0;
  }

  // ------------------------------------------------------------ DateTimeFormat
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
  const pad = (n) => String(n).padStart(2, "0");
  class DateTimeFormat {
    #o;
    constructor(_locales, options) {
      this.#o = { ...(options || {}) };
    }
    format(date) {
      const d = date === undefined ? new Date() : new Date(date);
      if (Number.isNaN(d.getTime())) throw new RangeError("Invalid time value");
      const o = this.#o;
      const utc = (o.timeZone || timeZone()) === "UTC";
      const get = (what) => (utc ? d[`getUTC${what}`]() : d[`get${what}`]());
      const hasDate = o.year || o.month || o.day || o.weekday || o.dateStyle;
      const hasTime = o.hour || o.minute || o.second || o.timeStyle;
      const parts = [];
      if (hasDate || !hasTime) {
        const month = o.month === "long" || o.dateStyle === "long" ? MONTHS[get("Month")] : o.month === "short" ? MONTHS[get("Month")].slice(0, 3) : null;
        const weekday = o.weekday ? (o.weekday === "long" ? DAYS[get("Day")] : DAYS[get("Day")].slice(0, 3)) : null;
        const date = month ? `${month} ${get("Date")}, ${get("FullYear")}` : `${get("Month") + 1}/${get("Date")}/${get("FullYear")}`;
        parts.push(weekday ? `${weekday}, ${date}` : date);
      }
      if (hasTime) {
        const h = get("Hours");
        const h12 = o.hour12 === false || o.hourCycle === "h23" ? null : h % 12 || 12;
        let t = `${h12 === null ? pad(h) : h12}:${pad(get("Minutes"))}`;
        if (o.second || o.timeStyle === "medium" || o.timeStyle === "long") t += `:${pad(get("Seconds"))}`;
        if (h12 !== null) t += h < 12 ? " AM" : " PM";
        parts.push(t);
      }
      return parts.join(", ");
    }
    formatToParts(date) {
      return [{ type: "literal", value: this.format(date) }];
    }
    resolvedOptions() {
      return { locale: LOCALE, calendar: "gregory", numberingSystem: "latn", timeZone: this.#o.timeZone || timeZone(), ...this.#o };
    }
    static supportedLocalesOf() {
      return [LOCALE];
    }
  }

  // ------------------------------------------------------------ Collator, PluralRules, RelativeTimeFormat, ListFormat
  class Collator {
    #o;
    constructor(_locales, options) {
      this.#o = { sensitivity: "variant", numeric: false, ...(options || {}) };
      this.compare = this.compare.bind(this);
    }
    compare(a, b) {
      let x = String(a);
      let y = String(b);
      if (this.#o.sensitivity === "base" || this.#o.sensitivity === "accent") {
        x = x.toLowerCase();
        y = y.toLowerCase();
      }
      if (this.#o.numeric) {
        const chunks = (s) => s.match(/\d+|\D+/g) || [];
        const [p, q] = [chunks(x), chunks(y)];
        for (let i = 0; i < Math.min(p.length, q.length); i++) {
          const numeric = /^\d/.test(p[i]) && /^\d/.test(q[i]);
          const c = numeric ? Number(p[i]) - Number(q[i]) : p[i].localeCompare(q[i]);
          if (c !== 0) return Math.sign(c);
        }
        return Math.sign(p.length - q.length);
      }
      return Math.sign(x.localeCompare(y));
    }
    resolvedOptions() {
      return { locale: LOCALE, usage: "sort", ...this.#o };
    }
    static supportedLocalesOf() {
      return [LOCALE];
    }
  }
  class PluralRules {
    #type;
    constructor(_locales, options) {
      this.#type = (options && options.type) || "cardinal";
    }
    select(n) {
      if (this.#type === "ordinal") {
        const [t, h] = [n % 10, n % 100];
        return t === 1 && h !== 11 ? "one" : t === 2 && h !== 12 ? "two" : t === 3 && h !== 13 ? "few" : "other";
      }
      return Number(n) === 1 ? "one" : "other";
    }
    resolvedOptions() {
      return { locale: LOCALE, type: this.#type };
    }
  }
  class RelativeTimeFormat {
    #numeric;
    constructor(_locales, options) {
      this.#numeric = (options && options.numeric) || "always";
    }
    format(value, unit) {
      const v = Number(value);
      const u = String(unit).replace(/s$/, "");
      if (this.#numeric === "auto" && u === "day" && Math.abs(v) <= 1) return v === 0 ? "today" : v > 0 ? "tomorrow" : "yesterday";
      const n = Math.abs(v);
      const label = `${n} ${u}${n === 1 ? "" : "s"}`;
      return v < 0 || Object.is(v, -0) ? `${label} ago` : `in ${label}`;
    }
  }
  class ListFormat {
    #type;
    constructor(_locales, options) {
      this.#type = (options && options.type) || "conjunction";
    }
    format(list) {
      const items = Array.from(list, String);
      const word = this.#type === "disjunction" ? "or" : "and";
      if (items.length <= 2) return items.join(` ${word} `);
      return `${items.slice(0, -1).join(", ")}, ${word} ${items[items.length - 1]}`;
    }
  }

  // As the real ones, each may be called without `new`.
  const callable = (C) => {
    const F = function (...args) {
      return new C(...args);
    };
    F.prototype = C.prototype;
    F.supportedLocalesOf = () => [LOCALE];
    Object.defineProperty(F, "name", { value: C.name });
    return F;
  };
  const Intl = {
    Segmenter: callable(Segmenter),
    NumberFormat: callable(NumberFormat),
    DateTimeFormat: callable(DateTimeFormat),
    Collator: callable(Collator),
    PluralRules: callable(PluralRules),
    RelativeTimeFormat: callable(RelativeTimeFormat),
    ListFormat: callable(ListFormat),
    getCanonicalLocales: (l) => (l === undefined ? [] : Array.isArray(l) ? l.map(String) : [String(l)]),
    supportedValuesOf: () => [],
  };
  define(globalThis, "Intl", Intl);
});
