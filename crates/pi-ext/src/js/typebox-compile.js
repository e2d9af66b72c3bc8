// `typebox/compile` for extensions: the reference's names (the surface).
export * from "pi:surface/typebox-compile";
