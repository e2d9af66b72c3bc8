// A host package with no value exports that pi supports (types only).
export {};
