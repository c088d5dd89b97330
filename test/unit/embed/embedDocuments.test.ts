// The embedding pipeline: cross-document batches, in-order hand-over (per document or per batch), progress,
// streaming input, cancellation; embedTexts, the same loop over a plain list of texts.
import { describe, expect, it } from 'vitest';
import { embedDocuments, embedTexts } from '../../../src/core/pipeline/embedDocuments.ts';
import type { Embedder, PreparedDocument, Progress } from '../../../src/core/types.ts';

/** Document `id` with sentences `${id}.0`, `${id}.1`, … */
function doc(id: string, sentences: number): PreparedDocument {
  return {
    doc: { id, title: id, sourceName: id, mime: 'text/plain', size: 0, hash: id, addedAt: 0, text: '' },
    sections: [],
    chunks: [],
    sentences: Array.from({ length: sentences }, (_, i) => ({
      id: `${id}:${i}`,
      docId: id,
      chunkId: '',
      index: i,
      start: 0,
      end: 0,
      text: `${id}.${i}`,
    })),
  };
}

/** 2-d embedder: row for "<id>.<i>" is [i, 1] (not normalized; only positions matter here). */
function fakeEmbedder(
  dimension = 2,
  hooks: { before?: (texts: string[]) => void } = {},
): Embedder & {
  calls: string[][];
} {
  const calls: string[][] = [];
  return {
    id: 'fake',
    dimension,
    calls,
    async embed(texts: string[], signal?: AbortSignal) {
      calls.push(texts);
      hooks.before?.(texts);
      await new Promise((r) => setTimeout(r, 1));
      if (signal?.aborted) throw Object.assign(new Error('fake: cancelled'), { name: 'AbortError' });
      const out = new Float32Array(texts.length * 2);
      texts.forEach((t, i) => {
        out[2 * i] = Number(t.split('.')[1]);
        out[2 * i + 1] = 1;
      });
      return out;
    },
  };
}

function collect(): {
  docs: Array<[string, number[]]>;
  onDocument: (p: PreparedDocument, v: Float32Array) => void;
} {
  const docs: Array<[string, number[]]> = [];
  return { docs, onDocument: (p, v) => void docs.push([p.doc.id, Array.from(v)]) };
}

