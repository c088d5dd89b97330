// The bundle container: a written bundle reads back byte-identical, whatever the chunking of the stream, and
// every damaged bundle is refused with the kind of error that names what is wrong.
import { describe, expect, it } from 'vitest';
import { BundleError, type BundlePart } from '../../../src/core/bundle/format.ts';
import { readBundle } from '../../../src/core/bundle/reader.ts';
import { bundleBytes, bundleStream, writeBundle } from '../../../src/core/bundle/writer.ts';

const enc = new TextEncoder();
const EMBEDDER = { id: 'use-lite@1', dimension: 4 };

function sampleParts(): BundlePart[] {
  const vectors = new Uint8Array(300);
  for (let i = 0; i < vectors.length; i++) vectors[i] = (i * 37) & 0xff;
  return [
    { name: 'documents.jsonl', kind: 'jsonl', count: 2, data: enc.encode('{"id":"d1"}\n{"id":"d2"}') },
    { name: 'vectors.i8', kind: 'vectors-i8', count: 3, data: vectors, meta: { dimension: 4 } },
    { name: 'empty.bin', kind: 'binary', count: 0, data: new Uint8Array(0) },
  ];
}

async function build(parts = sampleParts(), version?: number): Promise<Uint8Array> {
  return bundleBytes(
    writeBundle(
      parts,
      { appVersion: '0.1.0', embedder: EMBEDDER, params: { maxChunkTokens: 1200 } },
      {
        formatVersion: version,
      },
    ),
  );
}

async function refusal(input: Uint8Array, expectEmbedder = EMBEDDER): Promise<BundleError> {
  try {
    await readBundle(input, { expectEmbedder });
  } catch (e) {
    if (e instanceof BundleError) return e;
    throw new Error(`not a BundleError: ${String(e)}`);
  }
  throw new Error('the bundle was accepted');
}

/** Byte offset where a part's stored payload starts: right after its frame header JSON and its SHA-256. */
async function partDataOffset(bytes: Uint8Array, name: string): Promise<number> {
  const entry = (await readBundle(bytes)).manifest.parts.find((p) => p.name === name)!;
  // Version 3 says where each payload starts; older bundles are searched for the part's frame header.
  if (entry.offset !== undefined) return entry.offset;
  const marker = enc.encode(JSON.stringify(entry));
  for (let i = 0; i + marker.length <= bytes.length; i++) {
    if (marker.every((b, j) => bytes[i + j] === b)) return i + marker.length + 32;
  }
  throw new Error(`part ${name} not found`);
}

/** Splits bytes into chunks of varying size, as a network stream would deliver them. */
async function* chunked(bytes: Uint8Array, seed: number): AsyncGenerator<Uint8Array> {
  let offset = 0;
  let step = 1 + (seed % 13);
  while (offset < bytes.length) {
    yield bytes.slice(offset, offset + step);
    offset += step;
    step = 1 + ((step * 7 + seed) % 97);
  }
}

describe('bundle container round trip', () => {
  it('reads back every part, the counts and the head', async () => {
    const bytes = await build();
    const read = await readBundle(bytes, { expectEmbedder: EMBEDDER });
    const originals = sampleParts();
    expect([...read.parts.keys()]).toEqual(originals.map((p) => p.name));
    for (const p of originals) expect(read.parts.get(p.name)).toEqual(p.data);
    expect(read.manifest.embedder).toEqual(EMBEDDER);
    expect(read.manifest.formatVersion).toBe(3);
    expect(read.manifest.params).toEqual({ maxChunkTokens: 1200 });
    expect(read.manifest.counts).toEqual({ 'documents.jsonl': 2, 'vectors.i8': 3, 'empty.bin': 0 });
    const docs = read.manifest.parts[0];
    expect(docs.encoding).toBe('gzip');
    expect(docs.rawLength).toBe(23);
    expect(read.manifest.parts[1].meta).toEqual({ dimension: 4 });
  });

  it('reads the same from a stream in odd-sized chunks and from a ReadableStream', async () => {
    const bytes = await build();
    for (const seed of [1, 5, 12, 40]) {
      const read = await readBundle(chunked(bytes, seed));
      expect(read.parts.get('vectors.i8')).toEqual(sampleParts()[1].data);
    }
    const viaStream = await readBundle(
      bundleStream(writeBundle(sampleParts(), { appVersion: 'x', embedder: null })),
    );
    expect(viaStream.manifest.embedder).toBeNull();
    expect(new TextDecoder().decode(viaStream.parts.get('documents.jsonl'))).toBe('{"id":"d1"}\n{"id":"d2"}');
  });

  it('refuses to write two parts with one name', async () => {
    const parts = sampleParts();
    parts.push({ ...parts[0] });
    await expect(build(parts)).rejects.toThrow(/used twice/);
  });
});

describe('bundle refusals', () => {
  it('names an empty file and a foreign file as not a bundle', async () => {
    expect((await refusal(new Uint8Array(0))).message).toBe(
      'bundle: not a ConceptRAG bundle (the file is empty)',
    );
    const zip = new Uint8Array([0x50, 0x4b, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect((await refusal(zip)).kind).toBe('not-a-bundle');
  });

  it('names an unknown version', async () => {
    const e = await refusal(await build(sampleParts(), 4));
    expect(e.kind).toBe('unknown-version');
    expect(e.message).toBe('bundle: unknown bundle version 4 (this app reads 1, 2, 3)');
  });

  it('names the other embedder before reading any part', async () => {
    const e = await refusal(await build(), { id: 'hf:minilm', dimension: 384 });
    expect(e.kind).toBe('embedder-mismatch');
    expect(e.message).toBe(
      'bundle: built with embedder use-lite@1 (dimension 4) but this library uses hf:minilm (dimension 384)',
    );
  });

  it('names the part and the byte counts of a truncation inside a part', async () => {
    const bytes = await build();
    const at = await partDataOffset(bytes, 'vectors.i8');
    const e = await refusal(bytes.slice(0, at + 100));
    expect(e.kind).toBe('truncated');
    expect(e.part).toBe('vectors.i8');
    expect(e.message).toBe('bundle: truncated (expected 300 bytes of part vectors.i8, got 100)');
  });

  it('names the corrupted part on a flipped payload byte', async () => {
    const bytes = await build();
    const flipped = bytes.slice();
    flipped[(await partDataOffset(bytes, 'vectors.i8')) + 150] ^= 0x01;
    const e = await refusal(flipped);
    expect(e.kind).toBe('corrupted');
    expect(e.message).toBe('bundle: corrupted (SHA-256 mismatch in part vectors.i8)');
  });

  it('says the manifest is missing when the file ends between frames', async () => {
    const bytes = await build();
    const afterVectors = (await partDataOffset(bytes, 'vectors.i8')) + 300 + 32;
    const e = await refusal(bytes.slice(0, afterVectors));
    expect(e.message).toBe('bundle: truncated (the file ends after part vectors.i8, before the manifest)');
  });

  it('refuses trailing bytes after the end marker', async () => {
    const bytes = await build();
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    expect((await refusal(longer)).kind).toBe('corrupted');
  });
});
