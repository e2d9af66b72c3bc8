// bench/bedrock_server.mjs: a Bedrock ConverseStream server for
// bench/bedrock-stream.sh. Speaks HTTP/2 without TLS on 127.0.0.1:PORT and
// answers every request with MB megabytes of event-stream frames (each about
// FRAME bytes, JSON payloads of an event pi reads and drops), then the text
// "done" and messageStop. Frames are written as the client takes them.
import http2 from 'node:http2';
import zlib from 'node:zlib';

const [port, mb, frameBytes] = [+process.argv[2], +process.argv[3], +(process.argv[4] || 1024)];
const header = (n, v) => {
  const nb = Buffer.from(n), vb = Buffer.from(v), len = Buffer.alloc(2);
  len.writeUInt16BE(vb.length);
  return Buffer.concat([Buffer.from([nb.length]), nb, Buffer.from([7]), len, vb]);
};
const frame = (event, payload) => {
  const h = Buffer.concat([header(':event-type', event), header(':content-type', 'application/json'), header(':message-type', 'event')]);
  const p = Buffer.from(JSON.stringify(payload));
  const prelude = Buffer.alloc(8);
  prelude.writeUInt32BE(12 + h.length + p.length + 4, 0);
  prelude.writeUInt32BE(h.length, 4);
  const pc = Buffer.alloc(4);
  pc.writeUInt32BE(zlib.crc32(prelude));
  const body = Buffer.concat([prelude, pc, h, p]);
  const mc = Buffer.alloc(4);
  mc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([body, mc]);
};
const filler = frame('metadata', { usage: { inputTokens: 1, outputTokens: 1 }, p: 'x'.repeat(Math.max(0, frameBytes - 150)) });
const server = http2.createServer();
server.on('stream', (stream) => {
  stream.on('data', () => {});
  stream.on('end', () => {
    stream.respond({ ':status': 200, 'content-type': 'application/vnd.amazon.eventstream' });
    stream.write(frame('messageStart', { role: 'assistant' }));
    const batch = Buffer.concat(Array(64).fill(filler));
    let left = Math.ceil((mb * 1e6) / batch.length);
    const pump = () => {
      while (left > 0) {
        left--;
        if (!stream.write(batch)) return stream.once('drain', pump);
      }
      stream.write(frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'done' } }));
      stream.write(frame('contentBlockStop', { contentBlockIndex: 0 }));
      stream.write(frame('messageStop', { stopReason: 'end_turn' }));
      stream.end(frame('metadata', { usage: { inputTokens: 10, outputTokens: 5 } }));
    };
    pump();
  });
});
server.listen(port, '127.0.0.1', () => console.log('listening'));
