// node:zlib is not implemented: it imports, and each call throws ERR_NOT_SUPPORTED.
import { filled } from "pi:surface-support";
import rest from "pi:surface/node-zlib";
function unsupported(name) {
  return () => {
    const e = new Error(`zlib.${name}() is not supported in pi's extension engine`);
    e.code = "ERR_NOT_SUPPORTED";
    throw e;
  };
}
export const gunzipSync = unsupported("gunzipSync"), gzipSync = unsupported("gzipSync");
export const inflateSync = unsupported("inflateSync"), deflateSync = unsupported("deflateSync");
export const inflateRawSync = unsupported("inflateRawSync"), deflateRawSync = unsupported("deflateRawSync");
export const brotliCompressSync = unsupported("brotliCompressSync"), brotliDecompressSync = unsupported("brotliDecompressSync");
export const createGunzip = unsupported("createGunzip"), createGzip = unsupported("createGzip");
export const gunzip = unsupported("gunzip"), gzip = unsupported("gzip");
export default filled({ gunzipSync, gzipSync, inflateSync, deflateSync, inflateRawSync, deflateRawSync, brotliCompressSync, brotliDecompressSync, createGunzip, createGzip, gunzip, gzip }, rest);

// The rest of what Node exports here: stand-ins (js/surface/node-zlib.js).
export * from "pi:surface/node-zlib";