describe('embedDocuments', () => {
  it('fills batches across documents and hands each document over, in order, once complete', async () => {
    const e = fakeEmbedder();
    const out = collect();
    const progress: Progress[] = [];
    const result = await embedDocuments([doc('a', 3), doc('b', 0), doc('c', 5)], e, {
      batchSize: 4,
      onDocument: out.onDocument,
      onProgress: (p) => progress.push(p),
    });
    expect(e.calls).toEqual([
      ['a.0', 'a.1', 'a.2', 'c.0'],
      ['c.1', 'c.2', 'c.3', 'c.4'],
    ]);
    expect(out.docs).toEqual([
      ['a', [0, 1, 1, 1, 2, 1]],
      ['b', []],
      ['c', [0, 1, 1, 1, 2, 1, 3, 1, 4, 1]],
    ]);
    expect(progress.map((p) => [p.stage, p.done, p.total])).toEqual([
      ['embed', 4, 8],
      ['embed', 8, 8],
    ]);
    expect(progress[1].rate).toBeGreaterThan(0);
    expect(result).toMatchObject({ documents: 3, sentences: 8, dimension: 2 });
  });

  it('starts embedding while documents are still arriving, and flushes a partial batch for a slow source', async () => {
    const events: string[] = [];
    const e = fakeEmbedder(2, { before: (t) => events.push(`embed ${t.join(',')}`) });
    async function* slowSource(): AsyncGenerator<PreparedDocument> {
      for (const [id, n] of [
        ['a', 2],
        ['b', 2],
        ['c', 1],
      ] as const) {
        events.push(`yield ${id}`);
        yield doc(id, n);
        await new Promise((r) => setTimeout(r, 60));
      }
    }
    const out = collect();
    await embedDocuments(slowSource(), e, { batchSize: 64, maxWaitMs: 10, onDocument: out.onDocument });
    expect(events).toEqual(['yield a', 'embed a.0,a.1', 'yield b', 'embed b.0,b.1', 'yield c', 'embed c.0']);
    expect(out.docs.map((d) => d[0])).toEqual(['a', 'b', 'c']);
  });

  it('learns the dimension from the first answer when the embedder reports 0', async () => {
    const out = collect();
    const r = await embedDocuments([doc('a', 2)], fakeEmbedder(0), { onDocument: out.onDocument });
    expect(r.dimension).toBe(2);
    expect(out.docs).toEqual([['a', [0, 1, 1, 1]]]);
  });

  it('on cancel mid-run throws an AbortError and hands over nothing after it', async () => {
    const ac = new AbortController();
    const e = fakeEmbedder(2, {
      before: () => {
        if (e.calls.length === 2) ac.abort();
      },
    });
    const out = collect();
    const run = embedDocuments([doc('a', 2), doc('b', 3), doc('c', 2)], e, {
      batchSize: 2,
      signal: ac.signal,
      onDocument: out.onDocument,
    });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(out.docs.map((d) => d[0])).toEqual(['a']);
    expect(e.calls).toHaveLength(2);
  });

  it('a cancel while waiting for a document that never comes ends the run promptly', async () => {
    const ac = new AbortController();
    const never: AsyncIterable<PreparedDocument> = {
      [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<PreparedDocument>>(() => {}) }),
    };
    setTimeout(() => ac.abort(), 20);
    const out = collect();
    await expect(
      embedDocuments(never, fakeEmbedder(), { signal: ac.signal, onDocument: out.onDocument }),
    ).rejects.toThrow(/embedDocuments: cancelled/);
  });

  it('passes on embedder and onDocument failures, and a wrong-sized answer', async () => {
    const failing: Embedder = {
      id: 'bad',
      dimension: 2,
      embed: () => Promise.reject(new Error('model exploded')),
    };
    await expect(embedDocuments([doc('a', 1)], failing, { onDocument: () => {} })).rejects.toThrow(
      'model exploded',
    );
    await expect(
      embedDocuments([doc('a', 1)], fakeEmbedder(), {
        onDocument: () => Promise.reject(new Error('store full')),
      }),
    ).rejects.toThrow('store full');
    const short: Embedder = { id: 'short', dimension: 3, embed: async (t) => new Float32Array(t.length * 2) };
    await expect(embedDocuments([doc('a', 2)], short, { onDocument: () => {} })).rejects.toThrow(
      /embedder short returned 4 floats for 2 texts/,
    );
  });
});

