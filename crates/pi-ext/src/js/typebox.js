// A small TypeBox-compatible schema builder for extensions (`import { Type } from "typebox"`).
// It builds the same JSON Schema as TypeBox 1.x for the builders extensions use to describe
// tool parameters. Optional/readonly marks are non-enumerable, so JSON.stringify leaves them out.

const OPTIONAL = "~optional";
const READONLY = "~readonly";
const KIND = "~kind";

function mark(schema, key, kind) {
  Object.defineProperty(schema, key, { value: true, enumerable: false, configurable: true, writable: true });
  if (kind) Object.defineProperty(schema, KIND, { value: kind, enumerable: false, configurable: true, writable: true });
  return schema;
}

function clone(schema) {
  if (schema === null || typeof schema !== "object") return schema;
  const out = Array.isArray(schema) ? [] : {};
  for (const key of Object.keys(schema)) out[key] = clone(schema[key]);
  for (const key of [OPTIONAL, READONLY, KIND]) {
    if (Object.prototype.hasOwnProperty.call(schema, key)) {
      Object.defineProperty(out, key, { value: schema[key], enumerable: false, configurable: true, writable: true });
    }
  }
  return out;
}

function make(kind, base, options) {
  const schema = Object.assign(base, options || {});
  Object.defineProperty(schema, KIND, { value: kind, enumerable: false, configurable: true, writable: true });
  return schema;
}

function isOptional(schema) {
  return !!(schema && schema[OPTIONAL]);
}

function tObject(properties, options) {
  const props = properties || {};
  const required = Object.keys(props).filter((k) => !isOptional(props[k]));
  const base = { type: "object" };
  if (required.length > 0) base.required = required;
  base.properties = props;
  return make("Object", base, options);
}

function tString(options) { return make("String", { type: "string" }, options); }
function tNumber(options) { return make("Number", { type: "number" }, options); }
function tInteger(options) { return make("Integer", { type: "integer" }, options); }
function tBoolean(options) { return make("Boolean", { type: "boolean" }, options); }
function tNull(options) { return make("Null", { type: "null" }, options); }
function tAny(options) { return make("Any", {}, options); }
function tUnknown(options) { return make("Unknown", {}, options); }
function tNever(options) { return make("Never", { not: {} }, options); }
function tUndefined(options) { return make("Undefined", { type: "undefined" }, options); }
function tVoid(options) { return make("Void", { type: "void" }, options); }
function tArray(items, options) { return make("Array", { type: "array", items }, options); }

function tLiteral(value, options) {
  const type = typeof value === "string" ? "string" : typeof value === "number" ? "number" : typeof value === "boolean" ? "boolean" : undefined;
  const base = {};
  if (type) base.type = type;
  base.const = value;
  return make("Literal", base, options);
}

function tUnion(schemas, options) { return make("Union", { anyOf: schemas }, options); }
function tIntersect(schemas, options) { return make("Intersect", { allOf: schemas }, options); }

function tEnum(values, options) {
  const list = Array.isArray(values)
    ? values
    : Object.keys(values)
        .filter((k) => !/^\d+$/.test(k))
        .map((k) => values[k]);
  return make("Enum", { enum: list }, options);
}

function tOptional(schema, flag) {
  const out = clone(schema);
  if (flag === false) {
    delete out[OPTIONAL];
    return out;
  }
  return mark(out, OPTIONAL);
}

function tReadonly(schema, flag) {
  const out = clone(schema);
  if (flag === false) {
    delete out[READONLY];
    return out;
  }
  return mark(out, READONLY);
}

function tReadonlyOptional(schema) { return tReadonly(tOptional(schema)); }

function tRecord(key, value, options) {
  let pattern = "^.*$";
  if (key && key.type === "number") pattern = "^-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?$";
  if (key && key.type === "integer") pattern = "^-?(?:0|[1-9][0-9]*)$";
  if (key && typeof key.pattern === "string") pattern = key.pattern;
  return make("Record", { type: "object", patternProperties: { [pattern]: value } }, options);
}

