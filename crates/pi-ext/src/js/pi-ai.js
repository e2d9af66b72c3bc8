// The value exports of `@earendil-works/pi-ai` (and `@mariozechner/pi-ai`) extensions use.
import { Type } from "typebox";

export function StringEnum(values, options) {
  const schema = { type: "string", enum: values };
  if (options && options.description) schema.description = options.description;
  if (options && options.default) schema.default = options.default;
  return schema;
}

export { Type };