describe('embedDocuments with onDocuments (one hand-over per embedder call)', () => {
  it('overlaps each hand-over with the next embedder call, one hand-over at a time, in order', async () => {
    const log: string[] = [];
    const e = fakeEmbedder(2, { before: (t) => log.push(`embed ${t.join(',')}`) });
    let writes = 0;
    const result = await embedDocuments([doc('a', 2), doc('b', 2), doc('c', 2)], e, {
      batchSize: 2,
      onDocuments: async (completed) => {
        const ids = completed.map((c) => c.prepared.doc.id).join(',');
        log.push(`write ${ids} start`);
        writes += 1;
        // Longer than an embedder call (1 ms): the next call starts meanwhile, the next write waits for this one.
        await new Promise((r) => setTimeout(r, 25));
        log.push(`write ${ids} end`);
      },
    });
    expect(log).toEqual([
      'embed a.0,a.1',
      'write a start',
      'embed b.0,b.1',
      'write a end',
      'write b start',
      'embed c.0,c.1',
      'write b end',
      'write c start',
      'write c end',
    ]);
    expect(writes).toBe(3);
    expect(result).toMatchObject({ documents: 3, sentences: 6, dimension: 2 });
  });

  it('hands over leading empty documents before the first call and learns a late dimension', async () => {
    const handed: Array<Array<[string, number[]]>> = [];
    await embedDocuments([doc('z', 0), doc('a', 1), doc('b', 0), doc('c', 2)], fakeEmbedder(0), {
      batchSize: 2,
      onDocuments: async (completed) =>
        void handed.push(completed.map((c) => [c.prepared.doc.id, Array.from(c.vectors)])),
    });
    expect(handed).toEqual([
      [['z', []]],
      [
        ['a', [0, 1]],
        ['b', []],
      ],
      [['c', [0, 1, 1, 1]]],
    ]);
  });

  it('a failed hand-over stops the run at the next hand-over, and the last one fails the run', async () => {
    const e = fakeEmbedder();
    await expect(
      embedDocuments([doc('a', 1), doc('b', 1), doc('c', 1)], e, {
        batchSize: 1,
        onDocuments: (completed) =>
          completed[0].prepared.doc.id === 'a'
            ? new Promise((_, reject) => setTimeout(() => reject(new Error('store full')), 15))
            : Promise.resolve(),
      }),
    ).rejects.toThrow('store full');
    // a's write fails while b is embedded; b's hand-over sees the failure, so c is never embedded.
    expect(e.calls).toEqual([['a.0'], ['b.0']]);
    await expect(
      embedDocuments([doc('a', 1)], fakeEmbedder(), {
        onDocuments: () => Promise.reject(new Error('disk gone')),
      }),
    ).rejects.toThrow('disk gone');
  });

  it('waits for the hand-over in flight when the embedder fails', async () => {
    const log: string[] = [];
    let calls = 0;
    const failingSecond: Embedder = {
      id: 'second-fails',
      dimension: 2,
      embed: async (texts) => {
        calls += 1;
        if (calls === 2) throw new Error('model exploded');
        return new Float32Array(texts.length * 2);
      },
    };
    const run = embedDocuments([doc('a', 1), doc('b', 1)], failingSecond, {
      batchSize: 1,
      onDocuments: async () => {
        await new Promise((r) => setTimeout(r, 20));
        log.push('write done');
      },
    });
    await expect(run).rejects.toThrow('model exploded');
    log.push('run rejected');
    expect(log).toEqual(['write done', 'run rejected']);
  });

  it('refuses both or neither hand-over', async () => {
    const both = { onDocument: () => {}, onDocuments: async () => {} } as unknown as {
      onDocument: () => void;
    };
    await expect(embedDocuments([doc('a', 1)], fakeEmbedder(), both)).rejects.toThrow(
      'embedDocuments: give exactly one of onDocument and onDocuments',
    );
    const neither = {} as unknown as { onDocument: () => void };
    await expect(embedDocuments([doc('a', 1)], fakeEmbedder(), neither)).rejects.toThrow(
      'embedDocuments: give exactly one of onDocument and onDocuments',
    );
  });
});

describe('embedTexts', () => {
  it('embeds each distinct text once, in batches, and returns a row per input text', async () => {
    const e = fakeEmbedder(0);
    const progress: Progress[] = [];
    const { vectors, dimension } = await embedTexts(['q.1', 'q.2', 'q.1', 'q.3', 'q.2'], e, {
      batchSize: 2,
      onProgress: (p) => progress.push(p),
    });
    expect(dimension).toBe(2);
    expect(e.calls).toEqual([['q.1', 'q.2'], ['q.3']]);
    expect(Array.from(vectors)).toEqual([1, 1, 2, 1, 1, 1, 3, 1, 2, 1]);
    expect(progress.map((p) => [p.done, p.total])).toEqual([
      [2, 3],
      [3, 3],
    ]);
  });

  it('returns nothing for no texts and stops with an AbortError when cancelled', async () => {
    expect(await embedTexts([], fakeEmbedder())).toEqual({ vectors: new Float32Array(0), dimension: 2 });
    const ac = new AbortController();
    const e = fakeEmbedder(2, { before: () => ac.abort() });
    await expect(
      embedTexts(['a.1', 'a.2', 'a.3'], e, { batchSize: 1, signal: ac.signal }),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(e.calls).toHaveLength(1);
  });
});
