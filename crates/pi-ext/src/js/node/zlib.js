// node:zlib is not implemented: it imports, and each call throws ERR_NOT_SUPPORTED.
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
export default { gunzipSync, gzipSync, inflateSync, deflateSync, inflateRawSync, deflateRawSync, brotliCompressSync, brotliDecompressSync, createGunzip, createGzip, gunzip, gzip };
