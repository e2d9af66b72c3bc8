// `typebox/compile` for extensions: `Compile(schema)` gives a validator over
// `typebox/value`'s functions (pi checks schemas itself; nothing is
// compiled to code). The reference's other names are stand-ins.
import { Check, Errors, Parse, Decode, Encode, Default, Clean, Convert, Create } from "typebox/value";

export class Validator {
  #schema;
  constructor(schema) {
    this.#schema = schema;
  }
  Schema() {
    return this.#schema;
  }
  Check(value) {
    return Check(this.#schema, value);
  }
  Errors(value) {
    return Errors(this.#schema, value);
  }
  Parse(value) {
    return Parse(this.#schema, value);
  }
  Decode(value) {
    return Decode(this.#schema, value);
  }
  Encode(value) {
    return Encode(this.#schema, value);
  }
  Default(value) {
    return Default(this.#schema, value);
  }
  Clean(value) {
    return Clean(this.#schema, value);
  }
  Convert(value) {
    return Convert(this.#schema, value);
  }
  Create() {
    return Create(this.#schema);
  }
  IsAccelerated() {
    return false;
  }
  Code() {
    return "";
  }
}

export function Compile(schema) {
  return new Validator(schema);
}
export default Compile;

// The rest of what the reference exports here: stand-ins (js/surface/typebox-compile.js).
export * from "pi:surface/typebox-compile";
