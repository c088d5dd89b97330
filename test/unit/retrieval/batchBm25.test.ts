// BM25 and BM25F of a library read batch by batch (searchByBatches): the same chunks, order and scores, to the last
// bit, as the whole library's index (Bm25Index, HeadingFieldBm25), whatever the batch size, in one pass; no batch
// holds more than it was given, and past its batch only the chunks holding a question word are kept (as keys).
import { describe, expect, it } from 'vitest';
import { searchByBatches, type ChunkTerms } from '../../../src/core/retrieval/batchBm25.ts';
import { Bm25Index } from '../../../src/core/retrieval/bm25.ts';
import { HeadingFieldBm25 } from '../../../src/core/retrieval/fieldBm25.ts';
import { seededRandom } from '../../support/seededRandom.ts';

/** Zipf-like words (some in most chunks, some in one); a third of the chunks without a heading. */
function corpus(
  seed: number,
  chunks: number,
  vocabulary: number,
): { chunks: ChunkTerms[]; word: () => string } {
  const r = seededRandom(seed);
  const word = () => `w${Math.floor(vocabulary * r() * r())}`;
  const list = Array.from({ length: chunks }, (): ChunkTerms => {
    const text = Array.from({ length: 1 + Math.floor(r() * 60) }, word);
    const heading =
      r() < 0.33 ? [] : Array.from({ length: 1 + Math.floor(r() * 5) }, () => (r() < 0.5 ? text[0] : word()));
    return { text, heading };
  });
  return { chunks: list, word };
}

/** The corpus in batches of `size`, counting the largest batch handed out. */
function batched(chunks: readonly ChunkTerms[], size: number) {
  const seen = { largest: 0, passes: 0 };
  const batches = async function* (): AsyncGenerator<ChunkTerms[]> {
    seen.passes++;
    for (let at = 0; at < chunks.length; at += size) {
      const batch = chunks.slice(at, at + size);
      seen.largest = Math.max(seen.largest, batch.length);
      yield batch;
    }
  };
  return { batches, seen };
}

const K1 = 1.2;
const B = 0.75;

describe('searchByBatches', () => {
  for (const [seed, size, copies] of [
    [1, 7, 0],
    [2, 64, 0],
    [3, 13, 1],
    [4, 1, 2],
  ]) {
    it(`ranks as the whole library's index (seed ${seed}, batches of ${size}, ${copies} heading copies)`, async () => {
      const { chunks, word } = corpus(seed, 500, 300);
      const text = new Bm25Index(
        chunks.map((c) => c.text),
        K1,
        B,
      );
      const whole =
        copies === 0
          ? text
          : new HeadingFieldBm25(
              text,
              new Bm25Index(
                chunks.map((c) => c.heading),
                K1,
                B,
              ),
              copies,
              K1,
              B,
            );
      for (let q = 0; q < 20; q++) {
        const query = [word(), word(), word(), `absent${q}`];
        const expected = whole.search(query, 30);
        expect(expected.length, 'the query matches something').toBeGreaterThan(0);
        const { batches, seen } = batched(chunks, size);
        const kept: number[] = [];
        const { best } = await searchByBatches(
          batches,
          (c) => c,
          (c) => chunks.indexOf(c),
          query,
          30,
          { copies, k1: K1, b: B, onBatch: (_, k) => kept.push(k) },
        );
        expect(best.map((b) => b.item)).toEqual(expected.map((e) => e.chunk));
        expect(best.map((b) => b.score)).toEqual(expected.map((e) => e.score));
        expect(seen.passes).toBe(1);
        expect(seen.largest).toBeLessThanOrEqual(size);
        const holding = chunks.filter((c) =>
          [...c.text, ...(copies > 0 ? c.heading : [])].some((t) => query.includes(t)),
        ).length;
        expect(kept.at(-1), 'keys kept: the chunks holding a question word').toBe(holding);
      }
    });
  }

  it('a question none of whose words the library holds reads it once and finds nothing', async () => {
    const { chunks } = corpus(5, 100, 50);
    const { batches, seen } = batched(chunks, 10);
    const { best, stats } = await searchByBatches(
      batches,
      (c) => c,
      (c) => c,
      ['nowhere'],
      10,
      {
        copies: 1,
        k1: K1,
        b: B,
      },
    );
    expect(best).toEqual([]);
    expect(stats.chunks).toBe(100);
    expect(seen.passes).toBe(1);
  });

  it('stops at the next batch when its signal aborts', async () => {
    const { chunks, word } = corpus(6, 100, 50);
    const stop = new AbortController();
    stop.abort(new Error('a newer question'));
    const { batches } = batched(chunks, 10);
    await expect(
      searchByBatches(
        batches,
        (c) => c,
        (c) => c,
        [word()],
        10,
        {
          copies: 0,
          k1: K1,
          b: B,
          signal: stop.signal,
        },
      ),
    ).rejects.toThrow('a newer question');
  });

  it('counts each chunk’s words by script as it streams (scriptStatistics): the whole index’s countByScript ranking', async () => {
    // 300 chunks of w-words and 200 of Chinese words (中0…中79, the same Zipf-like draw): two scripts.
    const { chunks, word } = corpus(7, 500, 80);
    const mixed = chunks.map((c, i) =>
      i < 300
        ? c
        : { text: c.text.map((t) => `中${t.slice(1)}`), heading: c.heading.map((t) => `中${t.slice(1)}`) },
    );
    for (const copies of [0, 1]) {
      const text = new Bm25Index(
        mixed.map((c) => c.text),
        K1,
        B,
      ).countByScript();
      expect(text.scriptChunks).toEqual({ other: 300, cjk: 200 });
      const whole =
        copies === 0
          ? text
          : new HeadingFieldBm25(
              text,
              new Bm25Index(
                mixed.map((c) => c.heading),
                K1,
                B,
              ),
              copies,
              K1,
              B,
            );
      let differs = false;
      for (let q = 0; q < 10; q++) {
        const w = word().slice(1);
        const query = [`中${w}`, `中${word().slice(1)}`, `w${w}`];
        const expected = whole.search(query, 30);
        const { best, stats } = await searchByBatches(
          batched(mixed, 17).batches,
          (c) => c,
          (c) => mixed.indexOf(c),
          query,
          30,
          { copies, k1: K1, b: B, scriptStatistics: true },
        );
        expect(stats.scriptChunks).toEqual({ other: 300, cjk: 200 });
        expect(best.map((b) => b.item)).toEqual(expected.map((e) => e.chunk));
        expect(best.map((b) => b.score)).toEqual(expected.map((e) => e.score));
        const oneN = await searchByBatches(
          batched(mixed, 17).batches,
          (c) => c,
          (c) => mixed.indexOf(c),
          query,
          30,
          {
            copies,
            k1: K1,
            b: B,
          },
        );
        if (JSON.stringify(oneN.best.map((b) => b.score)) !== JSON.stringify(best.map((b) => b.score)))
          differs = true;
      }
      // The per-script N changes the scores: without the counts the pass would give one N's.
      expect(differs).toBe(true);
    }
  });
});
