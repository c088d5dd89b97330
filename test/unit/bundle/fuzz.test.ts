// Fuzzing the reader: 100 damaged bundles (byte flips, truncations, wrong versions, another embedder), every one
// refused with the kind of error that matches the damage, never accepted and never a crash of another kind.
import { describe, expect, it } from 'vitest';
import { jsonlPart, structuredPart } from '../../../src/core/bundle/codecs.ts';
import { vectorsPart } from './fixtures.ts';
import { BundleError, type BundleErrorKind } from '../../../src/core/bundle/format.ts';
import { readBundle } from '../../../src/core/bundle/reader.ts';
import { bundleBytes, writeBundle } from '../../../src/core/bundle/writer.ts';

const EMBEDDER = { id: 'use-lite@1', dimension: 8 };

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

async function sampleBundle(version?: number, embedder = EMBEDDER): Promise<Uint8Array> {
  const random = rng(42);
  const docs = Array.from({ length: 20 }, (_, i) => ({
    id: `d${i}`,
    title: `Doc ${i}`,
    text: `text ${i} `.repeat(20),
  }));
  const vectors = new Float32Array(50 * 8).map(() => random() - 0.5);
  const graph = {
    terms: ['a', 'b', 'c'],
    offsets: new Uint32Array([0, 1, 2, 3]),
    weights: new Float32Array([0.5, 1, 2]),
  };
  return bundleBytes(
    writeBundle(
      [
        jsonlPart('documents.jsonl', docs),
        vectorsPart('vectors.i8', vectors, 8, 'i8'),
        structuredPart('graph.bin', graph),
      ],
      { appVersion: '0.1.0', embedder, params: {} },
      { formatVersion: version },
    ),
  );
}

async function kindOf(bytes: Uint8Array): Promise<BundleErrorKind | 'accepted'> {
  try {
    await readBundle(bytes, { expectEmbedder: EMBEDDER });
    return 'accepted';
  } catch (e) {
    if (e instanceof BundleError) return e.kind;
    throw e;
  }
}

describe('bundle reader fuzzing', () => {
  it('refuses 100 damaged bundles, each with the matching kind of error', async () => {
    const good = await sampleBundle();
    expect(await kindOf(good)).toBe('accepted');
    const random = rng(20261121);
    const outcomes: Array<{ case: string; expected: BundleErrorKind; got: string }> = [];

    for (let i = 0; i < 45; i++) {
      const pos = Math.floor(random() * good.length);
      const bad = good.slice();
      bad[pos] ^= 1 + Math.floor(random() * 255); // always a different byte
      const expected: BundleErrorKind = pos < 8 ? 'not-a-bundle' : pos < 12 ? 'unknown-version' : 'corrupted';
      outcomes.push({ case: `flip at ${pos}`, expected, got: await kindOf(bad) });
    }
    for (let i = 0; i < 45; i++) {
      const cut = 1 + Math.floor(random() * (good.length - 1));
      outcomes.push({
        case: `truncated to ${cut}`,
        expected: 'truncated',
        got: await kindOf(good.slice(0, cut)),
      });
    }
    for (const version of [0, 4, 5, 7, 255]) {
      outcomes.push({
        case: `version ${version}`,
        expected: 'unknown-version',
        got: await kindOf(await sampleBundle(version)),
      });
    }
    for (const other of [
      { id: 'hf:minilm', dimension: 384 },
      { id: 'use-lite@1', dimension: 16 },
      { id: 'openai:http://x#emb', dimension: 8 },
      { id: 'use-lite@2', dimension: 8 },
      { id: 'hf:bge', dimension: 768 },
    ]) {
      outcomes.push({
        case: `embedder ${other.id}`,
        expected: 'embedder-mismatch',
        got: await kindOf(await sampleBundle(undefined, other)),
      });
    }
    expect(outcomes).toHaveLength(100);
    const wrong = outcomes.filter((o) => o.got !== o.expected);
    expect(wrong).toEqual([]);
  });
});
