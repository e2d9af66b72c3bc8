// `typebox/value` for extensions: the reference's names (the surface), with
// the value functions pi implements over the JSON Schema TypeBox builds.
export * from "pi:surface/typebox-value";
export { Value as default } from "pi:surface/typebox-value";