function tTuple(items, options) {
  const base = { type: "array", additionalItems: false, items, minItems: items.length };
  return make("Tuple", base, options);
}

function objectOf(schema) {
  if (!schema || schema.type !== "object" || !schema.properties) throw new TypeError("Expected an object schema");
  return schema;
}

function rebuild(schema, properties) {
  const options = {};
  for (const key of Object.keys(schema)) {
    if (key !== "type" && key !== "required" && key !== "properties") options[key] = schema[key];
  }
  return tObject(properties, options);
}

function tPartial(schema) {
  const obj = objectOf(schema);
  const props = {};
  for (const k of Object.keys(obj.properties)) props[k] = tOptional(obj.properties[k]);
  return rebuild(obj, props);
}

function tRequired(schema) {
  const obj = objectOf(schema);
  const props = {};
  for (const k of Object.keys(obj.properties)) props[k] = tOptional(obj.properties[k], false);
  return rebuild(obj, props);
}

function keyList(keys) {
  if (Array.isArray(keys)) return keys;
  if (keys && Array.isArray(keys.anyOf)) return keys.anyOf.map((s) => s.const);
  if (keys && keys.const !== undefined) return [keys.const];
  return [];
}

function tPick(schema, keys) {
  const obj = objectOf(schema);
  const props = {};
  for (const k of keyList(keys)) if (k in obj.properties) props[k] = obj.properties[k];
  return rebuild(obj, props);
}

function tOmit(schema, keys) {
  const obj = objectOf(schema);
  const drop = new Set(keyList(keys));
  const props = {};
  for (const k of Object.keys(obj.properties)) if (!drop.has(k)) props[k] = obj.properties[k];
  return rebuild(obj, props);
}

function tKeyOf(schema, options) {
  const obj = objectOf(schema);
  return tUnion(Object.keys(obj.properties).map((k) => tLiteral(k)), options);
}

function tRef(ref, options) { return make("Ref", { $ref: typeof ref === "string" ? ref : ref && ref.$id }, options); }
function tUnsafe(schema) { return make("Unsafe", Object.assign({}, schema || {})); }

const Type = {
  Any: tAny,
  Array: tArray,
  Boolean: tBoolean,
  Enum: tEnum,
  Integer: tInteger,
  Intersect: tIntersect,
  KeyOf: tKeyOf,
  Literal: tLiteral,
  Never: tNever,
  Null: tNull,
  Number: tNumber,
  Object: tObject,
  Omit: tOmit,
  Optional: tOptional,
  Partial: tPartial,
  Pick: tPick,
  Readonly: tReadonly,
  ReadonlyOptional: tReadonlyOptional,
  Record: tRecord,
  Ref: tRef,
  Required: tRequired,
  String: tString,
  Tuple: tTuple,
  Undefined: tUndefined,
  Union: tUnion,
  Unknown: tUnknown,
  Unsafe: tUnsafe,
  Void: tVoid,
};

export {
  Type,
  tAny as Any,
  tArray as Array,
  tBoolean as Boolean,
  tEnum as Enum,
  tInteger as Integer,
  tIntersect as Intersect,
  tKeyOf as KeyOf,
  tLiteral as Literal,
  tNever as Never,
  tNull as Null,
  tNumber as Number,
  tObject as Object,
  tOmit as Omit,
  tOptional as Optional,
  tPartial as Partial,
  tPick as Pick,
  tReadonly as Readonly,
  tReadonlyOptional as ReadonlyOptional,
  tRecord as Record,
  tRef as Ref,
  tRequired as Required,
  tString as String,
  tTuple as Tuple,
  tUndefined as Undefined,
  tUnion as Union,
  tUnknown as Unknown,
  tUnsafe as Unsafe,
  tVoid as Void,
};
export default Type;

// The rest of what the reference exports here: stand-ins (js/surface/typebox.js).
export * from "pi:surface/typebox";
