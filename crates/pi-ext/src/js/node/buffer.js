// node:buffer: the global Buffer.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-buffer";
export const Buffer = globalThis.Buffer;
export const constants = { MAX_LENGTH: 2 ** 31 - 1, MAX_STRING_LENGTH: 2 ** 29 - 24 };
export const kMaxLength = constants.MAX_LENGTH;
export default filled({ Buffer, constants, kMaxLength }, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-buffer.js).
export * from "pi:surface/node-buffer";
