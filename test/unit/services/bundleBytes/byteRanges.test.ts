// The multipart/byteranges parser of a multi-range answer (src/services/bundleBytes/byteRanges.ts): parts are cut by the
// lengths their Content-Range declares, so data that holds the boundary itself comes out whole; a body that breaks
// the format is refused with what is wrong.
import { describe, expect, it } from 'vitest';
import {
  byterangesBoundary,
  parseByteranges,
  parseContentRange,
} from '../../../../src/services/bundleBytes/byteRanges.ts';
import { batchesOf, staggeredBatches } from '../../../../src/core/paged/blockStore.ts';

const enc = new TextEncoder();

function body(pieces: Array<string | Uint8Array>): Uint8Array {
  const parts = pieces.map((p) => (typeof p === 'string' ? enc.encode(p) : p));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('multipart/byteranges', () => {
  it('reads the boundary of the content type, quoted or not', () => {
    expect(byterangesBoundary('multipart/byteranges; boundary=00000000001')).toBe('00000000001');
    expect(byterangesBoundary('Multipart/ByteRanges; boundary="a b;c"')).toBe('a b;c');
    expect(byterangesBoundary('application/octet-stream')).toBeUndefined();
    expect(byterangesBoundary(null)).toBeUndefined();
  });

  it('reads Content-Range values', () => {
    expect(parseContentRange('bytes 10-19/100')).toEqual([10, 19, 100]);
    expect(parseContentRange('bytes 10-19/*')).toEqual([10, 19, NaN]);
    expect(parseContentRange('bytes 19-10/100')).toBeUndefined();
    expect(parseContentRange('bytes */100')).toBeUndefined();
  });

  it('parts as nginx writes them (a CRLF first), data that holds the boundary kept whole', () => {
    const data = enc.encode('x\r\n--B\r\ny');
    const parsed = parseByteranges(
      body([
        '\r\n--B\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes 5-13/1000\r\n\r\n',
        data,
        '\r\n--B\r\nContent-Range: bytes 900-902/1000\r\n\r\nabc',
        '\r\n--B--\r\n',
      ]),
      'B',
    );
    expect(parsed.map((p) => [p.start, p.end])).toEqual([
      [5, 13],
      [900, 902],
    ]);
    expect(parsed[0].bytes).toEqual(data);
    expect(new TextDecoder().decode(parsed[1].bytes)).toBe('abc');
  });

  it('parts with no preamble, lower-case headers', () => {
    const parsed = parseByteranges(body(['--Z\r\ncontent-range: bytes 0-1/9\r\n\r\nhi\r\n--Z--']), 'Z');
    expect(parsed).toHaveLength(1);
    expect(new TextDecoder().decode(parsed[0].bytes)).toBe('hi');
  });

  it('refuses a body that breaks the format, saying how', () => {
    expect(() => parseByteranges(body(['no parts']), 'B')).toThrow('no boundary');
    expect(() => parseByteranges(body(['--B\r\nContent-Type: x\r\n\r\ndata\r\n--B--']), 'B')).toThrow(
      'no Content-Range',
    );
    expect(() => parseByteranges(body(['--B\r\nContent-Range: bytes 0-99/200\r\n\r\nshort']), 'B')).toThrow(
      'cut short',
    );
    expect(() => parseByteranges(body(['--B\r\nContent-Range: bytes 0-1/2\r\n\r\nok']), 'B')).toThrow(
      'closing boundary',
    );
  });
});

describe('batches of runs', () => {
  it('splits a round into requests in flight, neighbours together, at most maxRanges each', () => {
    const runs = Array.from({ length: 10 }, (_, i) => i);
    expect(batchesOf(runs, 6, 100)).toEqual([[0], [1, 2], [3, 4], [5], [6, 7], [8, 9]]);
    expect(batchesOf(runs.slice(0, 3), 6, 100)).toEqual([[0], [1], [2]]);
    const many = Array.from({ length: 1000 }, (_, i) => i);
    const batches = batchesOf(many, 6, 100);
    expect(batches).toHaveLength(10);
    expect(batches.flat()).toEqual(many);
    expect(Math.max(...batches.map((b) => b.length))).toBe(100);
    expect(batchesOf([], 6, 100)).toEqual([]);
  });
});

describe('staggered batches of runs', () => {
  it('splits a stage of one wave as batchesOf does', () => {
    const runs = Array.from({ length: 1000 }, (_, i) => i);
    expect(staggeredBatches(runs, 6, 200)).toEqual(batchesOf(runs, 6, 200));
    expect(staggeredBatches(runs.slice(0, 3), 6, 200)).toEqual([[0], [1], [2]]);
    expect(staggeredBatches([], 6, 200)).toEqual([]);
  });

  it('gives a stage of more requests than in flight a first wave of growing requests, then full ones', () => {
    // 2,000 runs at 200 a request: 10 requests of 200 as batchesOf splits them, two waves of like size that end
    // together on a shared link. Staggered: the k-th of the first 6 carries 200 × k / 6 (700 in all), the other 1,300
    // go in ⌈1300 / 200⌉ = 7 of like size.
    const runs = Array.from({ length: 2000 }, (_, i) => i);
    const batches = staggeredBatches(runs, 6, 200);
    expect(batches.slice(0, 6).map((b) => b.length)).toEqual([33, 67, 100, 133, 167, 200]);
    expect(batches.slice(6).map((b) => b.length)).toEqual([185, 186, 186, 185, 186, 186, 186]);
    // Every run once, in order (neighbours together), none past 200 ranges.
    expect(batches.flat()).toEqual(runs);
  });

  it('keeps one range a request where the source says so (a host answering one range a request)', () => {
    const runs = Array.from({ length: 100 }, (_, i) => i);
    expect(staggeredBatches(runs, 64, 1)).toEqual(runs.map((r) => [r]));
  });
});
