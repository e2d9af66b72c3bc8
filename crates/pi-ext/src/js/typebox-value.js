// `typebox/value` for extensions: the value functions over the JSON Schema
// TypeBox builds, checked by pi's own checker (the one tool arguments go
// through: `type`, `const`, `enum`, `anyOf`/`oneOf`/`allOf`/`not`,
// properties, items and bounds; `$ref`, `if`, `patternProperties` and
// formats pass unchecked). The reference's other names are stand-ins.
const node = globalThis.__pi_node;

const json = (v) => (v === undefined ? "null" : JSON.stringify(v));

/** The issues of `value` against `schema`, as TypeBox's error records. */
function issues(schema, value) {
  const list = JSON.parse(node.schemaCheck(json(schema), json(value)));
  return list.map((i) => {
    const path = i.path === "root" ? "" : `/${i.path.split(".").join("/")}`;
    return { type: 0, schema, path, instancePath: path, value, message: i.message };
  });
}

export class AssertError extends Error {
  constructor(value, errors) {
    super(errors.length ? `${errors[0].path || "/"}: ${errors[0].message}` : "Assertion failed");
    this.name = "AssertError";
    this.value = value;
    this.error = errors[0];
    this.errors = errors;
  }
  Errors() {
    return this.errors;
  }
}
export { AssertError as ParseError };

export function Check(schema, value) {
  if (arguments.length === 3) [schema, value] = [arguments[1], arguments[2]];
  return issues(schema, value).length === 0;
}

export function Errors(schema, value) {
  if (arguments.length === 3) [schema, value] = [arguments[1], arguments[2]];
  return issues(schema, value);
}

export function Assert(schema, value) {
  const errors = Errors(schema, value);
  if (errors.length) throw new AssertError(value, errors);
}

export function Clone(value) {
  return value === undefined ? undefined : structuredClone(value);
}

/** The schema's default values filled in where the value has none. */
export function Default(schema, value) {
  if (value === undefined && schema && schema.default !== undefined) return Clone(schema.default);
  if (schema && schema.type === "object" && value && typeof value === "object" && !Array.isArray(value)) {
    for (const [key, sub] of Object.entries(schema.properties || {})) {
      const filled = Default(sub, value[key]);
      if (filled !== undefined) value[key] = filled;
    }
  }
  if (schema && schema.type === "array" && Array.isArray(value) && schema.items) {
    for (let i = 0; i < value.length; i++) value[i] = Default(schema.items, value[i]);
  }
  return value;
}

/** Loosely typed values moved to the schema's types (`"2"` → 2, …). */
export function Convert(schema, value) {
  if (value === undefined) return value;
  return JSON.parse(node.schemaCoerce(json(schema), json(value)));
}

/** Properties the schema does not allow removed (`additionalProperties: false`). */
export function Clean(schema, value) {
  if (schema && schema.type === "object" && value && typeof value === "object" && !Array.isArray(value)) {
    const props = schema.properties || {};
    for (const key of Object.keys(value)) {
      if (props[key]) value[key] = Clean(props[key], value[key]);
      else if (schema.additionalProperties === false) delete value[key];
    }
  }
  if (schema && schema.type === "array" && Array.isArray(value) && schema.items) {
    for (let i = 0; i < value.length; i++) value[i] = Clean(schema.items, value[i]);
  }
  return value;
}

/** A value the schema accepts, from its defaults and types. */
export function Create(schema) {
  if (!schema || typeof schema !== "object") return undefined;
  if (schema.default !== undefined) return Clone(schema.default);
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.anyOf) && schema.anyOf.length) return Create(schema.anyOf[0]);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object": {
      const out = {};
      for (const key of schema.required || []) out[key] = Create((schema.properties || {})[key]);
      return out;
    }
    case "array":
      return [];
    case "string":
      return "";
    case "number":
    case "integer":
      return schema.minimum ?? 0;
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return undefined;
  }
}

/** `Clone`, `Default`, `Convert`, `Clean`, then `Assert`: the value, or AssertError. */
export function Parse(schema, value) {
  const out = Clean(schema, Convert(schema, Default(schema, Clone(value))));
  Assert(schema, out);
  return out;
}
export const Decode = Parse;
export const Encode = (schema, value) => {
  Assert(schema, value);
  return value;
};

export function Equal(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function Hash(value) {
  let h = 0xcbf29ce484222325n;
  for (const c of new TextEncoder().encode(json(value))) h = BigInt.asUintN(64, (h ^ BigInt(c)) * 0x100000001b3n);
  return h;
}

export const Value = {
  Assert, Check, Clean, Clone, Convert, Create, Decode, Default, Encode, Equal, Errors, Hash, Parse,
};
export default Value;

// The rest of what the reference exports here: stand-ins (js/surface/typebox-value.js).
export * from "pi:surface/typebox-value";
