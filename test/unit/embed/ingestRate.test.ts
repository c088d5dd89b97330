// Rate helpers of the ingest benchmark, with a fake embedder of known cost.
import { describe, expect, it } from 'vitest';
import { formatRateTable, measureEmbedderRate, measurePipelineRate } from '../../bench/lib/ingestRate.ts';
import type { Embedder, PreparedDocument } from '../../../src/core/types.ts';

function doc(id: string, n: number): PreparedDocument {
  return {
    doc: { id, title: id, sourceName: id, mime: 'text/plain', size: 0, hash: id, addedAt: 0, text: '' },
    sections: [],
    chunks: [
      {
        id: `${id}#0000#0000`,
        docId: id,
        sectionIndex: 0,
        position: 0,
        order: 0,
        start: 0,
        end: 0,
        text: '',
        tokens: 0,
        firstSentence: 0,
        sentenceCount: n,
      },
    ],
    sentences: Array.from({ length: n }, (_, i) => ({
      id: `${id}:${i}`,
      docId: id,
      chunkId: '',
      index: i,
      start: 0,
      end: 0,
      text: `${id} ${i}`,
    })),
  };
}

/** Takes 10 ms per call whatever the size, so rates are predictable from the number of calls. */
function slowEmbedder(calls: number[]): Embedder {
  return {
    id: 'slow',
    dimension: 1,
    async embed(texts) {
      calls.push(texts.length);
      await new Promise((r) => setTimeout(r, 10));
      return new Float32Array(texts.length).fill(1);
    },
  };
}

describe('ingest rate helpers', () => {
  it('measures the bare embedder in calls of the given size', async () => {
    const calls: number[] = [];
    const s = await measureEmbedderRate(slowEmbedder(calls), ['a', 'b', 'c', 'd', 'e'], 2);
    expect(calls).toEqual([2, 2, 1]);
    expect(s.sentences).toBe(5);
    expect(s.seconds).toBeGreaterThanOrEqual(0.029);
    expect(s.rate).toBeCloseTo(5 / s.seconds, 6);
  });

  it('measures the pipeline over all documents with cross-document batches', async () => {
    const calls: number[] = [];
    const s = await measurePipelineRate(slowEmbedder(calls), [doc('a', 3), doc('b', 4)], 4);
    expect(calls).toEqual([4, 3]);
    expect(s).toMatchObject({ sentences: 7, documents: 2 });
  });

  it('formats an aligned table', () => {
    const t = formatRateTable([
      { name: 'bare', sentences: 100, seconds: 2, rate: 50, cpuRate: 55.55 },
      { name: 'pipeline', sentences: 100, seconds: 2.5, rate: 40 },
    ]);
    expect(t.split('\n')).toEqual([
      'run       sentences  seconds  sentences/s  sentences/CPU-s',
      '--------  ---------  -------  -----------  ---------------',
      'bare            100     2.00         50.0             55.5',
      'pipeline        100     2.50         40.0                 ',
      '',
    ]);
  });
});
