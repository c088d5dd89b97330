// Hostile bundles made on the fly (issue 23): a small bundle whose structured part points thousands of typed-array
// references at one region (8 GB of copies from a 9 KB file before the fix), and a 1 MB bundle whose
// documents.jsonl inflates to 1,000 MB. Both are valid frame by frame (every digest right), so only the decoding
// budget can refuse them. Used by test/unit/bundle/budget.test.ts and test/bench/hostile-bundles.ts.
import { constants, crc32, deflateRawSync, gzipSync } from 'node:zlib';
import type { EmbedderInfo, PartEncoding, PartKind } from '../../src/core/bundle/format.ts';
import { indexParts, type IndexSnapshot } from '../../src/core/bundle/snapshot.ts';
import { Sha256, toHex } from '../../src/core/bundle/sha256.ts';
import { prepareFile } from '../../src/core/prepare.ts';

const enc = new TextEncoder();
const MB = 1024 * 1024;

/** A part as it is stored: its stored bytes and what its header says about them. */
export interface RawPart {
  name: string;
  kind: PartKind;
  encoding: PartEncoding;
  count: number;
  /** What the header declares the part inflates to. */
  rawLength: number;
  stored: Uint8Array;
  meta?: Record<string, unknown>;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function digest(bytes: Uint8Array): Uint8Array {
  return new Sha256().update(bytes).digest();
}

/** tag | u32 length | u32 ~length | JSON | SHA-256(JSON), as FORMAT.md lays out. */
function frame(tag: string, json: unknown): Uint8Array {
  const body = enc.encode(JSON.stringify(json));
  const out = new Uint8Array(12 + body.length + 32);
  out.set(enc.encode(tag), 0);
  const view = new DataView(out.buffer);
  view.setUint32(4, body.length, true);
  view.setUint32(8, ~body.length >>> 0, true);
  out.set(body, 12);
  out.set(digest(body), 12 + body.length);
  return out;
}

/** A complete, well-framed version-2 bundle of exactly these parts (the writer would refuse to lie). */
export function rawBundle(parts: RawPart[], embedder: EmbedderInfo | null = null): Uint8Array {
  const pre = new Uint8Array(12);
  pre.set(enc.encode('CRAGBNDL'), 0);
  new DataView(pre.buffer).setUint32(8, 2, true);
  const head = {
    format: 'conceptrag-bundle',
    formatVersion: 2,
    appVersion: 'hostile',
    createdAt: '2026-01-01T00:00:00.000Z',
    embedder,
    params: {},
  };
  const pieces: Uint8Array[] = [pre, frame('HEAD', head)];
  const entries = parts.map((p) => {
    const sum = digest(p.stored);
    const entry = {
      name: p.name,
      kind: p.kind,
      encoding: p.encoding,
      count: p.count,
      length: p.stored.length,
      rawLength: p.rawLength,
      sha256: toHex(sum),
      ...(p.meta ? { meta: p.meta } : {}),
    };
    pieces.push(frame('PART', entry), p.stored, sum);
    return entry;
  });
  const counts = Object.fromEntries(entries.map((e) => [e.name, e.count]));
  pieces.push(frame('MNFT', { ...head, counts, parts: entries }), enc.encode('END.'));
  return concat(pieces);
}

/** The parts of a real one-document lexical library (made by the app's own prepareFile and indexParts). */
export async function libraryParts(): Promise<RawPart[]> {
  const text = '# Notes\n\nThe heron waits by the river. The river runs to the sea.\n';
  const { documents } = await prepareFile('notes.md', enc.encode(text));
  const snapshot: IndexSnapshot = {
    embedder: null,
    params: {},
    documents: documents.map((d) => d.doc),
    sections: documents.flatMap((d) => d.sections),
    chunks: documents.flatMap((d) => d.chunks),
    sentences: documents.flatMap((d) => d.sentences),
    vectors: new Map(),
    tables: {},
  };
  const out: RawPart[] = [];
  for await (const p of indexParts(snapshot, { appVersion: 'hostile' })) {
    out.push({ ...p, encoding: 'gzip', rawLength: p.data.length, stored: gzipSync(p.data) });
  }
  return out;
}

/**
 * gzip of `piece` repeated `times` times without ever holding the inflated bytes: each piece is deflated on its
 * own and ended with a full flush (byte-aligned, no back-references across pieces), so one compressed piece is
 * repeated; an empty final block, the CRC-32 and the length close the member. 1 MB of spaces deflates to ~1 KB.
 */
export function gzipRepeated(piece: Uint8Array, times: number): Uint8Array {
  const deflated = deflateRawSync(piece, { finishFlush: constants.Z_FULL_FLUSH });
  let crc = 0;
  for (let i = 0; i < times; i++) crc = crc32(piece, crc);
  const header = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  const trailer = new Uint8Array(8);
  const view = new DataView(trailer.buffer);
  view.setUint32(0, crc >>> 0, true);
  view.setUint32(4, (piece.length * times) >>> 0, true);
  return concat([
    header,
    ...Array.from({ length: times }, () => deflated),
    deflateRawSync(new Uint8Array(0)),
    trailer,
  ]);
}

/**
 * The HIGH finding: a structured table part whose records each point a typed array at the same `regionBytes` of
 * the binary section. Every reference is in range and small next to the limits; together they are `refs` ×
 * `regionBytes` of copies.
 */
export async function aliasedBundle(refs = 8000, regionBytes = MB): Promise<Uint8Array> {
  const records = Array.from({ length: refs }, (_, i) => ({
    chunkId: `c${i}`,
    vector: { $typed: 'Uint8Array', offset: 0, length: regionBytes },
  }));
  return tableBundle(structuredBytes(records, regionBytes), refs);
}

/** A structured part's bytes: u32 JSON length | JSON | padding | `binaryBytes` of zeros. */
export function structuredBytes(value: unknown, binaryBytes: number): Uint8Array {
  const json = enc.encode(JSON.stringify(value));
  const binaryStart = Math.ceil((4 + json.length) / 8) * 8;
  const raw = new Uint8Array(binaryStart + binaryBytes);
  new DataView(raw.buffer).setUint32(0, json.length, true);
  raw.set(json, 4);
  return raw;
}

/**
 * The MED finding on the overlap check: `refs` one-byte typed arrays, each its own byte, named in descending order
 * (every reference sorts before all the ones before it). All valid; before the fix each was inserted at the front of
 * a sorted list, O(refs²) in all (a 1 MB bundle: 63 s of CPU before `cli info` answered).
 */
export function descendingRefs(refs: number): Uint8Array {
  const records = Array.from({ length: refs }, (_, i) => ({
    $typed: 'Uint8Array',
    offset: refs - 1 - i,
    length: 1,
  }));
  return structuredBytes(records, refs);
}

/** descendingRefs as a bundle's KG table part, beside a real one-document library. */
export async function descendingBundle(refs = 60_000): Promise<Uint8Array> {
  return tableBundle(descendingRefs(refs), refs);
}

async function tableBundle(raw: Uint8Array, count: number): Promise<Uint8Array> {
  const part: RawPart = {
    name: 'table.kgChunks.bin',
    kind: 'structured',
    encoding: 'gzip',
    count,
    rawLength: raw.length,
    stored: gzipSync(raw, { level: 9 }),
  };
  return rawBundle([...(await libraryParts()), part]);
}

/**
 * The MED finding: documents.jsonl stored as ~1 MB of gzip that inflates to `inflatedMB` MB of spaces. By
 * default the header declares the true inflated size; `declaredBytes` makes it lie (a small declared size that
 * the stream then overruns).
 */
export async function inflationBundle(inflatedMB = 1000, declaredBytes?: number): Promise<Uint8Array> {
  const parts = await libraryParts();
  const spaces = new Uint8Array(MB).fill(0x20);
  return rawBundle(
    parts.map((p) =>
      p.name === 'documents.jsonl'
        ? { ...p, rawLength: declaredBytes ?? inflatedMB * MB, stored: gzipRepeated(spaces, inflatedMB) }
        : p,
    ),
  );
}
