// node:buffer: the global Buffer.
export const Buffer = globalThis.Buffer;
export const constants = { MAX_LENGTH: 2 ** 31 - 1, MAX_STRING_LENGTH: 2 ** 29 - 24 };
export const kMaxLength = constants.MAX_LENGTH;
export default { Buffer, constants, kMaxLength };
